"""GitHub reads more into a pull-request comment than Markdown: @user pings, #12 and GH-12
link issues, a hex word links a commit, :tada: is an emoji, https://x, www.x and a@b.co
become links, $x$ is math. User text in `compare --markdown` (run names in warnings, metric
names, slice labels) must show as written and trigger none of it."""

from __future__ import annotations

import html
import re

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.md_escape import md_code, md_inline, md_line

# What GitHub does to the text of a rendered comment (outside code and links), after
# Markdown: html-pipeline's mention and reference filters, its emoji filter, cmark-gfm's
# autolinks, and math between dollars (within one text run: a tag between ends it).
GITHUB = {
    "mention": re.compile(r"(?<![A-Za-z0-9_])@[A-Za-z0-9]"),
    "issue": re.compile(r"#[0-9]|\bGH-[0-9]", re.IGNORECASE),
    "commit": re.compile(r"\b[0-9a-f]{7,40}\b", re.IGNORECASE),
    "emoji": re.compile(r":[a-z0-9_+-]+:", re.IGNORECASE),
    "link": re.compile(r"https?://|\bwww\.|[\w.+-]+@[A-Za-z0-9][\w-]*\.[A-Za-z0-9]"),
    "math": re.compile(r"\$[^<]*\$"),
}
TEXTS = [
    "@alice and @org/team, cc @bob-2",
    "fixes #12, GH-7 and owner/repo#34",
    ":tada: :+1: shipped",
    "see https://e.example/x and www.e.example, or mail a@b.co",
    "commit a5c3785ed8d6a35868bc169f07e40e889087fd2e and deadbeef1",
    "costs $5 to $7",
    "#12 :rocket: @carol",
]


def _render(md: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    return markdown_it.MarkdownIt("commonmark").enable("table").render(md)


def _outside_code(page: str) -> str:
    """The rendered HTML without code (GitHub reads nothing inside it), tags kept."""
    return re.sub(r"<code>.*?</code>", "", page, flags=re.S)


def _visible(fragment: str) -> str:
    """What a browser shows of ``fragment``: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def _github_reads(page: str) -> list[str]:
    """The GitHub features the rendered ``page`` would trigger outside code."""
    rest = _outside_code(page)
    found = [k for k, p in GITHUB.items() if k != "math" and p.search(_visible(rest))]
    return found + (["math"] if GITHUB["math"].search(html.unescape(rest)) else [])


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("escape", [md_inline, md_line])
def test_user_text_triggers_nothing_on_github_and_shows_as_written(escape, text):
    page = _render(escape(text) + "\n")
    assert _github_reads(page) == []
    assert "<a " not in page and "<h" not in page and "<li" not in page
    assert _visible(page).strip().replace("\u200b", "") == text  # a browser shows the text


def test_the_github_check_sees_what_plain_text_triggers():
    """The check itself: without escaping, each text triggers what it holds."""
    seen = [_github_reads(_render(html.escape(t) + "\n")) for t in TEXTS]
    assert seen == [
        ["mention"],
        ["issue"],
        ["emoji"],
        ["link"],
        ["commit"],
        ["math"],
        ["mention", "issue", "emoji"],
    ]


@pytest.mark.parametrize("name", ["k_precision", "ndcg@10", "answer_relevance", "recall@k"])
def test_metric_names_stay_readable(name):
    assert md_inline(name) == name


@pytest.mark.parametrize("number", ["1234567", "n=10000000", "2026112712"])
def test_a_number_keeps_its_digits_together(number):
    """A count or a numeric id is no commit to GitHub: copied from the comment, it must be
    the number, not digits with an invisible space inside."""
    assert md_inline(number) == number


def test_a_code_span_stays_exact():
    """Inside code GitHub pings, links and emojifies nothing, and entities are literal."""
    text = "@alice #12 :tada: https://e.example"
    assert md_code(text) == f"`{text}`"


def test_compare_markdown_pings_links_and_emojifies_nothing(tmp_path):
    """End to end: a run name (shown in a warning as well as the heading) and a slice
    label full of GitHub syntax, through `ragmeter compare --markdown`."""
    name = "@alice #12 :tada: www.e.example"
    label = "@bob fixes #12 :tada: https://e.example/x a5c3785ed8d6"
    rows = [make_row(i, source=label if i % 2 else "plain") for i in range(1, 9)]
    ragmeter.evaluate(rows, "token_f1", n_resamples=20).write(tmp_path / "base")
    b = ragmeter.evaluate(rows, ["token_f1", "exact_match"], n_resamples=20)
    b.write(tmp_path / name)  # exact_match only in B: a warning names the run
    out = tmp_path / "comment.md"
    args = ["compare", str(tmp_path / "base"), str(tmp_path / name), "--by", "source"]
    res = CliRunner().invoke(app, [*args, "--markdown", str(out)])
    assert res.exit_code == 0, res.output
    md = out.read_text()
    page = _render(md)
    assert _github_reads(page) == []
    rest = re.sub(r"(?<![\\`])(`+)[^`].*?\1(?!`)", "", _outside_code(md))  # no code spans
    for raw in ["@alice", "@bob", "#12", ":tada:", "https://", "www.e", "a5c3785ed8d6"]:
        assert raw not in rest
    shown = _visible(_outside_code(page)).replace("\u200b", "")
    assert f"only in {name}, not compared: exact_match" in shown
    assert label in shown
    assert f"<code>{html.escape(name, quote=False)}</code>" in page  # the heading: exact
