"""The CLI prints the user's text as written: slice labels, ids, paths, run and model names,
messages quoting input. rich read a str as markup and emoji codes: "[/x]" in a label made
``compare --by`` end in a MarkupError traceback, "[b]" vanished from a label and ":smile:"
became an emoji. ragmeter's own styling ("error:" in red) is kept."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

import fake_server
from ragmeter.cli import app
from test_meta_eval import ROWS as WIKI_ROWS

# Each one was swallowed, restyled or cut before; "[/x]" raised MarkupError.
LABELS = ["[/x]", "[bold]t[/bold]", "[b]", "a:smile:b", "tail\\", "[red]q\\"]
WIDE = {"COLUMNS": "250"}


def _rows(changed: bool = False) -> list[dict[str, Any]]:
    rows = []
    for i in range(2 * len(LABELS)):
        label = LABELS[i % len(LABELS)]
        answer = "x is nothing known" if changed and i % 2 else "x is y"
        rows.append(
            {
                "question_id": f"q{i}",
                "question": "What is x?",
                "contexts": ["x is y."],
                "answer": answer,
                "metadata": {"topic": label},
            }
        )
    return rows


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def invoke(*args: Any, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], env={**WIDE, **(env or {})})
    assert "Traceback" not in result.output and "MarkupError" not in result.output
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """Two runs (A, B) in directories whose names are markup, and evaluate's output of A."""
    root = tmp_path_factory.mktemp("lit")
    data = _write(root / "[red]in" / "[b]d:smile:.jsonl", _rows())
    changed = _write(root / "b.jsonl", _rows(changed=True))
    a, b = root / "[red]A", root / "[b]B:smile:"
    code, out = invoke("evaluate", data, "--judge", "none", "-m", "k_precision", "-o", a)
    assert code == 0, out
    code, said = invoke("evaluate", changed, "--judge", "none", "-m", "k_precision", "-o", b)
    assert code == 0, said
    return a, b, out


def test_evaluate_shows_the_data_path_and_the_out_dir_as_written(runs):
    a, _, out = runs
    flat = " ".join(out.split())  # the title wraps at the table's width
    assert "[red]in/[b]d:smile:.jsonl: 12 samples" in flat
    assert f"wrote {a}/scores.jsonl" in flat


def test_evaluate_by_shows_every_label_whole(runs, tmp_path):
    data = _write(tmp_path / "d.jsonl", _rows())
    code, out = invoke("evaluate", data, "--judge", "none", "-m", "k_precision", "--by", "topic")
    assert code == 0, out
    labels = [line.split()[1] for line in out.splitlines() if line.strip().startswith("k_prec")]
    assert sorted(labels) == sorted(LABELS)


def test_evaluate_by_a_column_named_as_markup(tmp_path):
    rows = [{**r, "metadata": {"[b]c": r["metadata"]["topic"]}} for r in _rows()]
    data = _write(tmp_path / "d.jsonl", rows)
    code, out = invoke("evaluate", data, "--judge", "none", "-m", "k_precision", "--by", "[b]c")
    assert code == 0, out
    assert "slices by [b]c (sorted" in out and "[/x]" in out


def test_compare_by_a_markup_label_prints_the_slices(runs):
    """The bug: MarkupError "closing tag '[/x]' ... doesn't match any open tag", a traceback."""
    a, b, _ = runs
    code, out = invoke("compare", a, b, "--by", "topic")
    assert code == 0, out
    assert "B = [b]B:smile: vs A = [red]A" in out
    slices = out.split("slices by topic", 1)[1]
    labels = [line.split()[1] for line in slices.splitlines() if line.startswith(" k_prec")]
    assert sorted(labels) == sorted(LABELS)


def test_compare_json_keeps_the_labels_as_data(runs, tmp_path):
    a, b, _ = runs
    code, out = invoke("compare", a, b, "--by", "topic", "-f", "json", "--json", tmp_path / "c")
    assert code == 0, out
    for said in (json.loads(out), json.loads((tmp_path / "c").read_text())):
        assert sorted({s["value"] for s in said["slices"]}) == sorted(LABELS)


