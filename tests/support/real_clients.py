"""The real coding-assistant binaries, run headless against fake model servers on loopback.

``scripts/install.sh --dev`` installs them from npm into ``tests/e2e/node_modules``
(pinned in ``tests/e2e/package.json``). Without node, npm or the install, every
e2e test fails with a message that says what to run: it never skips silently.

Each run gets an environment a user's client would have: ``HOME`` (where
``mnemex init`` wrote its configuration), ``PATH`` and the client's own
settings, and no ``MNEMEX_*`` variable, so the hooks and the MCP server must
find the user's stack from what ``init`` wrote.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from kernel.json_values import JSONObject, parse_object

E2E_DIR = Path(__file__).resolve().parents[1] / "e2e"
NODE_MODULES = E2E_DIR / "node_modules"
CLAUDE_BIN = NODE_MODULES / "@anthropic-ai" / "claude-code-linux-x64" / "claude"
OPENCODE_BIN = NODE_MODULES / ".bin" / "opencode"
OPENAI_PROVIDER = NODE_MODULES / "@ai-sdk" / "openai-compatible"
INSTALL_HINT = "run `scripts/install.sh --dev` (it needs node and npm: `apt-get install nodejs npm`)"


def require(binary: Path) -> Path:
    if not shutil.which("node"):
        pytest.fail(f"node is not installed; the end-to-end tests drive real clients from npm: {INSTALL_HINT}")
    if not binary.exists():
        pytest.fail(f"{binary.relative_to(E2E_DIR)} is missing: {INSTALL_HINT}")
    return binary


def base_env(home: Path) -> dict[str, str]:
    """What a client started from a desktop or a fresh shell has: no mnemex settings at all."""
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TMPDIR": str(home / "tmp"),
    }


@dataclass
class Turn:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def json(self) -> JSONObject:
        return parse_object(self.stdout)

    def session_id(self) -> str:
        """The session ``claude -p --output-format json`` reports; a turn without one fails the test."""
        session = self.json().get("session_id")
        assert isinstance(session, str) and session, self.stdout[-2000:]
        return session


def _run(command: list[str], env: dict[str, str], cwd: Path, timeout: float) -> Turn:
    (Path(env["HOME"]) / "tmp").mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    proc = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    return Turn(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started)


@dataclass
class ClaudeCode:
    """``claude -p`` against an Anthropic Messages API fake (``ANTHROPIC_BASE_URL``)."""

    home: Path
    model_url: str

    def env(self) -> dict[str, str]:
        return {
            **base_env(self.home),
            "ANTHROPIC_BASE_URL": self.model_url,
            "ANTHROPIC_API_KEY": "sk-e2e-fake",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "ENABLE_TOOL_SEARCH": "false",  # offer MCP tools to the model directly, not behind ToolSearch
        }

    def run(
        self, prompt: str, cwd: Path, *, resume: str | None = None, timeout: float = 120, allowed_tools: str = ""
    ) -> Turn:
        command = [str(require(CLAUDE_BIN)), "-p", prompt, "--output-format", "json"]
        if resume:
            command += ["--resume", resume]
        if allowed_tools:  # e.g. "Bash": -p mode denies tools that would ask for permission
            command += ["--allowedTools", allowed_tools]
        return _run(command, self.env(), cwd, timeout)


MODEL_ID = "fake-model"


def opencode_config(model_url: str) -> dict[str, object]:
    """A provider on the fake OpenAI server, loaded from the pre-installed package (no download)."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": f"fake/{MODEL_ID}",
        "small_model": f"fake/{MODEL_ID}",
        "provider": {
            "fake": {
                "npm": OPENAI_PROVIDER.as_uri(),
                "name": "Fake",
                "options": {"baseURL": model_url + "/v1", "apiKey": "sk-e2e-fake"},
                "models": {MODEL_ID: {"name": "Fake", "tool_call": True}},
            }
        },
    }


@dataclass
class OpenCode:
    """``opencode run`` with a custom OpenAI-compatible provider on loopback."""

    home: Path
    model_url: str

    @property
    def config_file(self) -> Path:
        return self.home / ".config" / "opencode" / "opencode.json"

    def write_config(self) -> None:
        """The user's own configuration, written before ``mnemex init`` merges into it."""
        require(OPENAI_PROVIDER)
        self.config_file.parent.mkdir(parents=True, exist_ok=True)
        self.config_file.write_text(json.dumps(opencode_config(self.model_url), indent=2) + "\n")

    def env(self) -> dict[str, str]:
        return {
            **base_env(self.home),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        }

    def run(self, prompt: str, cwd: Path, *, session: str | None = None, timeout: float = 180) -> Turn:
        command = [str(require(OPENCODE_BIN)), "run", prompt, "--format", "json"]
        if session:
            command += ["--session", session]
        return _run(command, self.env(), cwd, timeout)


def session_of(turn: Turn) -> str:
    for line in turn.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        session = event.get("sessionID") or (event.get("part") or {}).get("sessionID")
        if session:
            return str(session)
    raise AssertionError(f"no session id in opencode's output: {turn.stdout[-2000:]}")
