"""A whole stack (its four processes, started by `mnemex up --detach`), driven through the CLI."""

from __future__ import annotations

import contextlib
import json
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from kernel.json_values import JSONObject
from mnemex.cli import app
from tests.support.json_read import parse_json_object
from tests.support.supervisor import cli, log_tails, stack_env


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

    def invoke_json(self, cwd: Path, *args: str) -> JSONObject:
        """The JSON object ``mnemex ARGS --json`` prints (the command must succeed)."""
        result = self.invoke(cwd, *args, "--json")
        assert result.exit_code == 0, result.output
        return parse_json_object(result.stdout)

    def post(self, path: str, body: Mapping[str, object]) -> JSONObject:
        """POST JSON to the gateway; its JSON object reply."""
        request = urllib.request.Request(
            self.gateway_url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=60) as reply:
            return parse_json_object(reply.read().decode("utf-8"))


def start_stack(home: Path) -> RunningStack:
    """A whole stack (its four processes) with its own data and internal credential in ``home``."""
    env = stack_env(home)
    started = cli(env, "up", "--detach")
    if started.returncode != 0:
        cli(env, "down")
        pytest.fail(f"mnemex up --detach failed:\n{started.stdout}\n{started.stderr}\n{log_tails(home)}")
    return RunningStack(home, env)
