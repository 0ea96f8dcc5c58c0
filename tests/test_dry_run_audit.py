"""The dry run's estimate held to the run it estimates: the same data and settings, run for
real against the fake OpenAI server, must make the calls the dry run counted.

Tokens are not compared exactly: the fake server counts words, the dry run estimates four
characters a token (nearer a real tokenizer); calls must match, and the dry run's list
lengths are what a correct judge would answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row

import ragmeter
from fake_server import FakeOpenAIServer
from ragmeter.config import Settings

KEY = "sk-test-not-a-real-key"
LONG = " ".join(f"Sentence {k} of the long context says the sky is blue." for k in range(30))


def _attributions(body: dict[str, Any]) -> str | None:
    """A correct judge's context_recall attributions: one per numbered reference sentence."""
    user = [str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user"]
    if not user or "Reference answer sentences:" not in user[-1]:
        return None
    listing = user[-1].split("Reference answer sentences:", 1)[1].split("\n\n", 1)[0]
    n = sum(1 for line in listing.splitlines() if line.split(". ", 1)[0].isdigit())
    return json.dumps({"sentences": [{"reason": "in it", "attributed": "yes"}] * n})


def _settings(url: str, metric: str, mode: str) -> Settings:
    return Settings(
        judge="openai:fake",
        base_url=url,
        embedder="none",
        cache="off",
        preflight=False,
        modes={metric: mode},
        options={"max_context_tokens": 200},  # a few chunks per sample: several calls each
    )


@pytest.mark.parametrize("sentences", [1, 5], ids=["one-sentence", "five-sentences"])
def test_context_recall_generate_counts_every_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sentences: int
) -> None:
    """Before, the placeholder held 3 attributions whatever the reference's length: the
    metric took that for a bad reply and stopped at the first chunk, so a reference of 1 or
    5 sentences over a long context was estimated at 1 call a sample, not one per chunk."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    reference = " ".join(f"Reference fact {k} is that the sky is blue." for k in range(sentences))
    rows = [make_row(i, contexts=[LONG, LONG], reference_answers=[reference]) for i in (1, 2)]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with FakeOpenAIServer(script=_attributions) as srv:
        s = _settings(srv.url, "context_recall", "generate")
        est = ragmeter.dry_run(data, ["context_recall"], s)
        real = ragmeter.evaluate(data, metrics=["context_recall"], settings=s)
    assert [x.status for x in real.scores["context_recall"]] == ["ok", "ok"]
    real_calls = real.usage["per_metric"]["context_recall"]["calls"]
    assert real_calls > 2  # several chunks a sample: the case at stake
    assert est["per_metric"]["context_recall"]["calls"] == real_calls


def test_a_numbered_listing_sizes_the_verdicts_not_the_extracted_statements() -> None:
    """One verdict per listed item (as the metric demands); a list of extracted strings keeps
    the assumed ``list_items`` (its length is what no one knows before the run)."""
    from ragmeter.engine.dryrun import listed_items, placeholder
    from ragmeter.metrics.faithfulness import Statements
    from ragmeter.metrics.reference import Attributions

    msgs = [
        {"role": "user", "content": "ctx\n1. x\n\nReference:\n1. a\n2. b\n3. c\n4. d\n5. e\nok"}
    ]
    assert listed_items(msgs) == 5
    assert listed_items([{"role": "user", "content": "no listing here"}]) is None
    made = placeholder(Attributions.model_json_schema(), list_items=3, listed=5)
    assert len(made["sentences"]) == 5
    assert (
        len(placeholder(Statements.model_json_schema(), list_items=3, listed=5)["statements"]) == 3
    )


def _cli_dry(data: Path, *args: str) -> str:
    from typer.testing import CliRunner

    from ragmeter.cli import app

    base = ["evaluate", str(data), "--dry-run", "--judge", "openai:gpt-4o-mini"]
    base += ["--embedder", "none", "--cache", "off", *args]
    got = CliRunner().invoke(app, base, env={"OPENAI_API_KEY": KEY, "COLUMNS": "300"})
    assert got.exit_code == 0, got.output
    return " ".join(got.output.split())


def test_generate_mode_says_its_statement_count_is_assumed(tmp_path: Path) -> None:
    """Before, the output ended "lists assumed to hold 3 items", whatever the modes: nothing
    said which numbers rest on a guess (the statements a judge draws from an answer) nor how
    tokens were counted."""
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(make_row(i)) + "\n" for i in (1, 2)))
    gen = _cli_dry(data, "-m", "faithfulness,context_recall", "--mode", "faithfulness=generate")
    assert "tokens at 4 characters a token" in gen
    assert "note: faithfulness: how many statements (or questions) the judge draws" in gen
    assert "assumed 3 each, so these counts are a rough estimate" in gen
    assert "context_recall:" not in gen  # fast mode: its counts follow from the data
    fast = _cli_dry(data, "-m", "faithfulness")
    assert "not known before the run" not in fast


def test_skipped_samples_are_said_not_counted(tmp_path: Path) -> None:
    """Before, a sample without the metric's inputs was left out of the counts silently; the
    run itself notes it (``2 sample(s) skipped``)."""
    rows = [make_row(1), make_row(2, reference_answers=None), make_row(3, reference_answers=None)]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = _cli_dry(data, "-m", "context_recall")
    assert "note: context_recall: 2 sample(s) skipped (inputs missing), not counted" in out


def _committal(body: dict[str, Any]) -> str | None:
    """A judge's usual reply to answer_relevance's question generation: committal."""
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    if "noncommittal" not in schema.get("properties", {}):
        return None
    return json.dumps({"questions": ["What is fact one?", "Which fact?"], "noncommittal": False})


def test_answer_relevance_generate_counts_the_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the placeholder's flags were all true: every answer was "noncommittal", the
    metric stopped before embedding, and the embedder's calls (and its price) were left out
    of the estimate, which then showed a known cost for an unpriced embedder."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(make_row(i)) + "\n" for i in (1, 2, 3)))
    with FakeOpenAIServer(script=_committal) as srv:
        s = Settings(
            judge="openai:fake",
            base_url=srv.url,
            embedder="openai:emb",
            cache="off",
            preflight=False,
            modes={"answer_relevance": "generate"},
            prices={"fake": {"input": 1.0, "output": 1.0}},  # the embedder has none
        )
        est = ragmeter.dry_run(data, ["answer_relevance"], s)
        real = ragmeter.evaluate(data, metrics=["answer_relevance"], settings=s)
        embedder = f"openai:emb@{srv.url}"
    assert [x.status for x in real.scores["answer_relevance"]] == ["ok"] * 3
    assert real.usage["per_backend"][embedder]["calls"] == 3
    assert est["per_backend"][embedder]["calls"] == 3
    assert (
        est["per_metric"]["answer_relevance"]["calls"]
        == real.usage["per_metric"]["answer_relevance"]["calls"]
    )
    assert real.usage["cost_usd"] is None and est["cost_usd"] is None  # unknown, not a price


def test_an_unknown_cost_names_the_model_without_a_price(tmp_path: Path) -> None:
    """Before, "unknown (no price configured)" named no model: a user who had priced the judge
    could not tell which backend lacked a price, nor how to give one."""
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(make_row(1)) + "\n")
    config = tmp_path / "p.toml"
    config.write_text('[prices."gpt-4o-mini"]\ninput = 0.15\noutput = 0.6\n')
    priced = _cli_dry(data, "-m", "faithfulness", "--config", str(config))
    assert "estimated cost: $0.0" in priced and "no price configured" not in priced
    args = ["-m", "faithfulness", "--config", str(config)]
    other = _cli_dry(data, *args[:2], "--judge", "openai:my-model", *args[2:])
    assert (
        "estimated cost: unknown (no price configured for openai:my-model: set "
        '[prices."my-model"] input = ... output = ..., USD per 1M tokens, in --config)'
    ) in other


@pytest.mark.parametrize("mode", ["fast", "generate"])
def test_context_precision_counts_every_chunk_a_no_saying_judge_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """context_precision stops at a context's first useful chunk. Before, the stand-in said
    P(yes) = 0.5 (fast) or "yes" (generate): one call a context, while a judge that finds a
    long context useless is asked about each of its chunks (here 4 a context, the estimate
    a quarter of the bill). Now the estimate is the most a run can make; a yes-saying judge
    makes fewer."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(make_row(i, contexts=[LONG, LONG])) + "\n" for i in (1, 2)))
    counts = []
    for yes_logprob in (-3.0, -0.05):  # P(yes) 0.05: no; 0.95: yes
        verdict = "no" if yes_logprob < -1 else "yes"
        reply = json.dumps({"reason": "r", "verdict": verdict})

        def script(body: dict[str, Any], reply: str = reply) -> str | None:
            fmt = (body.get("response_format") or {}).get("json_schema") or {}
            return reply if "verdict" in (fmt.get("schema") or {}).get("properties", {}) else None

        with FakeOpenAIServer(yes_logprob=yes_logprob, script=script) as srv:
            s = _settings(srv.url, "context_precision", mode)
            est = ragmeter.dry_run(data, ["context_precision"], s)
            real = ragmeter.evaluate(data, metrics=["context_precision"], settings=s)
        assert [x.status for x in real.scores["context_precision"]] == ["ok", "ok"]
        counts.append(real.usage["per_metric"]["context_precision"]["calls"])
        assert est["per_metric"]["context_precision"]["calls"] == counts[0]
    assert counts[0] > 4 * 2 and counts[1] == 4  # no: every chunk; yes: the first of each
