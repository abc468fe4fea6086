"""Hooks installed by `mnemex init`, run the way a client runs them: an almost empty environment.

The hook process gets only HOME and PATH (``env -i HOME=... PATH=...``), yet it
reaches the gateway port and token of the shell `init` ran in, through the
connection file beside the hook copies.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.integration.client_setup.fake_gateway import FAKE_CONTEXT, fake_gateway
from tests.support.json_read import json_at

ROOT = Path(__file__).resolve().parents[3]


def cli(home: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MNEMEX_", "XDG_"))}
    full = {**base, "HOME": str(home), "PYTHONPATH": str(ROOT), "COLUMNS": "200", **env}
    return subprocess.run(
        [sys.executable, "-m", "mnemex.cli", *args], env=full, capture_output=True, text=True, timeout=60, check=False
    )


def hook_command(home: Path, event: str = "UserPromptSubmit") -> list[str]:
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    return shlex.split(settings["hooks"][event][0]["hooks"][0]["command"])


def prompt_payload(project: Path) -> str:
    return json.dumps(
        {
            "session_id": "s-1",
            "transcript_path": "",
            "cwd": str(project),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "when does the billing job run?",
        }
    )


def test_a_hook_with_a_minimal_environment_reaches_the_recorded_port_with_the_token(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "stack-data"
    home.mkdir()
    with fake_gateway() as gateway:
        done = cli(
            home,
            {"MNEMEX_HOME": str(data), "MNEMEX_GATEWAY_PORT": str(gateway.port), "MNEMEX_TOKEN": "tok-123"},
            "init",
            "--client",
            "claude",
        )
        assert done.returncode == 0, done.stdout + done.stderr
        command = hook_command(home)
        assert str(ROOT) not in " ".join(command) and ".venv" not in " ".join(command)
        run = subprocess.run(
            command,
            input=prompt_payload(home),
            env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert run.returncode == 0, run.stderr
    assert FAKE_CONTEXT in run.stdout
    (request,) = gateway.requests
    assert request.path == "/api/hooks/get-context"
    assert request.headers.get("Authorization") == "Bearer tok-123"
    assert json_at(request.body, "prompt") == "when does the billing job run?"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_autostart_runs_the_recorded_start_command_from_the_users_home(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "stack-data"
    home.mkdir()
    port = free_port()  # nothing listens: the hook's POST is refused, so it starts the stack
    done = cli(home, {"MNEMEX_HOME": str(data), "MNEMEX_GATEWAY_PORT": str(port)}, "init")
    assert done.returncode == 0, done.stdout + done.stderr
    connection_file = data / "client" / "connection.json"
    recorded = json.loads(connection_file.read_text())
    assert Path(recorded["start_command"][0]).exists() and recorded["start_command"][1:] == ["up", "--detach"]
    # Swap in a start command that reports where and with which stack it ran.
    marker = tmp_path / "started.json"
    probe = (
        "import json, os; json.dump({'cwd': os.getcwd(), 'home': os.environ.get('MNEMEX_HOME'), "
        f"'port': os.environ.get('MNEMEX_GATEWAY_PORT')}}, open({str(marker)!r}, 'w'))"
    )
    recorded["start_command"] = [sys.executable, "-c", probe]
    connection_file.write_text(json.dumps(recorded))
    run = subprocess.run(
        hook_command(home),
        input=prompt_payload(home),
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert run.returncode == 0 and run.stdout == ""
    deadline = time.monotonic() + 10
    while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    started = json.loads(marker.read_text())
    assert started == {"cwd": str(home), "home": str(data), "port": str(port)}
