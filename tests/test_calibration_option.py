"""``options.faithfulness_calibration``: the user's own calibration file (the schema of
prompts/faithfulness_calibration.json, as ``meta-eval labels --fit-calibration`` writes it)
in place of the package's. Before, the option was refused as unknown: a domain whose claims
the package calibration reads badly (SciFact) could not use a refit on its own labels."""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

from fake_server import FakeOpenAIServer
from judged_fakes import HashEmbedder, ScriptedJudge
from ragmeter import runner
from ragmeter.cli import app
from ragmeter.config import Settings
from ragmeter.errors import ConfigError, OutputError
from ragmeter.manifest import fingerprint
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.registry import get_metric
from ragmeter.metrics.support import load_calibration
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

COEF = {"intercept": 0.3, "logit_p_yes": 2.0, "lexical_support": -1.5, "missing_specific": 0.7}
P_YES = 0.8
QUESTION = "Which river drains Lake Taupo?"
CONTEXT = "The Waikato River drains Lake Taupo. It flows north to the Tasman Sea."


def write_cal(path: Path, version: str = "user-scifact-1", **coef: float) -> Path:
    doc = {
        "version": version,
        "about": "fitted on my labels",
        "coefficients": {**COEF, **coef},
        "provenance": {"fit_n": 200},
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def score(answer: str, **opts: Any):  # type: ignore[no-untyped-def]
    judge = ScriptedJudge(lambda _t: P_YES)
    sample = Sample(question_id="q1", question=QUESTION, answer=answer, contexts=[CONTEXT])
    res = Resources(judge=judge, embedder=HashEmbedder(), options={"modes": {}, **opts})
    return asyncio.run(faithfulness(sample, res)), judge


@pytest.mark.parametrize(
    ("answer", "lexical", "missing"),
    [
        ("The Waikato River drains Lake Taupo.", 1.0, 0.0),  # its new word is in the context
        ("The Whanganui River drains Lake Taupo.", 0.0, 1.0),  # a name the context lacks
    ],
)
def test_the_users_calibration_combines_a_claim_by_its_coefficients(
    tmp_path: Path, answer: str, lexical: float, missing: float
) -> None:
    """One claim: P = sigmoid(b0 + b1 logit(P(yes)) + b2 lexical + b3 missing), by hand."""
    cal = write_cal(tmp_path / "cal.json")
    s, _ = score(answer, faithfulness_calibration=str(cal))
    assert s.status == "ok", s.details
    (ev,) = s.details["statement_evidence"]
    assert (ev["lexical"], float(bool(ev["missing_specific"]))) == (lexical, missing)
    z = 0.3 + 2.0 * math.log(P_YES / (1 - P_YES)) - 1.5 * lexical + 0.7 * missing
    assert s.value == pytest.approx(sigmoid(z), abs=1e-9)
    assert s.details["calibration"] == f"user-scifact-1+sha256:{sha(cal)[:12]}"
    package, _ = score(answer)  # the package calibration still the default
    assert package.details["calibration"] == load_calibration().version
    assert package.value != pytest.approx(s.value)


def test_with_combine_judge_the_file_changes_nothing(tmp_path: Path) -> None:
    cal = write_cal(tmp_path / "cal.json")
    answer = "The Waikato River drains Lake Taupo."
    plain, _ = score(answer, faithfulness_combine="judge")
    with_file, _ = score(answer, faithfulness_combine="judge", faithfulness_calibration=str(cal))
    assert with_file.value == plain.value == pytest.approx(P_YES)
    assert with_file.details["calibration"] is None


def test_two_files_of_one_version_are_told_apart(tmp_path: Path) -> None:
    a = write_cal(tmp_path / "a.json", intercept=0.3)
    b = write_cal(tmp_path / "b.json", intercept=-0.3)
    answer = "The Waikato River drains Lake Taupo."
    sa, _ = score(answer, faithfulness_calibration=str(a))
    sb, _ = score(answer, faithfulness_calibration=str(b))
    assert sa.details["calibration"] != sb.details["calibration"]
    assert sa.details["calibration"].startswith("user-scifact-1+sha256:")


def test_a_file_gone_bad_after_the_check_fails_the_score_naming_it(tmp_path: Path) -> None:
    cal = write_cal(tmp_path / "cal.json")
    Settings(options={"faithfulness_calibration": str(cal)})
    cal.write_text("{", encoding="utf-8")
    s, _ = score("The Waikato River drains Lake Taupo.", faithfulness_calibration=str(cal))
    assert s.status == "failed" and "faithfulness_calibration" in (s.reason or ""), s
    assert "cal.json" in (s.reason or "") and "not JSON" in (s.reason or "")


BAD = {
    "missing": (None, "no such file"),
    "dir": ("DIR", "is a directory"),
    "not_json": ("{'version': 1,", "not JSON"),
    "not_object": ("[1, 2]", "a JSON object"),
    "no_version": (json.dumps({"coefficients": COEF}), "no version"),
    "no_term": (
        json.dumps({"version": "v", "coefficients": {**COEF, "missing_specific": None}}),
        "missing_specific must be a finite number",
    ),
    "term_absent": (
        json.dumps({"version": "v", "coefficients": {k: COEF[k] for k in list(COEF)[:3]}}),
        "coefficient(s) missing: missing_specific",
    ),
    "nan": (
        '{"version": "v", "coefficients": {"intercept": NaN, "logit_p_yes": 1, '
        '"lexical_support": 1, "missing_specific": 1}}',
        "intercept must be a finite number",
    ),
    "huge": (
        '{"version": "v", "coefficients": {"intercept": 1e400, "logit_p_yes": 1, '
        '"lexical_support": 1, "missing_specific": 1}}',
        "intercept must be a finite number",
    ),
    "typo": (
        json.dumps({"version": "v", "coefficients": {**COEF, "lexical_suport": 1.0}}),
        "unknown coefficient(s): lexical_suport",
    ),
}


def bad_file(tmp_path: Path, case: str) -> Path:
    content = BAD[case][0]
    path = tmp_path / f"{case}.json"
    if content == "DIR":
        path.mkdir()
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_file_is_one_config_error_naming_option_and_file(tmp_path: Path, case: str) -> None:
    path = bad_file(tmp_path, case)
    with pytest.raises(ConfigError) as got:
        Settings(options={"faithfulness_calibration": str(path)})
    text = str(got.value)
    assert "\n" not in text and "options.faithfulness_calibration" in text
    assert str(path) in text and BAD[case][1] in text, text


def test_relative_and_home_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A relative path is the current directory's; ``~`` is the home directory."""
    write_cal(tmp_path / "cal.json")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for given in ("cal.json", "~/cal.json"):
        s, _ = score("The Waikato River drains Lake Taupo.", faithfulness_calibration=given)
        assert s.details["calibration"].startswith("user-scifact-1+sha256:"), s
        made = Settings(options={"faithfulness_calibration": given})  # the file checked
        assert made.options["faithfulness_calibration"] == str(tmp_path / "cal.json")
    with pytest.raises(ConfigError, match=r"no such file \(relative to the current directory"):
        Settings(options={"faithfulness_calibration": "other.json"})


def test_a_bad_file_in_a_config_file_exits_2_before_any_judge_call(tmp_path: Path) -> None:
    """The CLI takes options from ``--config`` (``[ragmeter.options]``)."""
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(make_row(i)) + "\n" for i in (1, 2)))
    bad = bad_file(tmp_path, "term_absent")
    with FakeOpenAIServer() as srv:
        config = tmp_path / "c.toml"
        config.write_text(
            f'[ragmeter]\njudge = "openai:fake"\nbase_url = "{srv.url}"\n'
            f"[ragmeter.options]\nfaithfulness_calibration = {json.dumps(str(bad))}\n"
        )
        args = ["evaluate", data, "-m", "faithfulness", "--config", config, "--cache", "off"]
        args += ["-o", tmp_path / "out"]
        result = CliRunner().invoke(app, [str(a) for a in args], env={"OPENAI_API_KEY": "sk-x"})
        assert srv.calls == 0
    text = " ".join(result.output.split())
    assert result.exit_code == 2, text
    assert "faithfulness_calibration" in text and "missing_specific" in text, text
    assert "Traceback" not in text and not (tmp_path / "out").exists()


