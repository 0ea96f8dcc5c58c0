"""Charts rendered once, at report time, to inline SVG (matplotlib's object API, no pyplot).

Text stays text (``svg.fonttype = none``) so the page's own font is used and nothing is
embedded or fetched; the XML prolog, DOCTYPE, metadata and namespace URIs are dropped (an
SVG inside HTML needs none of them), and every id is prefixed per chart so that several
charts on one page never resolve each other's ``#id`` references.
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Sequence

import numpy as np

from ragmeter.md_escape import visible

MAX_VECTOR_POINTS = 5000
BLUE, ORANGE, GREY, RED, GREEN = "#3465a4", "#f57900", "#888a85", "#cc0000", "#4e9a06"
_RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "ragmeter",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    # A metric name is a run's text: "k$x$" was typeset as math and "$\\foo$" raised
    # (the report ended in an internal error); ragmeter's own labels use no mathtext.
    "text.parse_math": False,
}
_DROP = [
    re.compile(r"<\?xml[^>]*\?>\s*"),
    re.compile(r"<!DOCTYPE[^>]*>\s*"),
    re.compile(r"<metadata>.*?</metadata>\s*", re.S),
    re.compile(r'\s+xmlns(:\w+)?="[^"]*"'),
]
_ID = re.compile(r'\bid="([^"]+)"')
_QUIET = r"(constrained_layout not applied|Glyph \d+ .* missing from)"


def _label(text: str) -> str:
    """A run's text (a metric name) for a chart label: control characters, bidi controls and
    line breaks ``visible`` (``\\u202e``), as the CLI shows them. Why: SVG <text> takes no
    <bdi>, so U+202E in a name reversed the rest of its label on the page, and a NUL or ESC
    was written raw into the SVG (NUL is not allowed in XML). Escaped before drawing, so
    the layout measures the text that is shown."""
    return visible(str(text))


def _figure(width: float, height: float):  # type: ignore[no-untyped-def]
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def to_svg(fig, prefix: str) -> str:  # type: ignore[no-untyped-def]
    """The figure as an inline <svg> element with ids prefixed by ``prefix``."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(_RC), warnings.catch_warnings():
        # A run's text (a metric name) of 2,000 characters, or with a control character,
        # printed matplotlib's layout and glyph warnings, with a source line, over the CLI's
        # output; the chart is drawn all the same (its text clipped, the glyph blank).
        warnings.filterwarnings("ignore", _QUIET, UserWarning)
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    for pattern in _DROP:
        svg = pattern.sub("", svg)
    for old in set(_ID.findall(svg)):
        new = f"{prefix}-{old}"
        svg = svg.replace(f'id="{old}"', f'id="{new}"').replace(f"#{old})", f"#{new})")
        svg = svg.replace(f'href="#{old}"', f'href="#{new}"')
    return svg.strip()


def histogram(
    values: Sequence[float],
    metric: str,
    prefix: str,
    other: Sequence[float] | None = None,
    labels: tuple[str, str] = ("A", "B"),
) -> str:
    """Distribution of one metric's per-sample values, with the mean marked.

    With ``other`` (a comparison's run B), both runs on the same bins, A filled and B as an
    outline, each mean marked in its colour: a report of B vs A that showed A's distribution
    alone hid where B's scores went."""
    with _rc():
        fig = _figure(4.2, 2.2)
        ax = fig.add_subplot()
        arr = np.asarray(values, dtype=float)
        both = arr if other is None else np.concatenate([arr, np.asarray(other, dtype=float)])
        lo, hi = (
            (0.0, 1.0)
            if both.size == 0 or (both.min() >= 0 and both.max() <= 1)
            else (float(both.min()), float(both.max()))
        )
        bins = np.linspace(lo, hi if hi > lo else lo + 1, 21)
        first = "" if other is None else f"{labels[0]} "
        ax.hist(arr, bins=bins, color=BLUE, alpha=0.85 if other is None else 0.55, label=None)
        if arr.size:
            ax.axvline(
                float(arr.mean()),
                color=BLUE if other is not None else ORANGE,
                linewidth=1.5,
                label=f"{first}mean {arr.mean():.3f}",
            )
        if other is not None:
            b = np.asarray(other, dtype=float)
            ax.hist(b, bins=bins, histtype="step", color=ORANGE, linewidth=1.5)
            if b.size:
                ax.axvline(
                    float(b.mean()),
                    color=ORANGE,
                    linewidth=1.5,
                    linestyle="--",
                    label=f"{labels[1]} mean {b.mean():.3f}",
                )
        if both.size:
            ax.legend(frameon=False, loc="upper left" if other is None else "best")
        ax.set_xlabel(_label(metric))
        ax.set_ylabel("samples")
        return to_svg(fig, prefix)


