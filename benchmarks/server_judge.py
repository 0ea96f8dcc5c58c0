"""Server judge vs in-process: fast faithfulness on the first WikiEval grounded answers.

A real llama.cpp server (llama-cpp-python's, ``python -m llama_cpp.server --model <gguf>
--n_threads 2``, the embedded Qwen2.5-Coder-1.5B GGUF) is started behind a counting proxy
that sums the ``usage`` of every reply, so the judge tokens are what the server billed, not
what ragmeter believes it sent. ragmeter runs ``faithfulness`` (default fast mode, cache
off) through the proxy for each ``--runs`` entry, then in-process on the same rows.
ragas 0.4.3 used 2,477 judge tokens per row (20,566 prompt + 4,199 completion on these 10
rows, issue 14), the reference for the token target (at most half).

    .venv/bin/python benchmarks/server_judge.py [--rows 10] [--runs 8:on,1:off,8:off]
        [--skip-local] [--native PATH_OF_LLAMA_SERVER] [--out FILE]

``--native``: llama.cpp's own ``llama-server`` instead (``make llama-server`` builds it from the
llama.cpp that llama-cpp-python vendors, for this CPU), which computes logits for the last
token only and reuses its slot's KV cache across requests (``cache_prompt``, its default).

Each run is ``concurrency:group_verdicts``; the RESULT line reports the first (default
``8:on``: a sample's statements in one request, prompts/grouped.json, opt-in) and the
second (default ``1:off``: one request per statement, the default procedure). The server
holds one model, serves one request at a time and reuses the KV cache of the longest
prefix shared with the previous prompt: the shared system message always, a sample's
context only when its requests come back to back (concurrency 1 runs one sample at a
time, runner.py). The agreement of every pair of runs (score and per-claim P(yes)
differences, verdicts flipping at 0.5) is printed and stored, so grouping cannot change
scores silently. The JSON in benchmarks/results was written when ``auto`` (then the
default, grouped for servers) named the first run: ``c8_group_auto`` is ``8:on``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ragmeter  # noqa: E402
from _record import add_out, check_out, write_json  # noqa: E402
from ragmeter.backends import model_store  # noqa: E402

RAGAS_TOKENS_PER_ROW = 2477  # 20,566 prompt + 4,199 completion over 10 rows (issue 14)
DATA = ROOT.parent / "shared" / "datasets" / "wikieval" / "wikieval.jsonl"
OUT = ROOT / "benchmarks" / "results" / "server_judge.json"


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


class Counts:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.server_s = 0.0

    def reset(self) -> None:
        with self.lock:
            self.requests = self.prompt_tokens = self.completion_tokens = 0
            self.server_s = 0.0


def start_proxy(upstream: str, counts: Counts) -> tuple[ThreadingHTTPServer, str]:
    """A pass-through HTTP proxy that counts requests and sums the replies' usage."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            req = urllib.request.Request(
                upstream + self.path,
                data=body,
                headers={"Content-Type": "application/json"},
                method="POST",
            )
            t0 = time.perf_counter()
            try:
                with urllib.request.urlopen(req, timeout=600) as resp:
                    status, payload = resp.status, resp.read()
            except urllib.error.HTTPError as exc:
                status, payload = exc.code, exc.read()
            took = time.perf_counter() - t0
            usage = {}
            with contextlib.suppress(ValueError):
                usage = json.loads(payload).get("usage") or {}
            with counts.lock:
                counts.requests += 1
                counts.prompt_tokens += int(usage.get("prompt_tokens") or 0)
                counts.completion_tokens += int(usage.get("completion_tokens") or 0)
                counts.server_s += took
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def start_llama_server(
    gguf: Path, port: int, n_ctx: int, native: str | None = None
) -> subprocess.Popen[bytes]:
    """llama-cpp-python's server, or llama.cpp's own ``llama-server`` binary (``native``:
    its path; ``make llama-server`` builds it from the same llama.cpp for this CPU). The
    native server runs one slot (``-np 1``), so the whole context is one sequence whose
    prefix the next request reuses, as the in-process judge does."""
    if native:
        cmd = [native, "-m", str(gguf), "-t", "2", "-c", str(n_ctx), "-np", "1"]
        cmd += ["--port", str(port), "--host", "127.0.0.1"]
    else:
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf)]
        cmd += ["--n_threads", "2", "--n_ctx", str(n_ctx)]
        cmd += ["--port", str(port), "--host", "127.0.0.1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2).read()
            return proc
        except OSError:
            time.sleep(1)
    proc.kill()
    raise RuntimeError("llama.cpp server did not come up in 300 s")


def rows(n: int) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in DATA.read_text().splitlines() if x.strip()]
    return [
        {
            "question_id": f"wikieval-{i}",
            "question": r["question"],
            "answer": r["answer"],
            "contexts": r["context_v1"],
        }
        for i, r in enumerate(lines[:n])
    ]


