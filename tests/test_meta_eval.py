"""Meta-evaluation: WikiEval adapter, agreement arithmetic (ties = 1/2), baselines, CLI."""

from __future__ import annotations

import json

import pytest

from judged_fakes import HashEmbedder, ScriptedJudge
from ragmeter.errors import DataError
from ragmeter.meta_eval import (
    LEXICAL_BASELINE,
    PairScorer,
    build_scorers,
    outcome,
    run_meta_eval,
    wikieval_pairs,
)
from ragmeter.metrics.base import Score
from ragmeter.protocols import Resources

ROWS = [
    {
        "question": "Question: When did the bridge open?",
        "answer": "Answer: The bridge opened in 1937.",
        "ungrounded_answer": "The bridge opened in 1950.",
        "poor_answer": "It is a bridge.'",
        "context_v1": ["The bridge opened in 1937. It is orange."],
        "context_v2": [
            "The bridge opened in 1937. It is orange.",
            "Bridges are common. Rivers flow.",
        ],
        "source": "Bridge",
    },
    {
        "question": "Question: Who wrote the novel?",
        "answer": "Answer: The novel was written by Ann Lee.",
        "ungrounded_answer": "The novel was written by Bob Ray.",
        "poor_answer": "A writer wrote it.'",
        "context_v1": ["The novel was written by Ann Lee in 2001."],
        "context_v2": ["The novel was written by Ann Lee in 2001. Novels are long. Many read."],
        "source": "Novel",
    },
]


@pytest.fixture()
def data(tmp_path):
    path = tmp_path / "wikieval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


def test_adapter_strips_prefixes_and_builds_three_pairs_per_row(data):
    pairs = wikieval_pairs(data)
    assert len(pairs) == 6
    f = next(p for p in pairs if p.dimension == "faithfulness")
    assert f.preferred.question == "When did the bridge open?"
    assert f.preferred.answer == "The bridge opened in 1937."
    assert f.other.answer == "The bridge opened in 1950."
    assert f.preferred.contexts == f.other.contexts == ROWS[0]["context_v1"]
    c = next(p for p in pairs if p.dimension == "context_relevance")
    assert c.preferred.contexts == ROWS[0]["context_v1"]
    assert c.other.contexts == ROWS[0]["context_v2"]


def test_adapter_reports_every_bad_row(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "Question: x"}\nnot json\n')
    with pytest.raises(DataError) as exc:
        wikieval_pairs(path)
    assert len(exc.value.problems) >= 6
    assert {p.row for p in exc.value.problems} == {1, 2}  # 1-based, as evaluate counts


def test_adapter_numbers_rows_and_lines_as_evaluate_does(tmp_path):
    """Rows count from 1 and skip blank lines; lines are the file's; problems of every
    kind are listed at once."""
    path = tmp_path / "bad.jsonl"
    good = json.dumps(ROWS[0])
    bad_type = json.dumps({**ROWS[1], "context_v1": "a string, not a list"})
    path.write_bytes(f"{good}\n\n[1, 2]\n{bad_type}\n".encode() + b'{"question": "caf\xe9"}\n')
    with pytest.raises(DataError) as exc:
        wikieval_pairs(path)
    assert [str(p) for p in exc.value.problems] == [
        "row 2, line 3: expected a JSON object, got list",
        "row 3, line 4, field 'context_v1': must be a list of strings",
        "row 4, line 5: not UTF-8 text: invalid continuation byte at byte 17",
    ]


def test_adapter_names_the_column_of_a_line_cut_short(tmp_path):
    """The error is at the cut (column 65 of line 2), not at "column 1" past the newline."""
    cut = '{"question": "When did the bridge open?", "answer": "The bridge"'
    path = tmp_path / "cut.jsonl"
    path.write_text(f"{json.dumps(ROWS[0])}\n{cut}\r\n{json.dumps(ROWS[1])}\n")
    with pytest.raises(DataError) as exc:
        wikieval_pairs(path)
    assert [str(p) for p in exc.value.problems] == [
        "row 2: invalid JSON: Expecting ',' delimiter (column 65)"
    ]


def test_adapter_refuses_a_key_given_twice(tmp_path):
    """json.loads kept the second answer: the human label would have been paired with a text
    the annotator never saw."""
    row = json.dumps(ROWS[1])[:-1] + ', "answer": "another"}'
    path = tmp_path / "twice.jsonl"
    path.write_text(f"{json.dumps(ROWS[0])}\n{row}\n")
    with pytest.raises(DataError) as exc:
        wikieval_pairs(path)
    [problem] = exc.value.problems
    assert str(problem).startswith("row 2: the key 'answer' is given twice in one object")


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_adapter_refuses_a_file_without_rows(tmp_path, content):
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    with pytest.raises(DataError, match="no rows"):
        wikieval_pairs(path)


