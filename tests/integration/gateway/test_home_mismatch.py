"""A CLI pointed at one home never reads another home's memories without saying so (issue 37, item 1):
every gateway reply names its home (X-Mnemex-Home), and the CLI's gateway client compares it."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.config import Settings, home_id
from kernel.json_values import as_object
from mnemex.cli.gateway_client import GatewayClient
from mnemex.cli.output import CliFailure
from tests.integration.gateway.live_stack import LiveStack


def cli_settings(home: Path, url: str) -> Settings:
    return Settings.from_env({"MNEMEX_HOME": str(home), "MNEMEX_GATEWAY_ADDR": url.removeprefix("http://")})


def test_every_reply_names_the_home_it_serves(live: LiveStack) -> None:
    assert live.client.get("/api/health").headers["x-mnemex-home"] == home_id(live.home)
    assert live.client.post("/api/search", json={}).headers["x-mnemex-home"] == home_id(live.home)  # a 422 too


def test_a_mistyped_home_is_refused_and_the_right_one_answers(
    live: LiveStack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    typo = tmp_path / "mnemex-dta"
    monkeypatch.setenv("MNEMEX_HOME", str(typo))
    with pytest.raises(CliFailure) as refused:
        GatewayClient(cli_settings(typo, live.url)).get("/api/projects")
    assert "does not exist" in refused.value.message and "typo" in refused.value.message
    assert not typo.exists()
    monkeypatch.setenv("MNEMEX_HOME", str(live.home))
    assert "projects" in as_object(GatewayClient(cli_settings(live.home, live.url)).get("/api/projects"))


def test_status_of_a_mistyped_home_names_the_other_homes_stack(live: LiveStack, tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from mnemex.cli import app

    env = {"MNEMEX_HOME": str(tmp_path / "mnemex-dta"), "MNEMEX_GATEWAY_ADDR": live.url.removeprefix("http://")}
    shown = CliRunner().invoke(app, ["status"], env=env)
    assert shown.exit_code == 1 and "a mnemex stack of another home answers" in shown.output
    report = json.loads(CliRunner().invoke(app, ["status", "--json"], env=env).output)
    assert report["other_home_at"] == live.url
    own = json.loads(CliRunner().invoke(app, ["status", "--json"], env={**env, "MNEMEX_HOME": str(live.home)}).output)
    assert own.get("other_home_at") is None