def delta_forest(
    names: Sequence[str],
    deltas: Sequence[float],
    lows: Sequence[float],
    highs: Sequence[float],
    verdicts: Sequence[str],
    prefix: str,
) -> str:
    """Each metric's paired delta with its CI as a horizontal bar; zero marked. Coloured by
    its verdict (compare_render.verdict): better green, worse red, a significant change
    with no better direction orange, else grey."""
    colors = {"better": GREEN, "worse": RED, "higher": ORANGE, "lower": ORANGE}
    with _rc():
        fig = _figure(5.5, 0.45 * len(names) + 1.0)
        ax = fig.add_subplot()
        ys = np.arange(len(names))[::-1]
        for y, d, lo, hi, word in zip(ys, deltas, lows, highs, verdicts, strict=True):
            color = colors.get(word, GREY)
            # The CI as a capped bar and the delta as a point, drawn apart: errorbar's
            # xerr=[d - lo, hi - d] was negative, and the report crashed, when the delta
            # fell a rounding error outside its CI (constant differences: mean 0.39999999999999997,
            # CI [0.4, 0.4]).
            ax.plot([lo, hi], [y, y], color=color, linewidth=1.5, marker="|", markersize=8)
            ax.plot([d], [y], "o", color=color)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_yticks(ys, [_label(n) for n in names])
        ax.set_xlabel("delta = mean(B − A), with CI")
        return to_svg(fig, prefix)


def scatter(
    a: Sequence[float], b: Sequence[float], metric: str, prefix: str, direction: str = "higher"
) -> str:
    """Per-sample A vs B; above the diagonal higher in B (green when higher is better, red
    when lower is, blue either way when neither is). Coinciding samples are one point whose
    area grows with their number (metric values repeat: 0/1 hits, ratios)."""
    with _rc():
        fig = _figure(3.0, 3.0)
        ax = fig.add_subplot()
        pts, counts = np.unique(np.column_stack([a, b]).astype(float), axis=0, return_counts=True)
        x, y = pts[:, 0], pts[:, 1]
        up, down = {"higher": (GREEN, RED), "lower": (RED, GREEN)}.get(direction, (BLUE, BLUE))
        colors = np.where(y > x, up, np.where(y < x, down, GREY))
        # Past MAX_VECTOR_POINTS distinct points, drawn as an inline image (axes and text
        # stay vector): 50,000 distinct pairs of a continuous metric (a judge's P(yes), an
        # embedding similarity) were a 32 MB <svg> per metric that took 11 s to write.
        many = len(x) > MAX_VECTOR_POINTS
        ax.scatter(x, y, s=12 * counts, c=colors, alpha=0.7, linewidths=0, rasterized=many)
        lo = float(min(x.min(initial=0.0), y.min(initial=0.0)))
        hi = float(max(x.max(initial=1.0), y.max(initial=1.0)))
        pad = 0.04 * (hi - lo)
        ax.plot([lo, hi], [lo, hi], color=GREY, linewidth=0.8)
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(lo - pad, hi + pad)
        metric = _label(metric)
        ax.set_xlabel(f"A: {metric}")
        ax.set_ylabel(f"B: {metric}")
        ax.set_title(f"{metric} (n={len(a)}; area = samples)", fontsize=8)
        return to_svg(fig, prefix)


def _rc():  # type: ignore[no-untyped-def]
    import matplotlib

    return matplotlib.rc_context(_RC)
