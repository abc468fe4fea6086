"""``mnemex logs``: the last lines of each log (the rotated copy included), JSON for scripts, clear refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemex.cli import app, logs_command

runner = CliRunner()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    logs = tmp_path / "data" / "logs"
    logs.mkdir(parents=True)
    (logs / "gateway.log.1").write_text("".join(f"old {n}\n" for n in range(5)))
    (logs / "gateway.log").write_text("new 0\nnew 1\n")
    (logs / "kg.log").write_text("kg ready\n")
    return tmp_path / "data"


def test_the_last_lines_reach_into_the_rotated_copy(home: Path) -> None:
    assert logs_command.last_lines(home / "logs" / "gateway.log", 4) == ["old 3", "old 4", "new 0", "new 1"]
    assert logs_command.last_lines(home / "logs" / "memory.log", 4) == []


def test_json_lists_every_log_and_one_name_narrows_it(home: Path) -> None:
    env = {"MNEMEX_HOME": str(home)}
    every = json.loads(runner.invoke(app, ["logs", "--json", "-n", "2"], env=env).output)
    assert every["logs"]["gateway"] == ["new 0", "new 1"] and every["logs"]["kg"] == ["kg ready"]
    assert every["logs"]["memory"] == []
    one = runner.invoke(app, ["logs", "kg"], env=env)
    assert one.exit_code == 0 and "kg ready" in one.output and "new 1" not in one.output


def test_an_unknown_log_and_an_empty_home_are_explained(tmp_path: Path) -> None:
    env = {"MNEMEX_HOME": str(tmp_path / "empty")}
    wrong = runner.invoke(app, ["logs", "gatway"], env=env)
    assert wrong.exit_code == 2 and "choose from gateway" in wrong.output
    empty = runner.invoke(app, ["logs"], env=env)
    assert empty.exit_code == 0 and "no logs yet" in empty.output and "mnemex up" in empty.output