def _settings(url: str, cache: Path, cal: Path | None) -> Settings:
    opts = {"faithfulness_calibration": str(cal)} if cal is not None else {}
    return Settings(
        judge="openai:m",
        base_url=url,
        cache=str(cache),
        api_key_env="RM_CAL_UNSET",
        embedder="none",
        preflight=False,
        max_retries=0,
        options=opts,
    )


ROWS = [make_row(i) for i in (1, 2, 3)]


def test_run_json_records_the_file_and_a_new_calibration_reuses_every_verdict(
    tmp_path: Path,
) -> None:
    a = write_cal(tmp_path / "a.json", version="mine-1")
    b = write_cal(tmp_path / "b.json", version="mine-2", intercept=-2.0)
    with FakeOpenAIServer() as srv:
        first = runner.evaluate(
            ROWS,
            ["faithfulness"],
            settings=_settings(srv.url, tmp_path / "c", a),
            out=tmp_path / "o1",
        )
        sent = srv.calls
        second = runner.evaluate(
            ROWS,
            ["faithfulness"],
            settings=_settings(srv.url, tmp_path / "c", b),
            out=tmp_path / "o2",
        )
        assert sent > 0 and srv.calls == sent  # the verdicts came from the cache
    assert second.usage["calls"] == 0 and second.usage["cache_hits"] == sent
    one, two = first.scores["faithfulness"], second.scores["faithfulness"]
    assert [s.status for s in one + two] == ["ok"] * 6
    assert all(x.value != y.value for x, y in zip(one, two, strict=True))
    assert one[0].details["calibration"] == f"mine-1+sha256:{sha(a)[:12]}"
    for out, cal, version in ((tmp_path / "o1", a, "mine-1"), (tmp_path / "o2", b, "mine-2")):
        run = json.loads((out / "run.json").read_text())
        (entry,) = [m for m in run["metrics"] if m["name"] == "faithfulness"]
        recorded = entry["prompts"]["faithfulness_calibration.json"]
        assert recorded == {"version": version, "sha256": sha(cal), "path": str(cal)}
        fp = run["fingerprint"]["metrics"]
        assert [m.get("calibration_sha256") for m in fp] == [sha(cal)]