def test_cli_meta_eval_without_rows_exits_2_before_any_model(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from ragmeter.cli import app
    from ragmeter.meta_eval import _api

    def no_models(*args, **kwargs):
        raise AssertionError("a model was built")

    monkeypatch.setattr(_api, "build_resources", no_models)
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    out = tmp_path / "m.json"
    args = ["meta-eval", "wikieval", "--data", str(path), "--baselines", "k_precision"]
    result = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert "no rows" in result.output and not out.exists()


def test_outcome_ties_count_half():  # failed sides: test_meta_eval_failures.py
    assert outcome(Score.ok(0.9), Score.ok(0.1)) == 1.0
    assert outcome(Score.ok(0.1), Score.ok(0.9)) == 0.0
    assert outcome(Score.ok(0.5), Score.ok(0.5)) == 0.5


def by_answer(table):
    async def score(sample, resources):
        return Score.ok(table[sample.answer]) if sample.answer in table else Score.failed("?")

    return score


async def test_agreement_arithmetic_with_scripted_scores(data):
    pairs = wikieval_pairs(data)
    table = {
        "The bridge opened in 1937.": 0.9,
        "The bridge opened in 1950.": 0.2,
        "The novel was written by Ann Lee.": 0.5,
        "The novel was written by Bob Ray.": 0.5,
    }
    sc = PairScorer("scripted", "faithfulness", "ragas", score=by_answer(table))
    (res,) = await run_meta_eval(pairs, [sc], Resources())
    assert res.outcomes == [1.0, 0.5]
    assert res.agreement == 0.75
    assert res.n_missing == 0


async def test_full_run_with_scripted_judge_and_baselines(data):
    """Judged metrics + the paper's baselines run end to end on a scripted judge."""

    def verdict(text: str) -> float:
        if "answer 1:" in text or "context 1:" in text:  # GPT Ranking: prefer the first shown
            return 0.9
        return 0.1 if ("1950" in text or "Bob Ray" in text) else 0.8

    def script(text, schema):
        if schema.__name__ == "Rating":
            return {"score": 3 if "1950" in text else 8}
        return {}

    judge = ScriptedJudge(verdict, script)
    resources = Resources(judge=judge, embedder=HashEmbedder())
    results = await run_meta_eval(wikieval_pairs(data), build_scorers(), resources)
    got = {r.name: r for r in results}
    assert got["ragas:faithfulness"].agreement == 1.0
    assert got["k_precision"].agreement == 1.0  # 1950 is not in the context
    # The ranker always prefers the first shown answer; the order alternates with the pair,
    # so its agreement is the share of pairs showing the preferred side first.
    flips = [p["ranking"]["flipped"] for p in got["gpt_ranking:faithfulness"].pairs]
    assert got["gpt_ranking:faithfulness"].agreement == flips.count(False) / len(flips)
    assert got["gpt_score:faithfulness"].outcomes == [1.0, 0.5]
    assert got["ragas:faithfulness"].prompt_tokens > 0
    assert got["ragas:faithfulness"].tokens_per_sample() > 0
    # calls of one context are sent back to back: every faithfulness call of row 0 comes
    # before any call of row 1
    users = [m[-1]["content"] for _, m in judge.log]
    first_row1 = next(i for i, u in enumerate(users) if "Ann Lee" in u)
    assert all("Ann Lee" not in u for u in users[:first_row1])
    assert all("1937" not in u for u in users[first_row1:] if "Statement" in u)


async def test_no_model_baselines_and_calibration_per_scorer(data):
    """Each dimension has a no-model baseline; Brier/ECE treat preferred = 1, other = 0."""
    results = await run_meta_eval(
        wikieval_pairs(data),
        build_scorers(["k_precision", "question_overlap", "context_overlap"]),
        Resources(judge=ScriptedJudge(lambda t: 0.5)),
    )
    got = {r.name: r for r in results}
    for name, dim in LEXICAL_BASELINE.items():
        assert got[dim].dimension == name and got[dim].agreement is not None
    k = got["k_precision"]
    cal = k.calibration()
    values = [(p["preferred"]["value"], p["other"]["value"]) for p in k.pairs]
    want = sum((1 - a) ** 2 + b**2 for a, b in values) / (2 * len(values))
    assert cal["n"] == 2 * len(values) and cal["brier"] == pytest.approx(want)
    assert sum(row["n"] for row in cal["reliability"]) == cal["n"]
    assert 0.0 <= got["ragas:faithfulness"].calibration()["brier"] <= 1.0


def test_unknown_baseline_is_a_data_error():
    with pytest.raises(DataError):
        build_scorers(["nope"])


def test_cli_meta_eval_end_to_end_on_fake_server(data, tmp_path):
    """The command on an OpenAI-compatible scripted server: table, JSON and RESULT line."""
    from typer.testing import CliRunner

    import fake_server
    from ragmeter.cli import app

    out = tmp_path / "meta.json"
    with fake_server.FakeOpenAIServer() as server:
        result = CliRunner().invoke(
            app,
            [
                "meta-eval",
                "wikieval",
                "--data",
                str(data),
                "--judge",
                "openai:fake",
                "--base-url",
                server.url,
                "--embedder",
                "none",
                "--cache",
                "off",
                "--baselines",
                "k_precision,gpt_score",
                "--out",
                str(out),
            ],
            env={"OPENAI_API_KEY": "sk-test-not-a-real-key"},
        )
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("RESULT faithfulness=")
    for key in ("answer_relevance=", "context_relevance=", "wall_s=", "judge_tokens="):
        assert key in last
    # the lexical baseline's agreement and the judged metric's Brier beside each dimension
    assert "faithfulness_lexical=" in last and "faithfulness_brier=" in last
    assert "reliability" in result.output
    payload = json.loads(out.read_text())
    assert payload["n_pairs_per_dimension"] == 2
    assert "sk-test" not in out.read_text()
    assert {r["name"] for r in payload["results"]} >= {"ragas:faithfulness", "k_precision"}


def test_cli_meta_eval_dimensions_restricts_pairs_and_scorers(data, tmp_path):
    """--dimensions faithfulness scores only that dimension; an unknown one is a data error."""
    from typer.testing import CliRunner

    import fake_server
    from ragmeter.cli import app

    out = tmp_path / "meta.json"
    base = ["meta-eval", "wikieval", "--data", str(data), "--embedder", "none"]
    with fake_server.FakeOpenAIServer() as server:
        args = [*base, "--judge", "openai:fake", "--base-url", server.url, "--cache", "off"]
        env = {"OPENAI_API_KEY": "sk-test-not-a-real-key"}
        only = ["--dimensions", "faithfulness", "--out", str(out)]
        result = CliRunner().invoke(
            app, [*args, "--baselines", "k_precision,gpt_score", *only], env=env
        )
        bad = CliRunner().invoke(app, [*args, "--dimensions", "faithfulness,nope"], env=env)
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("RESULT faithfulness=") and "answer_relevance=" not in last
    payload = json.loads(out.read_text())
    assert payload["dimensions"] == ["faithfulness"]
    assert payload["n_pairs_per_dimension"] == 2
    assert {r["dimension"] for r in payload["results"]} == {"faithfulness"}
    assert payload["agreement"]["answer_relevance"] is None
    assert bad.exit_code != 0
    assert "nope" in bad.output


def test_python_api_runs_the_whole_meta_eval(data, monkeypatch):
    """ragmeter.meta_eval.run: the same work as the CLI, from Python, with a report object."""
    import fake_server
    from ragmeter import Settings, meta_eval

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    seen: list[str] = []
    with fake_server.FakeOpenAIServer() as server:
        settings = Settings(judge="openai:fake", base_url=server.url, embedder="none", cache="off")
        report = meta_eval.run(
            "wikieval",
            data,
            settings=settings,
            baselines=["k_precision"],
            dimensions=["faithfulness"],
            progress=seen.append,
        )
    assert report.payload["dimensions"] == ["faithfulness"]
    assert set(report.agreement) == set(meta_eval.DIMENSIONS)
    assert report.agreement["faithfulness"] is not None
    assert report.agreement["answer_relevance"] is None  # not run
    assert {r.name for r in report.results} == {"ragas:faithfulness", "k_precision"}
    assert report.result_line().startswith("RESULT faithfulness=")
    assert seen and "rows" in seen[-1]


def test_python_api_refuses_bad_requests_before_any_work(data):
    from ragmeter import ConfigError, Settings, meta_eval

    with pytest.raises(DataError, match="unknown dataset"):
        meta_eval.run("nope", data)
    with pytest.raises(DataError, match="unknown dimension"):
        meta_eval.run("wikieval", data, dimensions=["bogus"])
    with pytest.raises(ConfigError, match=r"meta-eval needs a judge.*--judge none"):
        meta_eval.run("wikieval", data, settings=Settings(judge="none", cache="off"))


async def test_python_api_runs_inside_a_running_event_loop(data, monkeypatch):
    """meta_eval.run from a notebook or an async test: asyncio.run would refuse to start."""
    import fake_server
    from ragmeter import Settings, meta_eval

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with fake_server.FakeOpenAIServer() as server:
        settings = Settings(judge="openai:fake", base_url=server.url, embedder="none", cache="off")
        report = meta_eval.run(
            "wikieval",
            data,
            settings=settings,
            baselines=["k_precision"],
            dimensions=["faithfulness"],
        )
    assert report.agreement["faithfulness"] is not None


def test_a_baselines_missing_embedder_is_named_with_the_baseline(data, monkeypatch):
    """--embedder none with the default baselines said only "no embedder configured", which
    reads as if the judged metrics needed one; it now names the baseline and the way out,
    before any model is built (``check_resources``)."""
    import fake_server
    from ragmeter import ConfigError, Settings, meta_eval

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with fake_server.FakeOpenAIServer() as server:
        settings = Settings(judge="openai:fake", base_url=server.url, embedder="none", cache="off")
        with pytest.raises(ConfigError) as err:
            meta_eval.run("wikieval", data, settings=settings, baselines=["embedding_cosine"])
    msg = str(err.value)
    assert "--embedder none (embedder='none') was given" in msg
    assert "embedding_cosine baseline needs" in msg and "--baselines" in msg