def scores_of(result: Any) -> list[float | None]:
    return [s.value if s.status == "ok" else None for s in result.scores["faithfulness"]]


def p_yes_of(result: Any) -> list[list[float]]:
    return [list(s.details.get("p_yes") or []) for s in result.scores["faithfulness"]]


def run_server(
    url: str, data: list[dict[str, Any]], conc: int, group: str, counts: Counts
) -> dict[str, Any]:
    settings = ragmeter.Settings(
        judge="openai:qwen2.5-coder-1.5b",
        base_url=url + "/v1",
        cache="off",
        concurrency=conc,
        timeout=600,
        options={"group_verdicts": group},
    )
    counts.reset()
    t0 = time.perf_counter()
    result = ragmeter.evaluate(data, ["faithfulness"], settings=settings)
    wall = time.perf_counter() - t0
    n = len(data)
    fallbacks = sum(
        s.details.get("judge", {}).get("grouped_fallbacks", 0)
        for s in result.scores["faithfulness"]
    )
    return {
        "name": f"c{conc}_group_{group}",
        "concurrency": conc,
        "group_verdicts": group,
        "grouped_fallbacks": fallbacks,
        "wall_s": round(wall, 1),
        "s_per_row": round(wall / n, 2),
        "requests": counts.requests,
        "prompt_tokens": counts.prompt_tokens,
        "completion_tokens": counts.completion_tokens,
        "tokens_per_row": round((counts.prompt_tokens + counts.completion_tokens) / n, 1),
        "server_s_per_request": round(counts.server_s / max(1, counts.requests), 2),
        "failed": sum(s.status == "failed" for s in result.scores["faithfulness"]),
        "scores": scores_of(result),
        "p_yes": p_yes_of(result),
    }