def test_the_fingerprint_follows_the_files_content_not_its_path(tmp_path: Path) -> None:
    """Options hold only the path: a file refitted in place resumed into the old run."""
    metric = [get_metric("faithfulness")]
    kw = dict(n_resamples=100, confidence=0.95, seed=0)
    cal = write_cal(tmp_path / "cal.json")
    s = _settings("http://127.0.0.1:9/v1", tmp_path / "c", cal)
    before = fingerprint(metric, s, **kw)
    assert fingerprint(metric, s, **kw) == before
    write_cal(cal, intercept=-1.0)  # same path, same version, other content
    assert fingerprint(metric, s, **kw) != before
    plain = fingerprint(metric, _settings("http://127.0.0.1:9/v1", tmp_path / "c", None), **kw)
    assert "calibration_sha256" not in plain["metrics"][0]  # other runs' fingerprints unchanged


def test_a_file_refitted_in_place_is_not_resumed_into(tmp_path: Path) -> None:
    """Same path, same version, other coefficients: before, the run resumed into the old one
    (same options), mixing two calibrations' scores in one directory."""
    cal = write_cal(tmp_path / "cal.json")
    with FakeOpenAIServer() as srv:
        s = _settings(srv.url, tmp_path / "c", cal)
        runner.evaluate(ROWS, ["faithfulness"], settings=s, out=tmp_path / "o")
        runner.evaluate(ROWS, ["faithfulness"], settings=s, out=tmp_path / "o")  # the same run
        write_cal(cal, intercept=-1.0)
        with pytest.raises(OutputError):
            runner.evaluate(ROWS, ["faithfulness"], settings=s, out=tmp_path / "o")


def test_the_option_counts_for_faithfulness_alone_when_runs_are_compared() -> None:
    """compare's "scored differently" check counted the calibration file of faithfulness for
    every judged metric (answer_relevance, context_relevance...), as an option it did not
    know."""
    from ragmeter.comparability import metric_view

    options = {"faithfulness_calibration": "/c.json"}
    provenance = {"config": {"settings": {"options": options}}}

    def view(metric: str) -> dict[str, Any]:
        return metric_view(provenance, metric, models={"judge"}, run_json=False, facts=set())

    assert view("faithfulness").get("options.faithfulness_calibration") == "/c.json"
    assert "options.faithfulness_calibration" not in view("answer_relevance")
    assert "options.faithfulness_calibration" not in view("context_relevance")


def test_an_unset_variable_in_the_path_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """``$VARIABLE`` in the path is expanded as the local models' paths are, and an unset one
    is named (it was "no such file", naming the literal path)."""
    monkeypatch.delenv("RAGMETER_NO_SUCH_DIR", raising=False)
    with pytest.raises(ConfigError, match="environment variable RAGMETER_NO_SUCH_DIR is not set"):
        Settings(options={"faithfulness_calibration": "$RAGMETER_NO_SUCH_DIR/cal.json"})
