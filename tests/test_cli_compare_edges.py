"""`ragmeter compare` / `ragmeter report` on awkward input: exit 0 with n/a, or exit 2 naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import EXAMPLES, make_row
from tests.needs import require_module
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app

runner = CliRunner()
METRICS = "token_f1,mrr,refusal_rate"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path, Path]:
    """A, B (B refuses on q1-q8 of 12, so token_f1 drops and refusal_rate rises, both
    significantly; q1 is alone in its kind) and a B over q1-q6 only."""
    root = tmp_path_factory.mktemp("runs")
    kinds = ["lone"] + ["many"] * 11
    rows = [make_row(i, kind=k) for i, k in enumerate(kinds, start=1)]
    refusing = [dict(r, answer="I don't know.") if i < 8 else r for i, r in enumerate(rows)]
    ragmeter.evaluate(rows, METRICS, n_resamples=100).write(root / "a")
    ragmeter.evaluate(refusing, METRICS, n_resamples=100).write(root / "b")
    ragmeter.evaluate(refusing[:6], METRICS, n_resamples=100).write(root / "part")
    return root / "a", root / "b", root / "part"


def test_compare_by_a_column_with_a_one_sample_slice_exits_0_with_na(runs):
    a, b, _ = runs
    res = runner.invoke(app, ["compare", str(a), str(b), "--by", "kind"])
    assert res.exit_code == 0, res.output
    lone = [line for line in res.output.splitlines() if " lone " in line]
    assert lone and all("n/a" in line and "too few" in line for line in lone)
    assert "[" in next(line for line in res.output.splitlines() if " many " in line)


def test_report_by_a_column_with_a_one_sample_slice_writes_the_report(runs, tmp_path):
    require_module("jinja2")
    require_module("matplotlib")
    a, b, _ = runs
    out = tmp_path / "r.html"
    res = runner.invoke(
        app, ["report", str(a), "--compare", str(b), "--by", "kind", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "1 pair: too few for a CI or a test" in out.read_text()


def test_refusal_rate_has_no_better_direction_and_never_fails_the_gate(runs, tmp_path):
    a, b, _ = runs
    args = ["compare", str(a), str(b), "-m", "refusal_rate,token_f1", "-f", "markdown"]
    more = runner.invoke(app, args)
    assert more.exit_code == 0, more.output
    row = next(line for line in more.stdout.splitlines() if line.startswith("| refusal_rate"))
    assert row.endswith("| higher |") and "better" not in row
    assert "neither direction is better" in more.stdout
    # fewer refusals in B: a significant drop, but no regression (it failed the gate before)
    md = tmp_path / "c.md"
    fewer = runner.invoke(
        app, ["compare", str(b), str(a), "-m", "refusal_rate", "--fail-on-regression",
              "--markdown", str(md)]
    )  # fmt: skip
    assert fewer.exit_code == 0, fewer.output
    assert "gate failed" not in fewer.output
    assert "**Changed**, neither direction better (Holm p < 0.05): refusal_rate (lower)" in (
        md.read_text()
    )
    # a real drop still fails it
    worse = runner.invoke(app, ["compare", str(a), str(b), "--fail-on-regression"])
    assert worse.exit_code == 1 and "gate failed: token_f1: dropped" in worse.output
    assert "gate failed: refusal_rate" not in worse.output


def test_compare_with_a_data_file_exits_2_naming_it(runs):
    a, _, _ = runs
    data = EXAMPLES / "rag_turns.jsonl"
    res = runner.invoke(app, ["compare", str(a), str(data)])
    assert res.exit_code == 2
    assert f"not a run directory: {data} is a file" in res.output
    assert "internal error" not in res.output


def test_report_checks_its_output_path_before_any_work(runs, tmp_path, monkeypatch):
    import ragmeter.reporting

    def no_rendering(*args, **kwargs):
        raise AssertionError("rendered before the output path was checked")

    monkeypatch.setattr(ragmeter.reporting, "render_report", no_rendering)
    a, b, _ = runs
    base = ["report", str(a), "--compare", str(b), "-o"]
    res = runner.invoke(app, [*base, str(tmp_path)])
    assert res.exit_code == 2 and f"--out {tmp_path} is a directory" in res.output
    under_file = a / "scores.jsonl" / "r.html"
    res = runner.invoke(app, [*base, str(under_file)])
    assert res.exit_code == 2 and "is a file, not a directory" in res.output
    if Path("/proc/self").is_dir():  # Linux: nothing can be created in /proc, not even by root
        res = runner.invoke(app, [*base, "/proc/x.html"])
        assert res.exit_code == 2 and "--out /proc/x.html cannot be written" in res.output


def test_report_intersect_compares_the_shared_ids_and_says_how_many_were_left_out(runs, tmp_path):
    require_module("jinja2")
    require_module("matplotlib")
    a, _, part = runs
    out = tmp_path / "r.html"
    unpaired = runner.invoke(app, ["report", str(a), "--compare", str(part), "-o", str(out)])
    assert unpaired.exit_code == 2 and "6 id(s) only in" in unpaired.output
    assert "--intersect" in unpaired.output and not out.exists()
    res = runner.invoke(
        app, ["report", str(a), "--compare", str(part), "--intersect", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    said = "compared on the 6 shared ids; 6 only in A, 0 only in B left out"
    assert said in res.output and said in out.read_text()
    alone = runner.invoke(app, ["report", str(a), "--intersect", "-o", str(out)])
    assert alone.exit_code == 2 and "--intersect needs --compare" in alone.output


def test_the_table_never_cuts_the_verdict_when_stdout_is_not_a_terminal(runs):
    # CliRunner's stdout is no terminal, as in a CI log: rich would fit 80 columns and cut
    # "B vs A" to "wor" / "hig" with these metric names
    a, b, _ = runs
    res = runner.invoke(app, ["compare", str(a), str(b), "--by", "kind"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    f1 = next(line for line in lines if line.startswith(" token_f1 "))
    refusals = next(line for line in lines if line.startswith(" refusal_rate "))
    assert f1.rstrip().endswith(" worse") and refusals.rstrip().endswith(" higher")
    assert "B vs A" in res.output and "…" not in res.output


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--n-resamples", "0"], "--n-resamples"),
        (["--n-resamples", "-5"], "--n-resamples"),
        (["--permutations", "-3"], "--permutations"),
        (["--permutations", "0"], "--permutations"),
        (["--seed", "-1"], "--seed"),
    ],
)
def test_compare_rejects_bad_numeric_options_with_exit_2(runs, args, option):
    a, b, _ = runs
    res = runner.invoke(app, ["compare", str(a), str(b), *args])
    assert res.exit_code == 2
    assert f"Invalid value for '{option}'" in res.output and "internal error" not in res.output


@pytest.mark.parametrize("args", [["--alpha", "0"], ["--alpha", "1.5"], ["--worst", "-1"]])
def test_report_rejects_bad_numeric_options_with_exit_2(runs, tmp_path, args):
    a, b, _ = runs
    res = runner.invoke(
        app, ["report", str(a), "--compare", str(b), "-o", str(tmp_path / "r.html"), *args]
    )
    assert res.exit_code == 2 and ("--alpha" in res.output or "--worst" in res.output)
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("option", ["--markdown", "--json"])
def test_compare_checks_its_output_paths_before_any_work(runs, tmp_path, monkeypatch, option):
    """A bad --markdown / --json was found only after the statistics: internal error, exit 1."""
    import importlib

    cli_compare = importlib.import_module("ragmeter.cli.compare")

    def no_work(*args, **kwargs):
        raise AssertionError("compared before the output paths were checked")

    a, b, _ = runs
    with monkeypatch.context() as patched:
        patched.setattr(cli_compare, "compare", no_work)
        for bad, said in [
            (tmp_path, f"{option} {tmp_path} is a directory"),
            (a / "scores.jsonl" / "c.out", "is a file, not a directory"),
            *([("/proc/nope/c.out", f"{option} /proc/nope/c.out cannot be written")]
              if Path("/proc/self").is_dir() else []),
        ]:  # fmt: skip
            res = runner.invoke(app, ["compare", str(a), str(b), option, str(bad)])
            assert res.exit_code == 2, res.output
            assert said in res.output and "internal error" not in res.output
    fresh = tmp_path / "new" / "dir" / "c.out"  # a missing directory is made, as report's -o
    res = runner.invoke(app, ["compare", str(a), str(b), option, str(fresh)])
    assert res.exit_code == 0, res.output
    assert fresh.read_text().startswith("### ragmeter" if option == "--markdown" else "{")


@pytest.mark.parametrize(
    ("status", "state"),
    [
        ("interrupted", "was interrupted"),
        ("aborted", "was aborted"),
        ("crashed", "crashed"),
        ("running", "is still running, or was killed before it finished"),
    ],
)
def test_an_unfinished_run_says_its_state_and_how_to_resume(runs, tmp_path, status, state):
    """An interrupted evaluate leaves run.json but no scores.jsonl: that was 'not a run
    directory: ... (no scores.jsonl / run.json)', though run.json was right there."""
    import importlib.util
    import json
    import shutil

    a, b, _ = runs
    cut = tmp_path / "cut"
    shutil.copytree(a, cut)
    (cut / "scores.jsonl").unlink()
    (cut / "summary.json").unlink()
    doc = json.loads((cut / "run.json").read_text())
    line = "interrupted: 3 of 12 judged scores done, kept in CACHE; re-run the same command"
    (cut / "run.json").write_text(json.dumps({**doc, "status": status, "error": line}))
    commands = [["compare", str(cut), str(b)]]
    if all(importlib.util.find_spec(m) for m in ("jinja2", "matplotlib")):  # report's extra
        commands.append(["report", str(cut), "-o", str(tmp_path / "r.html")])
    for args in commands:
        res = runner.invoke(app, args)
        assert res.exit_code == 2, res.output
        text = " ".join(res.output.split())
        assert f"not a finished run: the run in {cut} {state}" in text
        assert f"status '{status}'; {line}" in text and "not a run directory" not in text
        assert "same `ragmeter evaluate` command (same data, metrics and -o) resumes it" in text
    # scores.jsonl left there by an earlier run: read, but said, not passed off as this run's
    shutil.copy(a / "scores.jsonl", cut / "scores.jsonl")
    res = runner.invoke(app, ["compare", str(cut), str(b)])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert f"warning: not a finished run: the run in {cut} {state}" in said
    assert "The scores read may be from an earlier run in cut" in said
