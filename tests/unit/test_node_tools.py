"""The Node tooling helper of the tests that type-check ``mnemex.ts`` and drive the MCP Inspector FAILS, never skips."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration.mcp import node_tools


def test_missing_node_or_npm_fails_with_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/node" if name == "node" else None)
    with pytest.raises(pytest.fail.Exception) as failed:
        node_tools.require_node()
    assert "npm not installed" in str(failed.value) and "apt-get install nodejs npm" in str(failed.value)


def test_a_registry_time_out_fails_and_says_what_to_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setenv("MNEMEX_NODE_TOOLS", str(tmp_path))

    def hang(command: list[str], *, timeout: float, **_kwargs: object) -> subprocess.CompletedProcess[str]:
        raise subprocess.TimeoutExpired(command, timeout)

    monkeypatch.setattr(subprocess, "run", hang)
    with pytest.raises(pytest.fail.Exception) as failed:
        node_tools.ensure_packages(("left-pad@1.3.0",), "left-pad/package.json", timeout=3.0)
    message = str(failed.value)
    assert "timed out after 3 s" in message and "registry" in message
    assert f"npm install --no-audit --no-fund --prefix {tmp_path} left-pad@1.3.0" in message


def test_a_failed_install_fails_with_npms_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setenv("MNEMEX_NODE_TOOLS", str(tmp_path))
    monkeypatch.setattr(
        subprocess,
        "run",
        lambda command, **kwargs: subprocess.CompletedProcess(command, 1, "", "npm error 404 Not Found"),
    )
    with pytest.raises(pytest.fail.Exception) as failed:
        node_tools.ensure_packages(("left-pad@1.3.0",), "left-pad/package.json")
    assert "failed (exit 1)" in str(failed.value) and "404 Not Found" in str(failed.value)
