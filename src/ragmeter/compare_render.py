"""A Comparison as text: a rich table for the terminal, Markdown for a pull-request comment.

(JSON is ``Comparison.to_json()``.) Numbers are shown to 3 decimals, p-values to 3 significant
digits; a metric whose Holm-adjusted p is below alpha is marked better or worse by its
direction, or higher / lower when neither direction is better (refusal_rate).
"""

from __future__ import annotations

from typing import Any

from ragmeter.md_escape import html_text, md_code, md_inline, md_line, visible
from ragmeter.redact import public_text, redact_tree

# A Comparison / MetricDelta from ragmeter.compare (duck-typed: this module sits below it).
Comparison = Any
MetricDelta = Any


def fmt(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "—"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def fmt_p(p: float | None) -> str:
    if p is None:
        return "—"
    return "<0.001" if p < 0.001 else f"{p:.3g}"


def ci_header(confidence: float) -> str:
    """'95% CI', '97.5% CI': the level as the runs were made with it (``round`` showed 0.975
    as "98% CI" and 0.999 as "100% CI", a level no run had)."""
    return f"{confidence * 100:g}% CI"


def fmt_ci(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "—"
    return f"[{low:+.3f}, {high:+.3f}]"


# A URL's user:password@ and its query (where keys ride: ?api-key=...), in any text.
def public_tree(value: Any) -> Any:
    """Settings as JSON data with every secret-named value masked and every string made
    ``public_text``."""

    def strings(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: strings(x) for k, x in v.items()}
        if isinstance(v, list):
            return [strings(x) for x in v]
        return public_text(v) if isinstance(v, str) else v

    return strings(redact_tree(value))


NA = "n/a"  # a CI or p that cannot be computed (too few pairs); the row's note says why


def _stat(text: str, note: str | None) -> str:
    return NA if note else text


CHANGED = ("higher", "lower")  # verdicts of a significant change with no better direction


def verdict(m: MetricDelta, alpha: float) -> str:
    """'better' / 'worse' when significant after Holm at alpha (by the metric's direction),
    'higher' / 'lower' when significant but neither direction is better, else 'no clear
    change'; 'n/a' when too few pairs for a test, 'no pairs' when none."""
    if m.delta is None:
        return "no pairs"
    if m.note:
        return NA
    if m.better(alpha):
        return "better"
    if m.worse(alpha):
        return "worse"
    if m.significant(alpha) and m.delta != 0:
        return "higher" if m.delta > 0 else "lower"
    return "no clear change"


def undirected(cmp: Comparison) -> list[str]:
    """The compared metrics where neither direction is better (their changes are not judged)."""
    return [m.metric for m in cmp.metrics if m.direction == "none"]


def na_legend(cmp: Comparison) -> str:
    """What n/a means, when some metric or slice has too few pairs for a CI, else ''."""
    if any(x.note for x in [*cmp.metrics, *cmp.slices]):
        return f"{NA}: too few pairs for a CI or a test."
    return ""


def exclusion_text(m: MetricDelta) -> str:
    """How many pairs a metric left out and why: '10 (failed in B 10)', or '0'."""
    why = [
        f"{label} {k}"
        for label, k in (
            ("failed in A", m.failed_a),
            ("failed in B", m.failed_b),
            ("undefined or skipped", m.not_applicable),
        )
        if k
    ]
    lost = f"; {m.lost_b} scored in A only" if m.lost_beyond_failures else ""
    return f"{m.n_excluded} ({', '.join(why)}{lost})" if why else str(m.n_excluded)


def excluded_line(cmp: Comparison, name: Any = str) -> str:
    """One sentence naming every metric that left pairs out and why, else ''. Why: ``n``
    alone hid that B had failed where A scored. ``name`` shows a metric name (md_inline in
    Markdown: a run's metric names are its files' text)."""
    parts = [f"{name(m.metric)} {exclusion_text(m)}" for m in cmp.metrics if m.n_excluded]
    return f"Pairs left out: {'; '.join(parts)}." if parts else ""


def lost_text(m: MetricDelta) -> str:
    """'B has no score for 4 of the 10 samples A scored (1 failed, 3 undefined or skipped)':
    the scores B lost, as the warnings and the regression gate say it."""
    parts = [
        f"{k} {label}"
        for label, k in (
            ("failed", m.lost_b_failed),
            ("undefined or skipped", m.lost_b - m.lost_b_failed),
        )
        if k
    ]
    return (
        f"B has no score for {m.lost_b} of the {m.n + m.lost_b} samples A scored "
        f"({', '.join(parts)})"
    )


def failure_warnings(m: MetricDelta) -> list[str]:
    """Warnings when B failed more of a metric's scores than A (worst: no pair left, the
    metric lost), when B has no score for samples A scored (beyond those failures), or when
    no pair is left for any reason; else none."""
    total = m.n + m.n_excluded
    left = "no pair left to compare" if m.n == 0 else f"compared on the {m.n} pair(s) left"
    out = []
    if m.lost_to_failures:
        out.append(
            f"{m.metric}: B failed {m.failed_b} of {total} scores, A failed {m.failed_a}: {left}"
        )
    if m.lost_beyond_failures:
        out.append(f"{m.metric}: {lost_text(m)}: {left}")
    if not out and m.n == 0 and total:
        out.append(f"{m.metric}: no pair scored in both runs; left out {exclusion_text(m)}")
    return out


def direction_legend(cmp: Comparison, name: Any = str) -> str:
    """One sentence for the legend when some metric has no better direction, else ''."""
    names = [name(n) for n in undirected(cmp)]
    if not names:
        return ""
    return (
        f"higher / lower: a significant change of {', '.join(names)}, where neither direction "
        "is better: never better, worse or a regression."
    )


def metric_rows(cmp: Comparison, alpha: float) -> list[list[str]]:
    rows = []
    for m in cmp.metrics:
        rows.append(
            [
                m.metric,
                str(m.n),
                fmt(m.mean_a),
                fmt(m.mean_b),
                fmt(m.delta, signed=True),
                _stat(fmt_ci(m.ci_low, m.ci_high), m.note),
                _stat(fmt_p(m.p_value), m.note),
                _stat(fmt_p(m.p_holm), m.note),
                f"{m.wins}/{m.ties}/{m.losses}",
                verdict(m, alpha),
            ]
        )
    return rows


HEADERS = ["metric", "n", "mean A", "mean B", "delta", "CI", "p", "Holm p", "W/T/L", "B vs A"]
SLICE_HEADERS = ["metric", "slice", "n", "mean A", "mean B", "delta", "CI", "p", ""]


EMPTY_LABEL = "(empty string)"  # as the HTML report says it


def label_shown(value: str) -> str:
    """A slice label as printed: an empty string named, not a blank cell that reads as a
    rendering fault (the JSON keeps "")."""
    return value if value != "" else EMPTY_LABEL


def slice_rows(cmp: Comparison, *, short: bool = False) -> list[list[str]]:
    """One row per slice; ``short`` (the terminal) says "too few" where the note is long."""
    return [
        [
            s.metric,
            label_shown(s.value),
            str(s.n),
            fmt(s.mean_a),
            fmt(s.mean_b),
            fmt(s.delta, signed=True),
            _stat(fmt_ci(s.ci_low, s.ci_high), s.note),
            _stat(fmt_p(s.p_value), s.note),
            (("too few" if short else s.note) if s.note else ("small" if s.small else "")),
        ]
        for s in cmp.slices
    ]


def _md_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    def esc(cell: str) -> str:  # user values must not break the table or inject HTML
        return md_inline(cell).replace("|", "\\|")

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return lines


MARKDOWN_LIMIT = 65_536  # characters in a GitHub comment: a longer one is refused


def _kept_slices(slices: list[Any], sizes: list[int], budget: int) -> set[int]:
    """The indices of the slices a comment of ``budget`` characters keeps: those that moved
    most, whatever their metric. Why: the table is sorted by metric, then |delta|, and was
    cut in that order, so a comment kept the first metric's smallest moves and none of the
    next metrics' slices, their largest moves included."""
    order = sorted(
        range(len(slices)), key=lambda i: (slices[i].delta is None, -abs(slices[i].delta or 0.0))
    )
    kept: set[int] = set()
    for i in order:
        if sizes[i] > budget:
            break
        budget -= sizes[i]
        kept.add(i)
    return kept


def to_markdown(cmp: Comparison, alpha: float = 0.05) -> str:
    """A PR comment: headline, per-metric table, warnings, slices in a collapsed block."""
    name = {m.metric: md_inline(m.metric) for m in cmp.metrics}  # "*x*" would be emphasis
    better = [name[m.metric] for m in cmp.metrics if verdict(m, alpha) == "better"]
    worse = [name[m.metric] for m in cmp.metrics if verdict(m, alpha) == "worse"]
    changed = [
        f"{name[m.metric]} ({v})" for m in cmp.metrics if (v := verdict(m, alpha)) in CHANGED
    ]
    head = (
        f"### ragmeter compare: {md_code(cmp.b.name)} (B) vs {md_code(cmp.a.name)} "
        f"(A), {len(cmp.ids)} paired samples"
    )
    summary = []
    lost = [
        f"{name[m.metric]} ({m.failed_b} vs {m.failed_a} in A)"
        for m in cmp.metrics
        if m.lost_to_failures
    ]
    if lost:
        summary.append(f"**More failed scores in B**: {', '.join(lost)}")
    if cmp.lost_metrics:
        summary.append(f"**Not computed in B**: {', '.join(map(md_inline, cmp.lost_metrics))}")
    unscored = [
        f"{name[m.metric]} ({m.lost_b} of {m.n + m.lost_b} scored in A)"
        for m in cmp.metrics
        if m.lost_beyond_failures
    ]
    if unscored:
        summary.append(f"**Scores lost in B**: {', '.join(unscored)}")
    if worse:
        summary.append(f"**Worse** (Holm p < {alpha}): {', '.join(worse)}")
    if better:
        summary.append(f"**Better** (Holm p < {alpha}): {', '.join(better)}")
    if changed:
        summary.append(
            f"**Changed**, neither direction better (Holm p < {alpha}): {', '.join(changed)}"
        )
    if not worse and not better and not changed:
        summary.append(f"No metric changed significantly (Holm p < {alpha}).")
    for g in getattr(cmp, "margins", ()):  # compare_margins.Margin: its str() says it all
        summary.append(f"**Margin {'met' if g.passed else 'FAILED'}**: {md_inline(str(g))}")
    lines = [head, "", *summary, ""]
    lines += _md_table(
        [h if h != "CI" else f"{ci_header(cmp.confidence)} of delta" for h in HEADERS],
        metric_rows(cmp, alpha),
    )
    lines += [
        "",
        "delta = mean(B − A) over pairs scored in both runs; CI: paired bootstrap; p: sign-flip "
        "permutation test; W/T/L: samples where B is higher / equal / lower.",
    ]
    legend = [lines[-1], na_legend(cmp), direction_legend(cmp, md_inline)]
    legend.append(excluded_line(cmp, md_inline))
    lines[-1] = " ".join(filter(None, legend))
    if cmp.warnings:
        lines += ["", "> [!WARNING]"] + [f"> {md_line(public_text(w))}  " for w in cmp.warnings]
    if cmp.slices:
        by = html_text(str(cmp.by))
        lines += ["", f"<details><summary>Slices by <code>{by}</code></summary>", ""]
        table = _md_table(SLICE_HEADERS, slice_rows(cmp))
        budget = MARKDOWN_LIMIT - sum(len(x) + 1 for x in lines) - 300
        budget -= len(table[0]) + len(table[1]) + 2  # the header and its rule
        kept = _kept_slices(cmp.slices, [len(row) + 1 for row in table[2:]], budget)
        lines += table[:2] + [row for i, row in enumerate(table[2:]) if i in kept]
        if len(kept) < len(cmp.slices):
            left = {m.metric: 0 for m in cmp.metrics}
            for i, s in enumerate(cmp.slices):
                left[s.metric] += i not in kept
            per = ", ".join(f"{md_inline(m)} {k}" for m, k in left.items() if k)
            lines += [
                "",
                f"... and {len(cmp.slices) - len(kept)} more slices ({per}), those that moved "
                f"least, left out to keep the comment under GitHub's {MARKDOWN_LIMIT:,} "
                "characters (`--json` has them all)",
            ]
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def to_rich(cmp: Comparison, alpha: float = 0.05) -> list[Any]:
    """Renderables for a rich Console: the metric table, then the slice table when sliced.

    Compact (no vertical rules, one space between columns) so ten columns fit 80 characters.
    User text (run names, metric names, the --by column, slice labels) is Text: a str is
    markup to rich, where "[/x]" raised MarkupError and "[b]" vanished from a label, and
    ``visible``: an ESC in a label reached the terminal raw ("\\x1b[2J" cleared the screen).
    """
    from rich import box
    from rich.table import Table
    from rich.text import Text

    ci = ci_header(cmp.confidence)
    table = Table(
        title=Text(
            visible(f"B = {cmp.b.name} vs A = {cmp.a.name}: {len(cmp.ids)} paired samples"),
            style="table.title",  # a Text title is not given rich's title style
        ),
        box=box.SIMPLE_HEAD,
        padding=(0, 0),  # one space between columns: ten columns fit 80 characters
    )
    rows = metric_rows(cmp, alpha)
    words = ["n.s." if row[-1] == "no clear change" else row[-1] for row in rows]
    for h in HEADERS:
        label = ci if h == "CI" else h
        left = h in ("metric", "B vs A")
        table.add_column(
            label,
            justify="left" if left else "right",
            # Too narrow a console wraps metric names; the verdict is never cut ("wor").
            no_wrap=h != "metric",
            overflow="fold" if h == "metric" else "ellipsis",
            min_width=max(map(len, [h, *words])) if h == "B vs A" else None,
        )
    styles = {"better": "green", "worse": "bold red", "higher": "yellow", "lower": "yellow"}
    for row, word in zip(rows, words, strict=True):
        table.add_row(Text(visible(row[0])), *row[1:-1], Text(word, style=styles.get(word, "")))
    legend = [
        f"delta = mean(B − A); {ci}: paired bootstrap; p: sign-flip permutation test; "
        f"Holm-adjusted across metrics; n.s. = not significant at {alpha}.",
        na_legend(cmp),
        direction_legend(cmp),
    ]
    out: list[Any] = [table, Text(visible(" ".join(filter(None, legend))), style="dim")]
    if excluded_line(cmp):  # not dim: a failed score is never shown as a footnote
        out.append(Text(visible(excluded_line(cmp)), style="yellow"))
    for g in getattr(cmp, "margins", ()):  # --max-drop: one line each, under the table
        said = f"margin {'met' if g.passed else 'FAILED'}: {g}"
        out.append(Text(visible(said), style="green" if g.passed else "bold red"))
    if cmp.slices:
        st = Table(
            title=Text(
                visible(
                    f"slices by {cmp.by} (sorted by |delta|; small and too-few slices flagged)"
                ),
                style="table.title",
            ),
            box=box.SIMPLE_HEAD,
            padding=(0, 0),
        )
        for h in SLICE_HEADERS:
            left = h in ("metric", "slice", "")
            # fold: a label too long for the window is broken, never cut to "…"
            fold = "fold" if h in ("metric", "slice") else "ellipsis"
            st.add_column(h, justify="left" if left else "right", no_wrap=not left, overflow=fold)
        for row in slice_rows(cmp, short=True):
            st.add_row(Text(visible(row[0])), Text(visible(row[1])), *row[2:])
        out.append(st)
    return out
