"""The Markdown PR comment shows user text (run names, slice labels, ids) as it is: no code
span showing '&lt;', no link or image made from a label, no cell or row broken."""

from __future__ import annotations

import html
import re

import pytest
from tests.conftest import make_row

from ragmeter.compare import compare
from ragmeter.compare_render import md_code
from ragmeter.runs import as_run
from ragmeter.testing import Evaluator

LABELS = ["`<b>` code", "[x](https://e.example/a) ![i](https://e.example/i.png)", "a\\|b \\[c"]


def _render(md: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    return markdown_it.MarkdownIt("commonmark").enable("table").render(md)


def _text(fragment: str) -> str:
    """What a browser shows: the zero-width spaces that keep GitHub from linking a URL (see
    tests/test_md_github.py) take no room."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).replace("\u200b", "")


def test_slice_labels_render_as_their_own_text():
    rows = [make_row(i, source=LABELS[i % len(LABELS)]) for i in range(9)]
    result = Evaluator(judge="scripted").evaluate(rows, ["token_f1"], n_resamples=20)
    md = compare(result, result, by="source").to_markdown()
    page = _render(md.split("</summary>", 1)[1])
    assert "<a " not in page and "<img" not in page and "<code>" not in page
    cells = [_text(c) for c in re.findall(r"<td>(.*?)</td>", page, re.S)]
    for label in LABELS:
        assert label in cells
    assert len(cells) == 9 * len(LABELS)  # one row per label, 9 cells each: no cell split


@pytest.mark.parametrize("name", ["exp<1> & co", "a`b", "`x``", "run\nB"])
def test_a_run_name_is_one_code_span_shown_exactly(name):
    page = _render(f"### {md_code(name)}\n")
    codes = re.findall(r"<code>(.*?)</code>", page, re.S)
    assert [html.unescape(c) for c in codes] == [name.replace("\n", " ")]


def test_the_heading_shows_run_names_exactly():
    a = Evaluator(judge="scripted").evaluate([make_row(1)], ["token_f1"], n_resamples=20)
    b = Evaluator(judge="scripted").evaluate([make_row(1)], ["token_f1"], n_resamples=20)
    names = ["exp<1> & `co`", "plain"]
    a.manifest, b.manifest = {}, {}
    head = _render(compare(as_run(a, name=names[0]), as_run(b, name=names[1])).to_markdown())
    codes = [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", head.split("\n")[0])]
    assert codes == names[::-1]