def agreement(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """How far two runs' scores and per-claim P(yes) are apart, and verdicts that flip."""
    diffs = [
        abs(x - y)
        for x, y in zip(a["scores"], b["scores"], strict=True)
        if x is not None and y is not None
    ]
    pa = [p for row in a["p_yes"] for p in row]
    pb = [p for row in b["p_yes"] for p in row]
    same = len(pa) == len(pb)
    flips = sum((x >= 0.5) != (y >= 0.5) for x, y in zip(pa, pb, strict=True)) if same else None
    return {
        "runs": [a["name"], b["name"]],
        "max_abs_score_diff": round(max(diffs), 4) if diffs else None,
        "mean_abs_score_diff": round(sum(diffs) / len(diffs), 4) if diffs else None,
        "claims": len(pa) if same else None,
        "claim_verdict_flips_at_0.5": flips,
        "mean_abs_p_yes_diff": round(
            sum(abs(x - y) for x, y in zip(pa, pb, strict=True)) / len(pa), 4
        )
        if same and pa
        else None,
    }


def run_local(data: list[dict[str, Any]], evidence: str = "auto") -> dict[str, Any]:
    """In-process. ``evidence``: ``auto`` (the default, which picks evidence sentences with the
    local MiniLM embedder for an in-process judge, loading it) or ``lexical`` (word overlap, what
    ``auto`` uses for a server judge: the same procedure as the server runs)."""
    settings = ragmeter.Settings(judge="local", cache="off", options={"evidence": evidence})
    t0 = time.perf_counter()
    result = ragmeter.evaluate(data, ["faithfulness"], settings=settings)
    wall = time.perf_counter() - t0
    usage = result.usage["per_backend"]
    judge = next((v for k, v in usage.items() if k.startswith("local:")), {})
    return {
        "wall_s": round(wall, 1),
        "s_per_row": round(wall / len(data), 2),
        "judge_calls": judge.get("calls"),
        "prompt_tokens": judge.get("prompt_tokens"),
        "scores": scores_of(result),
        "p_yes": p_yes_of(result),
        "name": "in_process",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10, help="first N WikiEval grounded answers")
    parser.add_argument(
        "--runs",
        default="8:on,1:off",
        help="server runs as concurrency:group_verdicts, comma-separated",
    )
    parser.add_argument("--n-ctx", type=int, default=4096, help="the server's context window")
    parser.add_argument("--port", type=int, default=8765, help="port for the judge server")
    parser.add_argument(
        "--skip-local", action="store_true", help="no in-process run to compare with"
    )
    parser.add_argument(
        "--native",
        metavar="LLAMA_SERVER",
        help="path of llama.cpp's llama-server binary (make llama-server) instead of "
        "llama-cpp-python's server",
    )
    add_out(parser, OUT)
    parser.add_argument(
        "--local-evidence",
        default="auto",
        choices=("auto", "lexical", "embedding"),
        help="evidence selection of the in-process run (server runs use auto = lexical)",
    )
    args = parser.parse_args()
    check_out(args.out, args.force)
    data = rows(args.rows)
    gguf = model_store.ensure_model(None)
    counts = Counts()
    t0 = time.perf_counter()
    server = start_llama_server(gguf, args.port, args.n_ctx, args.native)
    load_s = time.perf_counter() - t0
    proxy, url = start_proxy(f"http://127.0.0.1:{args.port}", counts)
    runs = []
    try:
        for spec in args.runs.split(","):
            conc, group = spec.split(":")
            runs.append(run_server(url, data, int(conc), group, counts))
            shown = {k: v for k, v in runs[-1].items() if k not in ("scores", "p_yes")}
            print(json.dumps(shown), flush=True)
    finally:
        proxy.shutdown()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    local = None if args.skip_local else run_local(data, args.local_evidence)
    best = runs[0]  # the RESULT line reports the first run and, when given, the second
    second = runs[1] if len(runs) > 1 else None
    table = [
        ("rows", len(data)),
        ("server_load_s", round(load_s, 1)),
        *[(f"{r['name']}_s_per_row", r["s_per_row"]) for r in runs],
        *[(f"{r['name']}_tokens_per_row", r["tokens_per_row"]) for r in runs],
        *[(f"{r['name']}_requests", r["requests"]) for r in runs],
        ("local_s_per_row", local["s_per_row"] if local else None),
        ("ragas_tokens_per_row", RAGAS_TOKENS_PER_ROW),
    ]
    width = max(len(k) for k, _ in table)
    for key, value in table:
        print(f"{key:<{width}}  {value}")
    compared = [*runs, *([local] if local else [])]
    agree = [agreement(a, b) for i, a in enumerate(compared) for b in compared[i + 1 :]]
    for a in agree:
        print(json.dumps(a))
    out = {
        "rows": len(data),
        "server": (
            "llama.cpp llama-server (-np 1), -t 2" if args.native else "llama-cpp-python server"
        )
        + ", --n_threads 2, n_ctx "
        + str(args.n_ctx),
        "cpu": _cpu_model(),
        "server_load_s": round(load_s, 1),
        "runs": runs,
        "local": local,
        "agreement": agree,
        "ragas_tokens_per_row": RAGAS_TOKENS_PER_ROW,
        "local_evidence": args.local_evidence,
        "load_avg_1min": os.getloadavg()[0],
    }
    write_json(args.out, out, indent=2)
    ratio = best["s_per_row"] / local["s_per_row"] if local else float("nan")
    print(
        f"RESULT server_s_per_row={best['s_per_row']} server_run={best['name']} "
        f"local_s_per_row={local['s_per_row'] if local else 'nan'} "
        f"server_vs_local={ratio:.2f} "
        f"tokens_per_row={best['tokens_per_row']} ragas_tokens_per_row={RAGAS_TOKENS_PER_ROW} "
        f"tokens_vs_ragas={best['tokens_per_row'] / RAGAS_TOKENS_PER_ROW:.2f}"
        + (
            f" second_run={second['name']} second_s_per_row={second['s_per_row']} "
            f"second_tokens_per_row={second['tokens_per_row']}"
            if second
            else ""
        )
    )


if __name__ == "__main__":
    main()
