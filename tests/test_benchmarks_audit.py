"""Every benchmark script, run as a reviewer runs it from a fresh clone.

The docs cite ``benchmarks/results/*.json`` as evidence and the ``RESULT`` line as the number
an issue is checked against. So: ``--help`` works for every script; the cheap ones, at their
smallest sizes, end stdout with ``RESULT ``, write their JSON where ``--out`` says (creating
the folder) with the machine, commit and date, and refuse to replace an existing file without
``--force``; a missing data set is one line naming the path, not a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from needs import missing

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_"))
# scripts that print only (no JSON): no --out / --force
PRINT_ONLY = {"claims_changes.py"}
SHARED = ROOT.parent / "shared" / "datasets"


def _run(script: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
    )


def test_every_benchmark_has_a_working_help_with_out_and_force() -> None:
    assert len(SCRIPTS) >= 20  # the glob found the scripts
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(zip(SCRIPTS, pool.map(lambda p: _run(p.name, "--help"), SCRIPTS), strict=True))
    for path, proc in done.items():
        assert proc.returncode == 0, (path.name, proc.stderr[-2000:])
        assert proc.stdout.startswith("usage:"), path.name
        if path.name not in PRINT_ONLY:
            assert "--out" in proc.stdout and "--force" in proc.stdout, path.name
        assert not _undescribed(proc.stdout), (path.name, _undescribed(proc.stdout))


def _undescribed(usage: str) -> list[str]:
    """Options that ``--help`` lists without a word of description."""
    lines = usage.split("options:", 1)[-1].splitlines()
    bare = []
    for i, line in enumerate(lines):
        if not line.startswith("  -") or "  " in line.strip():
            continue  # not an option, or its help follows on the same line
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if not (following.startswith("   ") and not following.lstrip().startswith("-")):
            bare.append(line.strip())
    return bare


# (script, smallest-size arguments, data set it needs or None)
CHEAP = [
    ("lexical.py", ["--n", "200", "--repeat", "1", "--unitxt-n", "20"], None),
    ("unitxt_crosscheck.py", ["--n", "20"], None),
    ("scale.py", ["--rows", "500", "--samples", "0"], None),
    ("engine.py", ["--calls", "10", "--samples", "2", "--e2e-repeat", "1"], "wikieval"),
    ("retrieval_crosscheck.py", ["--k", "10"], "scifact"),
]


@pytest.mark.parametrize(("script", "args", "needs"), CHEAP, ids=[c[0] for c in CHEAP])
def test_cheap_benchmark_ends_with_result_writes_traceable_json_and_keeps_it(
    tmp_path: Path, script: str, args: list[str], needs: str | None
) -> None:
    if needs is not None and not (SHARED / needs).exists():
        missing(f"{needs} not found under {SHARED}")
    out = tmp_path / "not" / "yet" / "made.json"
    proc = _run(script, *args, "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1].startswith("RESULT "), proc.stdout[-500:]
    record = json.loads(out.read_text(encoding="utf-8"))
    run = record["provenance"]
    assert run["cpu_count"] == os.cpu_count() and run["cpu_model"]
    assert run["load_avg_1min"] >= 0
    assert len(run["git_commit"]) == 40 and run["date_utc"].startswith("20")
    assert run["ragmeter_src"] == str(ROOT / "src" / "ragmeter")  # the code measured

    before = out.read_bytes()
    again = _run(script, *args, "--out", str(out))
    assert again.returncode != 0
    assert str(out) in again.stderr and "--force" in again.stderr
    assert "Traceback" not in again.stderr
    assert out.read_bytes() == before  # nothing replaced


def test_default_out_is_never_replaced_silently() -> None:
    """A quick check without --out must not overwrite the result file the docs cite."""
    cited = BENCH / "results" / "unitxt_crosscheck.json"
    assert cited.exists()
    before = cited.read_bytes()
    proc = _run("unitxt_crosscheck.py", "--n", "5")
    assert proc.returncode != 0 and "--force" in proc.stderr
    assert cited.read_bytes() == before


@pytest.mark.parametrize(
    ("script", "args", "named"),
    [
        ("retrieval_crosscheck.py", ["--data", "{tmp}/no_scifact"], "no_scifact/corpus.jsonl"),
        ("engine.py", ["--data", "{tmp}/no_wikieval.jsonl"], "no_wikieval.jsonl"),
        ("faithfulness_scifact.py", ["--data", "{tmp}/no_scifact"], "no_scifact/corpus.jsonl"),
        (
            "fit_faithfulness_calibration.py",
            ["--results", "{tmp}/no_results.json", "--out", "{tmp}/fit.json"],
            "no_results.json",
        ),
        ("local_judge.py", ["--model", "{tmp}/no_model.gguf"], "no_model.gguf"),
    ],
    ids=[
        "retrieval_crosscheck",
        "engine",
        "faithfulness_scifact",
        "fit_calibration",
        "local_judge",
    ],
)
def test_missing_data_is_one_line_naming_the_path(
    tmp_path: Path, script: str, args: list[str], named: str
) -> None:
    filled = [a.format(tmp=tmp_path) for a in args]
    if "--out" not in filled:
        filled += ["--out", str(tmp_path / "out.json")]
    proc = _run(script, *filled, timeout=30)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert named in proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_claims_changes_rejects_an_unknown_set_before_any_work() -> None:
    proc = _run("claims_changes.py", "--sets", "qa,nonesuch", timeout=30)
    assert proc.returncode == 2
    assert "nonesuch" in proc.stderr and "Traceback" not in proc.stderr
    assert "set" not in proc.stdout  # no table started


def test_faithfulness_visible_reads_every_set_before_the_judge() -> None:
    """A mistyped set name after good ones used to stop the run only when the loop reached
    it, after the judge calls on the sets before it; now it stops before the judge is built
    (``--judge none`` here: the old code reached the judge and failed on that instead)."""
    proc = _run(
        "faithfulness_visible.py",
        *("--sets", "qa,nonesuch", "--judge", "none", "--embedder", "none"),
        *("--out", "/nonexistent/never_written.json"),
        timeout=30,
    )
    assert proc.returncode != 0
    assert "nonesuch" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-2000:]


def test_probe_contradiction_never_defaults_to_faithfulness_visible_json() -> None:
    """probe_contradiction.py runs faithfulness_visible.main() with another prompt; its
    default --out was that script's faithfulness_visible.json (the shipped prompt's run)."""
    assert (BENCH / "results" / "faithfulness_visible.json").exists()
    proc = _run(
        "probe_contradiction.py",
        *("--sets", "qa", "--judge", "none", "--embedder", "none"),
        timeout=30,
    )
    assert proc.returncode != 0  # no judge: it stops before any call
    assert "faithfulness_visible.json" not in proc.stderr, proc.stderr[-2000:]
    assert "no judge" in proc.stderr


def test_scale_with_nothing_to_measure_is_an_error_not_an_empty_result(tmp_path: Path) -> None:
    """``--rows 0 --samples 0`` used to write a JSON of empty parts and end with a bare
    ``RESULT`` line, which a reviewer reads as a run that measured something."""
    out = tmp_path / "scale.json"
    proc = _run("scale.py", "--rows", "0", "--samples", "0", "--out", str(out), timeout=30)
    assert proc.returncode == 2 and "nothing to measure" in proc.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("flag", "typo"),
    [("--forms", "question-echo"), ("--metrics", "faithfulnes"), ("--groups", "held")],
)
def test_injection_rejects_unknown_names_before_the_judge(flag: str, typo: str) -> None:
    """A mistyped form, metric or group used to filter its rows away silently: the run then
    judged the clean bases alone (or nothing) and reported flip rates for forms never run.
    ``--judge none``: the old code went on to the judge and stopped there instead."""
    proc = _run(
        "injection.py", flag, typo, "--judge", "none", "--out", "/nonexistent/i.json", timeout=30
    )
    assert proc.returncode == 2
    assert typo in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-2000:]
