"""The HTML report shows compare's non-inferiority margins (``report --compare B --max-drop``,
``report(..., max_drop=...)``, or a Comparison made with ``max_drop=``).

Why: the page a reviewer opens from CI said nothing of the margin gate's verdict; a B that
failed ``compare --max-drop`` looked, on its report, like one that passed.
"""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest
from tests.conftest import EXAMPLES
from tests.needs import require_module
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.compare import compare
from ragmeter.compare_margins import Margin
from ragmeter.compare_render import fmt_ci
from ragmeter.errors import ConfigError

runner = CliRunner()
RUNS = EXAMPLES / "compare" / "runs"
BASE, RERANKED = str(RUNS / "baseline"), str(RUNS / "reranked")
# reranked is better than baseline on every metric: as A, the baseline B drops; mrr's CI of
# B - A lies within -0.3 (met), token_f1's reaches below -0.01 (FAILED)
SPEC = ["--max-drop", "mrr=0.3", "--max-drop", "token_f1=0.01"]
# the margins block, as the template writes it (nothing else on the page changes)
BLOCK = re.compile(
    r'<h3 id="margins-title">.*?</table>\n<p class="meta">A margin is met.*?</p>\n', re.S
)


@pytest.fixture(autouse=True)
def _report_deps() -> None:
    require_module("jinja2")
    require_module("matplotlib")


def _rows(page: str) -> dict[str, list[str]]:
    """The margins table's rows by metric: each cell's text, and the verdict cell's class."""
    table = re.search(r'<table id="margins">(.*?)</table>', page, re.S)
    assert table, "no margins table on the page"
    rows = {}
    for tr in re.findall(r'<tr class="margin [^"]+">(.*?)</tr>', table.group(1), re.S):
        cells = re.findall(r'<td class="([^"]*)">(.*?)</td>|<td>(.*?)</td>', tr)
        texts = [html_lib.unescape(c[1] or c[2]) for c in cells]
        rows[texts[0]] = [*texts, cells[3][0]]
    return rows


def test_a_met_and_a_failed_margin_are_on_the_page_and_the_exit_stays_0(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", RERANKED, "--compare", BASE, *SPEC, "-o", str(out)])
    assert res.exit_code == 0, res.output  # the page is written; compare --max-drop gates
    page = out.read_text(encoding="utf-8")
    rows = _rows(page)
    assert list(rows) == ["mrr", "token_f1"]
    cmp = compare(RERANKED, BASE, max_drop={"mrr": 0.3, "token_f1": 0.01})
    for g in cmp.margins:
        _, allowed, ci, verdict, reason, style = rows[g.metric]
        assert allowed == f"drop {g.max_drop:g}"
        assert ci == fmt_ci(g.ci_low, g.ci_high) and ci != "—"
        assert reason == str(g)  # the line compare --max-drop prints, word for word
        assert (verdict, style) == (
            ("met", "text better") if g.passed else ("FAILED", "text worse")
        )
    assert [rows[m][3] for m in rows] == ["met", "FAILED"]


def test_the_python_report_takes_max_drop_too(tmp_path: Path) -> None:
    from ragmeter.reporting import report

    out = report(BASE, RERANKED, out=tmp_path / "r.html", max_drop="mrr=0.05,ndcg@10=0.02")
    rows = _rows(out.read_text(encoding="utf-8"))
    assert [(m, r[3]) for m, r in rows.items()] == [("mrr", "met"), ("ndcg@10", "met")]


def test_a_comparison_made_with_max_drop_brings_its_margins() -> None:
    from ragmeter.reporting import render_report

    cmp = compare(RERANKED, BASE, max_drop={"token_f1": 0.01})
    assert [r[3] for r in _rows(render_report(None, cmp)).values()] == ["FAILED"]


def test_without_margins_the_page_is_unchanged() -> None:
    from ragmeter.reporting import render_report

    plain = render_report(RERANKED, BASE)
    with_margins = render_report(RERANKED, BASE, max_drop={"mrr": 0.3, "token_f1": 0.01})
    assert "margins" not in plain and "--max-drop" not in plain
    assert BLOCK.search(with_margins)
    assert BLOCK.sub("", with_margins) == plain  # the block is all that is added


def test_every_margin_value_is_escaped() -> None:
    from ragmeter.reporting import render_report

    cmp = compare(RERANKED, BASE)
    evil = '<img src=x onerror="alert(1)">&'
    cmp.margins = [Margin(evil, 0.1, "lower", None, None, False, None, None, 0.95, f"<b>{evil}")]
    page = render_report(None, cmp)
    assert "<img" not in page and "<b>" not in page
    ((metric, allowed, ci, verdict, reason, style),) = _rows(page).values()
    assert metric == evil and allowed == "rise (lower is better) 0.1"
    assert ci == f"— (<b>{evil})" and (verdict, style) == ("FAILED", "text worse")
    assert reason == str(cmp.margins[0])


def test_max_drop_without_compare_exits_2_in_one_line_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    missing = str(tmp_path / "no-such-run")  # not read: the option is refused first
    res = runner.invoke(app, ["report", missing, "--max-drop", "mrr=0.1", "-o", str(out)])
    assert res.exit_code == 2
    (line,) = [x for x in res.output.splitlines() if x.strip()]
    assert line == "error: --max-drop needs --compare RUN_B"
    assert not out.exists()


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        (" , ", "names no margin"),
        ("mrr=abc", "mrr=abc: DELTA is not a number"),
        ("mrr=-0.1", "DELTA must be >= 0"),
        ("mrr", "'mrr' is not METRIC=DELTA"),
    ],
)
def test_a_bad_spec_exits_2_in_one_line_before_any_run_is_read(
    tmp_path: Path, spec: str, said: str
) -> None:
    missing = str(tmp_path / "no-such-run")
    out = tmp_path / "r.html"
    res = runner.invoke(
        app, ["report", missing, "--compare", missing, "--max-drop", spec, "-o", str(out)]
    )
    assert res.exit_code == 2
    (line,) = [x for x in res.output.splitlines() if x.strip()]
    assert line.startswith("error: --max-drop: ") and said in line
    assert not out.exists()


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("faithfulness=0.02", "metric(s) not compared in both runs: faithfulness"),
        ("mrr=1", "mrr=1 allows any change over its range [0, 1]: it can never fail"),
    ],
)
def test_a_margin_compare_refuses_exits_2_and_writes_no_page(
    tmp_path: Path, spec: str, said: str
) -> None:
    out = tmp_path / "r.html"
    res = runner.invoke(
        app, ["report", BASE, "--compare", RERANKED, "--max-drop", spec, "-o", str(out)]
    )
    assert res.exit_code == 2
    (line,) = [x for x in res.output.splitlines() if x.strip()]
    assert line.startswith("error: max_drop (--max-drop): ") and said in line
    assert not out.exists()


def test_the_python_report_refuses_a_margin_it_cannot_show(tmp_path: Path) -> None:
    from ragmeter.reporting import report

    with pytest.raises(ConfigError, match="max_drop needs a second run"):
        report(BASE, out=tmp_path / "r.html", max_drop={"mrr": 0.1})
    cmp = compare(BASE, RERANKED)
    with pytest.raises(ConfigError, match="already made; pass max_drop to compare"):
        report(BASE, cmp, out=tmp_path / "r.html", max_drop={"mrr": 0.1})
    assert not (tmp_path / "r.html").exists()


def test_help_says_the_exit_code_stays_0() -> None:
    res = runner.invoke(app, ["report", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    assert "--max-drop" in text and "The exit code stays 0" in text
