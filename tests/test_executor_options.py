"""An executor's own options given to an executor that does not read them are refused, before
any work, in the API, the dry run and the CLI alike.

They were ignored: ``evaluate(path, ray_address="10.0.0.1:6379")`` without ``executor="ray"``
ran locally, and its user thought it had run on the cluster; ``actors`` was ignored but for
ray, ``batch_size`` by the local executor; and ``--actors 2`` (the default, typed) without
``--executor ray`` was taken, as it could not be told from not given.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from tests.needs import require_module
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.errors import ConfigError

RAY_ONLY = "applies to executor='ray' only"
REFUSED = [  # executor, options, what is said
    (
        "local",
        {"ray_address": "10.0.0.1:6379"},
        "ray_address applies to executor='ray' only, not executor='local': add "
        "executor='ray', or leave ray_address out",
    ),
    (
        "stream",
        {"ray_address": "auto"},
        "ray_address applies to executor='ray' only, not executor='stream': add "
        "executor='ray', or leave ray_address out",
    ),
    ("local", {"actors": 2}, f"actors {RAY_ONLY}, not executor='local'"),
    ("stream", {"actors": 4}, f"actors {RAY_ONLY}, not executor='stream'"),
    (
        "local",
        {"batch_size": 10_000},
        "batch_size applies to executor='stream' or 'ray' only, not executor='local': add "
        "executor='stream' or 'ray', or leave batch_size out",
    ),
    (
        "stream",
        {"actors": 3, "ray_address": "auto"},
        "ray_address and actors apply to executor='ray' only, not executor='stream': add "
        "executor='ray', or leave ray_address and actors out",
    ),
]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(3)))
    return path


@pytest.mark.parametrize(("executor", "options", "said"), REFUSED)
def test_evaluate_refuses_an_option_its_executor_does_not_read(
    tmp_path: Path, executor: str, options: dict[str, Any], said: str
) -> None:
    """Before any work: the input (absent here) is not read, ``out`` is not claimed."""
    out = tmp_path / "out"
    with pytest.raises(ConfigError) as caught:
        ragmeter.evaluate(
            str(tmp_path / "absent.jsonl"), ["token_f1"], executor=executor, out=out, **options
        )
    assert said in str(caught.value)
    assert not out.exists()


@pytest.mark.parametrize("executor", ["local", "stream"])
def test_the_dry_run_refuses_a_ray_address_but_for_ray(data: Path, executor: str) -> None:
    with pytest.raises(ConfigError, match=f"ray_address {RAY_ONLY}, not executor='{executor}'"):
        ragmeter.dry_run(
            data, ["token_f1"], {"judge": "none"}, executor=executor, ray_address="auto"
        )


@pytest.mark.parametrize(
    ("executor", "options"),
    [
        ("stream", {"batch_size": 5}),
        ("ray", {"batch_size": 5, "actors": 3, "ray_address": "auto"}),
        ("local", {"batch_size": None, "actors": None, "ray_address": None}),
    ],
)
def test_what_an_executor_reads_is_taken(executor: str, options: dict[str, Any]) -> None:
    from ragmeter.executors.common import check_executor_options

    check_executor_options(executor, **options)
    check_executor_options(executor, cli=True, **options)


def test_a_stream_run_takes_batch_size_and_defaults_it(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """None (not given) still means 10,000 rows, as the signature said before."""
    from ragmeter.executors import stream

    seen: list[int] = []
    real = stream.astream_evaluate

    async def spy(*args: Any, batch_size: int, **kw: Any) -> Any:
        seen.append(batch_size)
        return await real(*args, batch_size=batch_size, **kw)

    monkeypatch.setattr(stream, "astream_evaluate", spy)
    small = ragmeter.evaluate(
        str(data), ["token_f1"], executor="stream", out=tmp_path / "a", batch_size=2
    )
    default = ragmeter.evaluate(str(data), ["token_f1"], executor="stream", out=tmp_path / "b")
    assert seen == [2, 10_000]
    assert small.n_samples == default.n_samples == 3


def test_a_ray_run_gets_the_documented_defaults(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """actors=None and batch_size=None reach the ray executor as 2 and 256 (the CLI's default
    too: 10,000 rows in one chunk left all actors but one idle on a smaller run); what is
    given reaches it as given (the executor is stood in for: no Ray is started)."""
    from ragmeter.executors import ray_executor

    seen: list[dict[str, Any]] = []

    def stand_in(path: Any, metrics: Any, **kw: Any) -> str:
        seen.append({k: kw[k] for k in ("actors", "batch_size", "address")})
        return "ran"

    monkeypatch.setattr(ray_executor, "ray_evaluate", stand_in)
    out = tmp_path / "o"
    assert ragmeter.evaluate(str(data), ["token_f1"], executor="ray", out=out) == "ran"
    given = {"actors": 3, "batch_size": 7, "ray_address": "auto"}
    assert ragmeter.evaluate(str(data), ["token_f1"], executor="ray", out=out, **given) == "ran"
    assert seen == [
        {"actors": 2, "batch_size": 256, "address": None},
        {"actors": 3, "batch_size": 7, "address": "auto"},
    ]


# ---- the CLI -----------------------------------------------------------------------------


def _cli(data: Path, *extra: str) -> Any:
    args = ["evaluate", str(data), "-m", "token_f1", "--judge", "none", *extra]
    return CliRunner().invoke(app, args, env={"COLUMNS": "200"})


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("dry", [[], ["--dry-run"]])
@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (
            ["--ray-address", "10.0.0.1:6379"],
            "--ray-address applies to --executor ray only, not --executor local: add "
            "--executor ray, or leave --ray-address out",
        ),
        (["--actors", "2"], "--actors applies to --executor ray only, not --executor local"),
        (
            ["--executor", "stream", "--actors", "2", "--ray-address", "auto"],
            "--ray-address and --actors apply to --executor ray only, not --executor stream: "
            "add --executor ray, or leave --ray-address and --actors out",
        ),
        (
            ["--batch-size", "10000"],
            "--batch-size applies to --executor stream or ray only, not --executor local: add "
            "--executor stream or ray, or leave --batch-size out",
        ),
    ],
)
def test_the_cli_refuses_an_option_its_executor_does_not_read(
    data: Path, tmp_path: Path, extra: list[str], said: str, dry: list[str]
) -> None:
    out = tmp_path / "out"
    res = _cli(data, "-o", str(out), *extra, *dry)
    assert res.exit_code == 2, res.output
    assert said in _flat(res.output)
    assert not out.exists()
    assert "dry run" not in res.output  # no estimate was printed


def test_the_cli_refuses_before_by_reads_the_input(tmp_path: Path) -> None:
    """--by loads the whole input to check its column: the refusal comes first."""
    res = _cli(tmp_path / "absent.jsonl", "--by", "category", "--ray-address", "auto")
    assert res.exit_code == 2, res.output
    assert "--ray-address applies to --executor ray only" in _flat(res.output)


def test_the_cli_takes_batch_size_for_stream(data: Path, tmp_path: Path) -> None:
    res = _cli(data, "-o", str(tmp_path / "o"), "--executor", "stream", "--batch-size", "2")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o" / "scores.jsonl").exists()


# ---- the Ray address check: one, and no Ray imported ---------------------------------------


def test_the_address_check_imports_no_ray(tmp_path: Path) -> None:
    """The dry run checks ``--ray-address`` with the ray executor's own check and must work
    without the ray extra: neither imports Ray."""
    require_module("ray.data")  # installed, so that not importing it means something
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(make_row(1)) + "\n")
    code = f"""
