"""The CLI in pipes, scripts and odd terminals (the 2026-11-27 audit): a reader that goes
away (`| head -1`, `| grep -q`) changes no exit code and skips no gate; a table off a
terminal is never cut to the width of COLUMNS; input that cannot be read twice (stdin, a
FIFO, `<(...)`) and `-` given as an output file are refused, naming what to do. Each test
failed before its fix."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ragmeter

ROOT = Path(__file__).resolve().parents[1]
TURNS = ROOT / "examples" / "rag_turns.jsonl"
RUNS = ROOT / "examples" / "compare" / "runs"
LEXICAL = "token_f1,k_precision,mrr,refusal_rate"


def _env(**extra: str) -> dict[str, str]:
    src = str(Path(ragmeter.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


def _closed_stdout(args: list[str]) -> tuple[int, str]:
    """Exit code and stderr of the command, its stdout closed before it prints (`| true`)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragmeter", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=120), err


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """The command with stdout and stderr pipes (not a terminal)."""
    cmd = [sys.executable, "-m", "ragmeter", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(**env), timeout=120)


def test_a_closed_stdout_leaves_a_passing_run_at_exit_0(tmp_path) -> None:
    """Before: exit 1 ("some scores failed", a failed CI step under pipefail), no word."""
    out = tmp_path / "run"
    code, err = _closed_stdout(["evaluate", str(TURNS), "-m", LEXICAL, "-q", "-o", str(out)])
    assert code == 0, err
    assert (out / "summary.json").is_file()
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_a_closed_stdout_still_checks_the_gate() -> None:
    """Before: exit 1 at the table, the gate never checked: no `gate failed:` line."""
    args = ["evaluate", str(TURNS), "-m", LEXICAL, "-q", "--fail-under", "mrr=0.99"]
    code, err = _closed_stdout(args)
    assert code == 1
    assert "gate failed: mrr" in err, err


def test_compare_json_into_a_closed_pipe_keeps_its_exit_code() -> None:
    """`compare A B -f json | grep -q ...`: exit 0 for runs with no regression (was 1)."""
    args = ["compare", str(RUNS / "baseline"), str(RUNS / "reranked"), "-f", "json"]
    code, err = _closed_stdout([*args, "--fail-on-regression"])
    assert code == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err


@pytest.mark.parametrize("columns", ["40"])
def test_evaluate_table_is_never_cut_off_a_terminal(columns: str) -> None:
    """COLUMNS=40 off a terminal: the means were cut to "0.…" and the ok/undef/skip/fail
    columns vanished, without a word."""
    done = _run(["evaluate", str(TURNS), "-m", LEXICAL, "-q"], COLUMNS=columns)
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout, done.stdout
    assert "\x1b[" not in done.stdout  # not a terminal: no colour codes
    for name in LEXICAL.split(","):
        row = next(line for line in done.stdout.splitlines() if f" {name} " in line)
        cells = [c.strip() for c in row.strip("│ ").split("│")]
        assert len(cells) == 7, row  # metric, mean, CI, ok, undef, skip, fail
        assert all(cells), row


def _run_in(
    cwd: Path, args: list[str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "ragmeter", *args]
    return subprocess.run(
        cmd, capture_output=True, text=True, env=_env(), timeout=120, cwd=cwd, input=stdin
    )


def test_compare_json_dash_prints_only_json_on_stdout(tmp_path) -> None:
    """`compare A B --json - | python -m json.tool`: a file named "-" was written and the
    table piped, which json.tool refused."""
    done = _run_in(
        tmp_path, ["compare", str(RUNS / "baseline"), str(RUNS / "reranked"), "--json", "-"]
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n_paired"] == 36
    assert not (tmp_path / "-").exists()
    md = _run_in(
        tmp_path, ["compare", str(RUNS / "baseline"), str(RUNS / "reranked"), "--markdown", "-"]
    )
    assert md.returncode == 0 and md.stdout.startswith("### ragmeter compare"), md.stdout


@pytest.mark.parametrize(
    "extra", [["--json", "-", "--markdown", "-"], ["--json", "-", "-f", "markdown"]]
)
def test_two_outputs_on_stdout_are_refused(tmp_path, extra: list[str]) -> None:
    done = _run_in(tmp_path, ["compare", str(RUNS / "baseline"), str(RUNS / "reranked"), *extra])
    assert done.returncode == 2, done.stdout
    assert "each print on stdout" in done.stderr and not done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["report", str(RUNS / "baseline"), "-o", "-"],
        ["evaluate", str(TURNS), "-m", "mrr", "-o", "-"],
    ],
)
def test_dash_as_an_output_file_is_refused(tmp_path, args: list[str]) -> None:
    """`report -o -` wrote report.html as a file named "-", `evaluate -o -` a directory."""
    done = _run_in(tmp_path, args)
    assert done.returncode == 2, done.stderr
    assert "-o -" in done.stderr and not (tmp_path / "-").exists()


