"""A report of a run with many scores without a value: every count said, the list cut, the
cut said. A run failed on every one of 20,000 samples wrote one table row per score (60,000
rows, 13 MB of one repeated reason)."""

from __future__ import annotations

import json
import re

from tests.conftest import make_row
from tests.needs import require_module

from ragmeter.testing import Evaluator

N = 260


def _failed_run(tmp_path):
    rows = [make_row(i) for i in range(N)]
    Evaluator(judge="scripted").evaluate(rows, ["token_f1"], n_resamples=20).write(tmp_path)
    path = tmp_path / "scores.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for i, rec in enumerate(records):
        if i < N - 10:  # 250 failed: 240 rate-limited, 10 timed out; 10 scored
            rec["token_f1"] = None
            rec["status"] = {"token_f1": "failed"}
            rec["reasons"] = {"token_f1": "429 rate limited" if i % 25 else "timeout"}
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    summary = json.loads((tmp_path / "summary.json").read_text())
    for key in ("metrics", "failures", "not_applicable"):
        summary.pop(key, None)
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    return tmp_path


def test_many_failed_scores_are_counted_listed_in_part_and_grouped_by_reason(tmp_path):
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import build, render_report

    html = render_report(_failed_run(tmp_path))
    failures = html.split('<section id="failures">', 1)[1].split("</section>", 1)[0]
    assert "Failed scores (250)" in failures  # the count stays exact
    assert f"The first {build.MAX_LISTED} of 250 are listed" in failures
    groups, listed = failures.split('class="by-reason"', 1)[1].split("</table>", 1)
    assert listed.count('<td class="text">failed</td>') == build.MAX_LISTED < 250
    counts = dict(re.findall(r'reason">([^<]+)</td><td class="num">(\d+)</td>', groups))
    assert counts == {"429 rate limited": "240", "timeout": "10"}


def test_a_short_list_is_shown_whole_without_a_cut_note(tmp_path):
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import render_report

    rows = [make_row(i, reference_answers=None) if i < 3 else make_row(i) for i in range(6)]
    result = Evaluator(judge="scripted").evaluate(rows, ["token_f1"], n_resamples=20)
    failures = render_report(result).split('<section id="failures">', 1)[1]
    assert "Not applicable (undefined or skipped) (3)" in failures
    assert failures.count('<td class="text">token_f1</td>') == 3
    assert "by-reason" not in failures and "are listed" not in failures