import sys
import ragmeter
from ragmeter.errors import ConfigError
from ragmeter.executors import _ray_cluster
try:
    ragmeter.dry_run({str(data)!r}, "token_f1", {{"judge": "none"}}, executor="ray",
                     out={str(tmp_path / "o")!r}, ray_address="head")
except ConfigError as exc:
    print(exc)
print("ray imported" if "ray" in sys.modules else "no ray")
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    assert "--ray-address 'head' is not a Ray address" in done.stdout, done.stdout + done.stderr
    assert done.stdout.strip().endswith("no ray"), done.stdout


def test_the_dry_run_has_no_copy_of_the_address_rule(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It asks the ray executor's own check (a copy of the rule had to be kept in step)."""
    require_module("ray.data")  # else the dry run refuses executor="ray" first
    from ragmeter.executors import _ray_cluster

    asked: list[str | None] = []

    def spy(address: str | None) -> Any:
        asked.append(address)
        return _ray_cluster.address_form(address)

    monkeypatch.setattr(sys.modules["ragmeter.dry_run"], "address_form", spy)
    ragmeter.dry_run(
        data, "token_f1", {"judge": "none"}, executor="ray", out=tmp_path / "o", ray_address="h:1"
    )
    assert asked == ["h:1"]


def test_by_with_another_executor_points_to_slicing_the_run_afterwards(
    data: Path, tmp_path: Path
) -> None:
    res = _cli(data, "-o", str(tmp_path / "o"), "--executor", "stream", "--by", "category")
    assert res.exit_code == 2, res.output
    said = _flat(res.output)
    assert "--by needs the scores in memory" in said
    assert "ragmeter report OUT --by category" in said