MD_LABELS = ["*not em*", "_x_", "a|b", "`c`", "# h", "<details>", "~~s~~", "k_precision"]


def _render(md: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    return markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)


def _text(fragment: str) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_compare_markdown_cells_show_labels_as_written(tmp_path):
    """'*x*' and '_x_' lost their marks to emphasis, '~~s~~' was struck through."""
    rows = [{**r, "metadata": {"topic": MD_LABELS[i % 8]}} for i, r in enumerate(_rows() * 2)]
    rows = [{**r, "question_id": f"q{i}"} for i, r in enumerate(rows)]
    a, b = tmp_path / "a", tmp_path / "b"
    for path, changed in ((a, False), (b, True)):
        data = [{**r, "answer": "z"} if changed and i % 3 else r for i, r in enumerate(rows)]
        src = _write(tmp_path / f"{path.name}.jsonl", data)
        code, out = invoke("evaluate", src, "--judge", "none", "-m", "k_precision", "-o", path)
        assert code == 0, out
    code, md = invoke("compare", a, b, "--by", "topic", "-f", "markdown")
    assert code == 0, md
    page = _render(md.split("</summary>", 1)[1])
    assert not re.search(r"<(em|del|code|h\d)>", page)
    cells = [_text(c) for c in re.findall(r"<td>(.*?)</td>", page, re.S)]
    assert len(cells) == 9 * len(MD_LABELS)  # one row per label, 9 cells each: none split
    assert sorted(cells[1::9]) == sorted(MD_LABELS)
    assert "k_precision" in md  # an "_" inside a word is left as it is


@pytest.mark.parametrize("line", ["# h", "- x", "+ x", "1. x", "2) x", "===", "---", "> q"])
def test_a_warning_line_starting_like_a_block_stays_text(line):
    from ragmeter.compare_render import md_line

    page = _render(f"> [!WARNING]\n> {md_line(line)}  \n")
    assert not re.search(r"<(h\d|ul|ol|li|hr)\b", page) and page.count("<blockquote>") == 1
    assert line in _text(page)


def test_report_prints_its_path_and_escapes_the_title(runs, tmp_path):
    a, b, _ = runs
    out_file = tmp_path / "[red]r" / "[b]x.html"
    out_file.parent.mkdir()
    title = "[/t] <details>"
    code, out = invoke(
        "report", a, "--compare", b, "-o", out_file, "--by", "topic", "--title", title
    )
    assert code == 0, out
    assert f"wrote {out_file}" in out
    page = out_file.read_text()  # jinja2 autoescape: the title and labels are text
    assert "<title>[/t] &lt;details&gt;</title>" in page
    assert "<h1>[/t] &lt;details&gt;</h1>" in page


def test_a_problem_quoting_input_is_shown_as_written(tmp_path):
    data = _write(tmp_path / "[red]d" / "x.jsonl", _rows())
    code, out = invoke("evaluate", data, "--judge", "none", "-m", "k_precision,a:smile:b")
    assert code == 2
    assert "unknown metric 'a:smile:b'" in out


def test_failure_reasons_and_ids_are_shown_as_written(capsys):
    """A judge server's error body ("[/x]", ":smile:") and an id ("[b]q") in the failure list."""
    from ragmeter import evaluate
    from ragmeter.cli.evaluate import print_result
    from ragmeter.metrics.base import Score

    rows = [{**r, "question_id": f"[b]q{i}:smile:"} for i, r in enumerate(_rows())]
    result = evaluate(rows, ["k_precision"], n_resamples=20)
    reason = 'HTTP 400: {"error": "[/x] bad [b]input :smile:"}'
    result.scores["k_precision"][0] = Score(None, "failed", reason)
    print_result(result, title="[red]t")
    out = capsys.readouterr().out
    assert "[red]t: 12 samples" in out
    assert f"[b]q0:smile: · k_precision · failed: {reason}" in out


def test_an_internal_error_quoting_input_is_one_line(monkeypatch, capsys):
    import ragmeter.cli as cli

    def boom() -> None:
        raise RuntimeError("closing tag '[/x]' :smile:")

    monkeypatch.setattr(cli, "app", boom)
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: closing tag '[/x]' :smile:" in err


