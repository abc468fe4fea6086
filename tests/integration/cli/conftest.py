"""A real mnemex stack (all four processes, started by `mnemex up --detach`) shared by the CLI tests."""

from __future__ import annotations

import contextlib
import json
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from mnemex.cli import app
from tests.integration.supervisor.helpers import alive, cli, log_tails, stack_env, state, wait_for


@dataclass
class RunningStack:
    home: Path
    env: dict[str, str]

    @property
    def gateway_url(self) -> str:
        return f"http://{self.env['MNEMEX_GATEWAY_ADDR']}"

    def invoke(self, cwd: Path, *args: str, **env: str) -> Result:
        """Run the CLI in-process (CliRunner) with this stack's environment, from ``cwd``."""
        with contextlib.chdir(cwd):
            return CliRunner().invoke(app, list(args), env={**self.env, **env})

    def invoke_json(self, cwd: Path, *args: str) -> Any:
        result = self.invoke(cwd, *args, "--json")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.gateway_url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=60) as reply:
            return json.loads(reply.read())


def start_stack(home: Path) -> RunningStack:
    """A whole stack (its four processes) with its own data and internal credential in ``home``."""
    env = stack_env(home)
    started = cli(env, "up", "--detach")
    if started.returncode != 0:
        cli(env, "down")
        pytest.fail(f"mnemex up --detach failed:\n{started.stdout}\n{started.stderr}\n{log_tails(home)}")
    return RunningStack(home, env)


@pytest.fixture(scope="package")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    running = start_stack(tmp_path_factory.mktemp("cli-stack") / "home")
    try:
        yield running
    finally:
        pids = [s["pid"] for s in state(running.home)["services"].values() if s.get("pid")]
        cli(running.env, "down")
    # A clean stop of the whole stack leaves no child behind.
    wait_for(lambda: not any(alive(pid) for pid in pids), 15, "every service to exit")
