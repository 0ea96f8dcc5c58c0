"""Where a Ray run's wall time goes, beyond the ideal ``calls x latency / slots``.

Runs part (b) of benchmarks/scale.py once on Ray (``ray.init(num_cpus=2)``, ``--actors`` x
``--per-actor`` against the fake OpenAI server at ``--latency``) and measures it from three
sides at once:

- the server logs when each request arrived and when its reply was written. Since
  ``wall x slots = sum of request times + idle slot-time``, the pipeline's wall is exactly
  ``ideal + sum(request time - latency) / slots + idle slot-time / slots``; the idle
  slot-time is cut into windows: before the first request (start-up), until all slots are
  first busy (ramp), the steady state, after the slots stop being full (drain), after the
  last reply (the driver's finish). Each window's loss is given in seconds of wall;
- ``ray.timeline()``: when each judge actor was constructed and ran its batches;
- every process of the run (descendants of this one) sampled from /proc: CPU seconds and
  run-queue wait (``schedstat``: runnable but waiting for a core) per kind of process.

Plus Ray Data's own ``ds.stats()``. Why a separate script: scale.py reports one ratio; this
one says which part of the pipeline the ratio comes from, so a change can be aimed at it.

    PYTHONPATH=src .venv/bin/python benchmarks/ray_profile.py [--samples 10000] [--out F]
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, write_json  # noqa: E402

sys.path.insert(0, str(ROOT.parent / "tests"))

HZ = os.sysconf("SC_CLK_TCK")


# -- the server, in a process of its own, logging each request --------------------------------
def serve(latency: float, log: str) -> None:
    import fake_server

    times: list[tuple[float, float]] = []
    handle = fake_server._Handler.do_POST

    def do_post(self: Any) -> None:
        t0 = time.time()
        handle(self)
        times.append((t0, time.time()))

    fake_server._Handler.do_POST = do_post  # type: ignore[method-assign]
    server = fake_server.FakeOpenAIServer(latency=latency).start()

    def dump(*_: Any) -> None:
        Path(log).write_text(json.dumps(times))
        os._exit(0)

    signal.signal(signal.SIGTERM, dump)
    print(f"URL {server.url}", flush=True)
    while True:
        time.sleep(3600)


def start_server(latency: float, log: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(latency), str(log)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip().split(" ", 1)[1]


# -- CPU of every process of the run ---------------------------------------------------------
class ProcSampler(threading.Thread):
    """Every ``every`` s: the descendants of this process, their titles (Ray workers retitle
    themselves) and their CPU time and run-queue wait so far."""

    def __init__(self, every: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.every = every
        self.stop = threading.Event()
        self.seen: dict[int, dict[str, Any]] = {}

    def run(self) -> None:
        while not self.stop.is_set():
            self.sample()
            self.stop.wait(self.every)
        self.sample()

    def sample(self) -> None:
        parent: dict[int, int] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    stat = Path(f"/proc/{name}/stat").read_text()
                except OSError:
                    continue
                parent[int(name)] = int(stat.rsplit(")", 1)[1].split()[1])
        mine = {os.getpid()}
        grew = True
        while grew:
            more = {p for p, pp in parent.items() if pp in mine and p not in mine}
            mine |= more
            grew = bool(more)
        for pid in mine:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                wait = sum(
                    int(Path(f"/proc/{pid}/task/{t}/schedstat").read_text().split()[1])
                    for t in os.listdir(f"/proc/{pid}/task")
                    if os.path.exists(f"/proc/{pid}/task/{t}/schedstat")
                )
                title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            rec = self.seen.setdefault(pid, {"titles": set()})
            rec["titles"].add(title.decode(errors="replace")[:120])
            rec["cpu_s"] = (int(fields[11]) + int(fields[12])) / HZ
            rec["wait_s"] = wait / 1e9
            rec.setdefault("series", []).append((time.time(), rec["cpu_s"]))

    def by_kind(self, server_pid: int, cuts: dict[str, float]) -> dict[str, dict[str, float]]:
        """Per kind of process: how many, CPU seconds and run-queue wait in all, and CPU
        seconds between consecutive ``cuts`` (named by the cut they start at)."""
        names = list(cuts)
        out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for pid, rec in self.seen.items():
            kind = out[_kind(pid, rec["titles"], server_pid)]
            kind["n"] += 1
            kind["cpu_s"] += rec.get("cpu_s", 0.0)
            kind["wait_s"] += rec.get("wait_s", 0.0)
            series = rec.get("series", [])
            for a, b in itertools.pairwise(names):
                used = _cpu_at(series, cuts[b]) - _cpu_at(series, cuts[a])
                kind[f"cpu_s_{a}_to_{b}"] += used
        return {k: {n: round(v, 2) for n, v in d.items()} for k, d in sorted(out.items())}

    def processes(self) -> list[dict[str, Any]]:
        """Every process seen: its titles (a Ray worker's say what it ran), CPU, wait."""
        return [
            {
                "pid": pid,
                "titles": sorted(t[:60] for t in rec["titles"]),
                "cpu_s": round(rec.get("cpu_s", 0.0), 2),
                "wait_s": round(rec.get("wait_s", 0.0), 2),
            }
            for pid, rec in sorted(self.seen.items())
        ]


def _cpu_at(series: list[tuple[float, float]], t: float) -> float:
    """A process's CPU seconds at time ``t``: its last sample before (0 before it ran)."""
    before = [cpu for at, cpu in series if at <= t]
    return before[-1] if before else 0.0


def _kind(pid: int, titles: set[str], server_pid: int) -> str:
    text = " ".join(titles)
    if pid == os.getpid():
        return "driver"
    if pid == server_pid:
        return "fake_server"
    for key, kind in (
        ("MapWorker", "judge_actors"),
        ("Dealer", "dealer_actor"),
        ("gcs_server", "gcs_server"),
        ("raylet", "raylet"),
        ("ray::", "ray_task_workers"),
        ("default_worker", "idle_ray_workers"),
    ):
        if key in text:
            return kind
    return "ray_daemons"  # dashboard, monitor, log monitor, agents


# -- what the pipeline did -------------------------------------------------------------------
class Taps:
    """Times and the dataset of the driver's side, tapped without changing ragmeter."""

    def __init__(self) -> None:
        import ray.data

        self.pipeline_start = 0.0
        self.batches: list[float] = []
        self.ds: Any = None
        from_items = ray.data.from_items
        iter_batches = ray.data.Dataset.iter_batches
        taps = self

        def tapped_from_items(*a: Any, **k: Any) -> Any:
            taps.pipeline_start = time.time()
            return from_items(*a, **k)

        def tapped_iter_batches(ds: Any, *a: Any, **k: Any) -> Any:
            taps.ds = ds
            for batch in iter_batches(ds, *a, **k):
                taps.batches.append(time.time())
                yield batch

        ray.data.from_items = tapped_from_items
        ray.data.Dataset.iter_batches = tapped_iter_batches  # type: ignore[method-assign]


def slot_windows(
    times: list[tuple[float, float]], p0: float, p1: float, slots: int, latency: float
) -> dict[str, Any]:
    """The pipeline's wall cut into ideal, slow requests and idle slots per window."""
    events = sorted([(t0, 1) for t0, _ in times] + [(t1, -1) for _, t1 in times])
    first, last = events[0][0], events[-1][0]
    full_first = full_last = None
    level = 0
    for t, d in events:
        level += d
        if level >= slots:
            full_first = full_first or t
            full_last = t
    cuts = [p0, first, full_first or first, full_last or last, last, p1]
    names = ["start_up", "ramp", "steady", "drain", "driver_finish"]
    idle = [0.0] * 5
    level, prev = 0, p0
    for t, d in sorted(events + [(c, 0) for c in cuts]):  # no interval spans a cut
        if t > prev:
            w = min(max(bisect.bisect_right(cuts, prev) - 1, 0), 4)
            idle[w] += max(0, slots - level) * (t - prev)
            prev = t
        level += d
    excess = sum(t1 - t0 - latency for t0, t1 in times)
    ideal = len(times) * latency / slots
    out: dict[str, Any] = {
        "calls_seen_by_server": len(times),
        "ideal_s": round(ideal, 3),
        "pipeline_s": round(p1 - p0, 3),
        "request_time_beyond_latency_s": round(excess / slots, 3),
        "request_time_mean_ms": round(1000 * sum(b - a for a, b in times) / len(times), 2),
        "windows": {},
    }
    for k, name in enumerate(names):
        out["windows"][name] = {
            "from_s": round(cuts[k] - p0, 3),
            "wall_s": round(cuts[k + 1] - cuts[k], 3),
            "lost_to_idle_slots_s": round(idle[k] / slots, 3),
        }
    out["check_sum_s"] = round(ideal + excess / slots + sum(idle) / slots, 3)
    return out


def actor_timeline(events: list[dict[str, Any]], p0: float) -> dict[str, Any]:
    """Per judge actor: construction and its batches, seconds from the pipeline's start."""
    per: dict[Any, dict[str, Any]] = {}
    for e in events:
        name = str(e.get("cat", ""))
        if "MapWorker" not in name or e.get("ph") != "X":
            continue
        start, dur = e["ts"] / 1e6 - p0, e.get("dur", 0) / 1e6
        rec = per.setdefault(e.get("tid"), {"init": None, "tasks": []})
        if "__init__" in name:
            rec["init"] = [round(start, 2), round(start + dur, 2)]
        elif name.endswith(".submit"):
            rec["tasks"].append((start, dur))
    out = {}
    for n, rec in enumerate(per.values()):
        tasks = sorted(rec["tasks"])
        if not tasks:
            continue
        out[f"actor{n}"] = {
            "init_s": rec["init"],
            "batches": len(tasks),
            "first_batch_at_s": round(tasks[0][0], 2),
            "last_batch_end_s": round(max(s + d for s, d in tasks), 2),
            "batch_s_median": round(sorted(d for _, d in tasks)[len(tasks) // 2], 2),
        }
    return out


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        serve(float(sys.argv[2]), sys.argv[3])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=10_000, help="judged samples")
    ap.add_argument("--actors", type=int, default=4, help="Ray judge actors")
    ap.add_argument("--per-actor", type=int, default=4, help="concurrency of each actor")
    ap.add_argument("--batch", type=int, default=250, help="rows per Ray batch")
    ap.add_argument("--latency", type=float, default=0.05, help="server reply latency, s")
    add_out(ap, ROOT / "results" / "ray_profile.json")
    args = ap.parse_args()
    check_out(args.out, args.force)
    from scale import judged_rows

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        data = tmp / "judged.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in judged_rows(args.samples)))
        report = profile(args, tmp, data)
    report["load_1m_after"] = round(os.getloadavg()[0], 2)
    write_json(args.out, report)
    skip = ("ray_data_stats", "processes")
    print(json.dumps({k: v for k, v in report.items() if k not in skip}, indent=1))
    print(f"wrote {args.out}")
    slots = report["slots"]  # the RESULT line; its ratios are named as scale.py names them
    wo = slots["pipeline_s"] / slots["ideal_s"]
    print(f"RESULT ray_ratio={report['ratio_with_init']} ray_ratio_without_start={wo:.3f}")


def profile(args: argparse.Namespace, tmp: Path, data: Path) -> dict[str, Any]:
    import ray

    import ragmeter

    log = tmp / "requests.json"
    proc, url = start_server(args.latency, log)
    sampler = ProcSampler()
    sampler.start()
    load0 = os.getloadavg()[0]
    try:
        t0 = time.time()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        t1 = time.time()
        taps = Taps()
        try:
            settings = ragmeter.Settings(
                judge="openai:bench",
                base_url=url,
                cache=str(tmp / "cache"),
                embedder="none",
                concurrency=args.per_actor,
                api_key_env="RAGMETER_BENCH_UNSET",
            )
            res = ragmeter.evaluate(
                str(data),
                ["answer_relevance"],
                settings=settings,
                out=tmp / "ray",
                executor="ray",
                actors=args.actors,
                batch_size=args.batch,
            )
            t2 = time.time()
            timeline = ray.timeline()
            stats = taps.ds.stats() if taps.ds is not None else ""
        finally:
            ray.shutdown()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        sampler.stop.set()
        sampler.join()
    times = [(a, b) for a, b in json.loads(log.read_text())]
    p0 = taps.pipeline_start
    p1 = p0 + res.usage["pipeline_wall_s"]
    judged = sorted((a, b) for a, b in times if a >= p0)  # the actors' preflights too
    slots = args.actors * args.per_actor
    return {
        "samples": args.samples,
        "actors": args.actors,
        "per_actor": args.per_actor,
        "batch": args.batch,
        "load_1m_before": round(load0, 2),
        "phases_s": {
            "ray_init": round(t1 - t0, 3),
            "evaluate_before_pipeline": round(p0 - t1, 3),
            "pipeline": round(p1 - p0, 3),
            "evaluate_after_pipeline": round(t2 - p1, 3),
            "wall_with_init": round(t2 - t0, 3),
        },
        "ratio_with_init": round((t2 - t0) / (len(judged) * args.latency / slots), 3),
        "slots": slot_windows(judged, p0, p1, slots, args.latency),
        "driver_batches": {
            "n": len(taps.batches),
            "first_at_s": round(taps.batches[0] - p0, 2) if taps.batches else None,
        },
        "actors_timeline": actor_timeline(timeline, p0),
        "cpu_by_process_kind": sampler.by_kind(
            proc.pid,
            {
                "ray_init": t0,
                "pipeline": p0,
                "first_request": judged[0][0],
                "pipeline_end": p1,
                "end": t2 + 1.0,
            },
        ),
        "processes": sampler.processes(),
        "ray_data_stats": stats,
    }


if __name__ == "__main__":
    main()
