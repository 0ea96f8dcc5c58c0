"""The dry run checks ``--ray-address`` as the ray executor does before it connects, and
connects to nothing: it took any address ("head") and gave its estimate, and the run then
stopped at once on it."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from tests.needs import require_module
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.errors import ConfigError

MALFORMED = ["head", "ray:/head:10001", "head:port", ":6379", "ray://head:10001/x", "head:"]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    require_module("ray.data")
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(3)))
    return path


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the dry run connected to something")

    monkeypatch.setattr(socket, "create_connection", refuse)


def _dry(data: Path, address: str, out: Path) -> Any:
    args = ["evaluate", str(data), "--dry-run", "--executor", "ray", "-o", str(out)]
    args += ["--judge", "none", "--embedder", "none", "-m", "token_f1"]
    return CliRunner().invoke(app, [*args, "--ray-address", address], env={"COLUMNS": "200"})


@pytest.mark.parametrize("address", MALFORMED)
def test_the_dry_run_refuses_what_is_no_ray_address(
    data: Path, tmp_path: Path, address: str, no_network: None
) -> None:
    res = _dry(data, address, tmp_path / "out")
    assert res.exit_code == 2, res.output
    assert f"--ray-address {address!r} is not a Ray address" in res.output


@pytest.mark.parametrize("address", ["127.0.0.1:9", "ray://nohost.invalid:10001", "auto"])
def test_a_ray_address_of_good_form_is_not_connected_to(
    data: Path, tmp_path: Path, address: str, no_network: None
) -> None:
    res = _dry(data, address, tmp_path / "out")
    assert res.exit_code == 0, res.output
    assert "estimated" in res.output and not (tmp_path / "out").exists()


@pytest.mark.parametrize("address", MALFORMED)
def test_the_dry_run_says_what_the_run_says(data: Path, tmp_path: Path, address: str) -> None:
    from ragmeter.executors._ray_cluster import check_address

    with pytest.raises(ConfigError) as run:
        check_address(address)
    with pytest.raises(ConfigError) as dry:
        ragmeter.dry_run(
            data, "token_f1", {"judge": "none"}, executor="ray", out=tmp_path, ray_address=address
        )
    assert str(dry.value) == str(run.value)