def test_evaluate_from_a_pipe_says_so(tmp_path) -> None:
    """`cat rows.jsonl | ragmeter evaluate /dev/stdin`: "row 1: invalid JSON", good data
    blamed (the pipe was read twice); `evaluate -`: "unsupported file type"."""
    rows = TURNS.read_text()
    piped = _run_in(tmp_path, ["evaluate", "/dev/stdin", "--format", "jsonl", "-m", "mrr"], rows)
    dash = _run_in(tmp_path, ["evaluate", "-", "--format", "jsonl", "-m", "mrr"], rows)
    for done in (piped, dash):
        assert done.returncode == 2, done.stderr
        assert "save it to a file first" in done.stderr, done.stderr
        assert "invalid JSON" not in done.stderr


def test_evaluate_a_fifo_says_so(tmp_path) -> None:
    fifo = tmp_path / "rows.jsonl"
    os.mkfifo(fifo)  # nobody writes: the check must not open it (it would block)
    done = _run_in(tmp_path, ["evaluate", str(fifo), "-m", "mrr"])
    assert done.returncode == 2, done.stderr
    assert "no regular file" in done.stderr and "save it to a file first" in done.stderr


def test_stdin_redirected_from_a_file_still_works(tmp_path) -> None:
    """Guard: `< rows.jsonl` makes /dev/stdin a regular file, read as any other."""
    cmd = [sys.executable, "-m", "ragmeter", "evaluate", "/dev/stdin", "--format", "jsonl"]
    with TURNS.open() as rows:
        done = subprocess.run(
            [*cmd, "-m", "mrr", "-q"], stdin=rows, capture_output=True, text=True, env=_env()
        )
    assert done.returncode == 0, done.stderr
    assert "25 samples" in done.stdout


ASCII_LOCALE = {"PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": ""}


@pytest.mark.parametrize("args", [["evaluate", str(TURNS), "-m", LEXICAL, "-q"], ["metrics"]])
def test_an_ascii_locale_prints_escapes_not_an_internal_error(args: list[str]) -> None:
    """LC_ALL=C with PYTHONUTF8=0 (or a Windows pipe in cp1252): ragmeter's own "·" and
    "∩" raised UnicodeEncodeError as the results were printed: "internal error", exit 1."""
    cmd = [sys.executable, "-m", "ragmeter", *args]
    env = {k: v for k, v in _env(**ASCII_LOCALE).items() if k != "PYTHONIOENCODING"}
    done = subprocess.run(cmd, capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"internal error" not in done.stderr
    done.stdout.decode("ascii")  # every character escaped, none raised
    # a character ASCII lacks ("·", "∩"), shown as its escape
    assert re.search(rb"\\(x[0-9a-f]{2}|u[0-9a-f]{4})", done.stdout), done.stdout


def _on_a_terminal(args: list[str], columns: str) -> str:
    """The command's stdout as a terminal of ``columns`` columns shows it (a pty)."""
    master, slave = pty.openpty()
    cmd = [sys.executable, "-m", "ragmeter", *args]
    env = _env(COLUMNS=columns, TERM="xterm")  # a dumb one: rich reads no COLUMNS
    proc = subprocess.Popen(cmd, stdout=slave, stderr=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the command closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert proc.wait(timeout=120) == 0
    return b"".join(chunks).decode()


@pytest.mark.parametrize("columns", ["40", "60"])
def test_a_summary_that_would_be_cut_is_shown_a_block_a_metric(columns: str) -> None:
    """At 40 columns rich cut the means to "0.…" and dropped the ok/undef/skip/fail
    columns, without a word; then a note said so, up to about 70 columns. Now the summary
    that would be cut is one block a metric, every value whole."""
    shown = re.sub(
        r"\x1b\[[0-9;]*m",
        "",
        _on_a_terminal(["evaluate", str(TURNS), "-m", LEXICAL, "-q"], columns),
    )
    assert "…" not in shown and "note: the table above is cut" not in shown, shown
    for name in LEXICAL.split(","):
        assert f"metric {name}" in " ".join(shown.split()), shown
    assert shown.count("95% CI") == len(LEXICAL.split(",")), shown


def test_another_table_cut_on_a_narrow_terminal_says_so() -> None:
    """The note stays for the tables that are not shown as blocks (the dry run's estimate)."""
    args = ["evaluate", str(TURNS), "--dry-run", "--judge", "openai:gpt-4o-mini", "-q"]
    shown = _on_a_terminal(args, "40")
    assert "note: the table above is cut" in shown, shown


def test_a_table_that_fits_the_terminal_has_no_note() -> None:
    """Guard: the note is for cut tables only."""
    shown = _on_a_terminal(["evaluate", str(TURNS), "-m", LEXICAL, "-q"], "120")
    assert "token_f1" in shown and "note: the table above" not in shown