def test_meta_eval_prints_the_judge_name_and_out_path_as_written(tmp_path):
    data = _write(tmp_path / "wikieval.jsonl", WIKI_ROWS)
    out_file = tmp_path / "[b]o:smile:.json"
    with fake_server.FakeOpenAIServer() as server:
        code, out = invoke(
            *("meta-eval", "wikieval", "--data", data, "--judge", "openai:[/m]:smile:"),
            *("--base-url", server.url, "--embedder", "none", "--cache", "off"),
            *("--baselines", "k_precision", "--dimensions", "faithfulness", "-o", out_file),
            env={"OPENAI_API_KEY": "sk-test-not-a-real-key"},
        )
    assert code == 0, out
    assert "judge openai:[/m]:smile:" in out and f"wrote {out_file}" in out


def test_metrics_show_a_custom_metrics_text_as_written():
    import ragmeter
    from ragmeter import Metric, Score
    from ragmeter.metrics import registry

    metric = Metric(
        name="lit_metric",
        description="[/x] share of [b]answers :smile:",
        requires=(("answer",),),
        compute=lambda sample: Score.ok(0.5),
        formula="[i]n[/i] / N",
    )
    ragmeter.register_metric(metric)
    try:
        code, out = invoke("metrics")
    finally:
        registry._FIXED.pop("lit_metric", None)
        registry._GIVEN.pop("lit_metric", None)
    assert code == 0, out
    assert "    [/x] share of [b]answers :smile:" in out and "    [i]n[/i] / N" in out


def test_models_list_shows_the_cache_path_as_written(tmp_path):
    home = tmp_path / "[red]h:smile:"
    code, out = invoke("models", "list", env={"RAGMETER_HOME": str(home)})
    assert code == 0, out
    assert f"{home}/models/" in out


def test_a_long_slice_table_of_markup_labels_is_laid_out_fast_and_literal(monkeypatch):
    """compare's Text cells keep the fast layout of thousands of slices (_long_tables)."""
    import io

    from rich.table import Table

    from ragmeter.cli import compare as cli_compare
    from ragmeter.cli._long_tables import plain_lines
    from ragmeter.compare_render import to_rich

    class Slice:
        def __init__(self, i: int) -> None:
            self.metric, self.value, self.n = "k_precision", f"{LABELS[i % 6]}{i}", 3
            self.mean_a, self.mean_b, self.delta = 0.5, 0.6, 0.1
            self.ci_low, self.ci_high, self.p_value = -0.1, 0.3, 0.5
            self.note, self.small = "", True

    class Cmp:
        def __init__(self) -> None:
            self.confidence, self.metrics, self.by, self.ids = 0.95, [], "[b]topic", ["q"]
            self.a = self.b = type("Run", (), {"name": "[red]r"})
            self.slices = [Slice(i) for i in range(300)]

    table = to_rich(Cmp())[-1]
    lines = plain_lines(Console(emoji=False), table, 10**9)
    assert lines is not None
    assert "slices by [b]topic" in lines.plain and f" {LABELS[0]}0 " in lines.plain
    got = io.StringIO()
    monkeypatch.setattr(cli_compare, "console", Console(file=got, emoji=False))
    monkeypatch.setattr(Table, "__rich_console__", lambda *a, **k: sys.exit("laid out"))
    cli_compare.print_table(table)
    assert all(f" {label}{i} " in got.getvalue() for i, label in enumerate(LABELS))


@pytest.mark.parametrize("name", ["k$x$", "k$\\alpha$", "a$b"])
def test_a_report_chart_shows_a_metric_name_with_dollars_as_written(name):
    """A hand-edited run's metric name was matplotlib mathtext: "$\\alpha$" raised."""
    from ragmeter.reporting import charts

    svg = charts.histogram([0.2, 0.5, 0.9], name, "p")
    assert f">{name}<" in svg
    svg = charts.scatter([0.2, 0.5], [0.3, 0.4], name, "s")
    assert f">A: {name}<" in svg
