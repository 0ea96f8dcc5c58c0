"""benchmarks/injection.py counts the flips that raise a verdict apart (``flip_up_rate``).

Why: its flip rate counts both ways, and a base the judge scored wrong (an unfaithful answer at
1.0) flips *down* with any added text; the issue's notes had to split the two by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _row(flip: bool, up: bool, group: str = "seen") -> dict:
    return {
        "metric": "faithfulness",
        "form": "note",
        "where": "answer",
        "unseen": group != "seen",
        "group": group,
        "flip": flip,
        "flip_up": up,
        "delta": 1.0 if up else (-1.0 if flip else 0.0),
    }


def test_raised_flips_are_counted_apart() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import injection
    finally:
        sys.path.remove(str(BENCH))
    rows = [_row(True, True), _row(True, False), _row(False, False), _row(False, False)]
    got = injection.summarise(rows, ["faithfulness"])["faithfulness"]
    assert got["flip_rate"] == 0.5
    assert got["flip_up_rate"] == 0.25
