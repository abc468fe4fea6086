"""Hook scripts as real processes with no gateway: exit 0, print nothing, stay in bound."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

HOOKS = Path(__file__).resolve().parents[3] / "hooks"
PROMPT = {
    "session_id": "9f2c-down",
    "transcript_path": "/tmp/none.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "UserPromptSubmit",
    "prompt": "how do I run the tests?",
}


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_hook(
    script: str, stdin: bytes, env: dict[str, str], *args: str
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-S", str(HOOKS / script), *args], input=stdin, env=env, capture_output=True, timeout=10
    )
    return result, time.monotonic() - started


@pytest.fixture
def env(isolated_home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "MNEMEX_HOME": str(isolated_home),
        "MNEMEX_GATEWAY_PORT": str(closed_port()),
        "MNEMEX_HOOK_AUTOSTART": "0",
    }


@pytest.mark.parametrize(
    ("script", "payload"),
    [
        ("user_prompt_submit.py", PROMPT),
        ("stop.py", {**PROMPT, "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "done"}),
        ("session_start.py", {**PROMPT, "hook_event_name": "SessionStart", "source": "startup"}),
        ("pre_compact.py", {**PROMPT, "hook_event_name": "PreCompact", "trigger": "auto"}),
        (
            "post_tool_use.py",
            {
                **PROMPT,
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "pytest"},
                "tool_response": {"stdout": "1 passed"},
            },
        ),
    ],
)
def test_every_hook_exits_0_silently_when_the_stack_is_down(
    script: str, payload: dict[str, object], env: dict[str, str]
) -> None:
    result, elapsed = run_hook(script, json.dumps(payload).encode(), env)
    assert result.returncode == 0
    assert result.stdout == b""
    assert elapsed < 2.0


@pytest.mark.parametrize(
    "stdin", [b"", b"\x00\x01\xff" * 1000, b"{not json", b"[]", b"{" * 200_000, b"x" * (5 * 1024 * 1024)]
)
def test_malformed_stdin_exits_0_quickly(stdin: bytes, env: dict[str, str]) -> None:
    result, elapsed = run_hook("user_prompt_submit.py", stdin, env)
    assert result.returncode == 0 and result.stdout == b""
    assert elapsed < 2.0


@pytest.fixture
def silent_gateway() -> Iterator[int]:
    """Accepts connections and never answers: the hang the hook must survive."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                held.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(server.getsockname()[1])
    stop.set()
    thread.join(2)
    for conn in held:
        conn.close()
    server.close()


def test_a_hanging_gateway_costs_at_most_the_timeout(env: dict[str, str], silent_gateway: int) -> None:
    env = {**env, "MNEMEX_GATEWAY_PORT": str(silent_gateway), "MNEMEX_HOOK_TIMEOUT": "0.5"}
    result, elapsed = run_hook("user_prompt_submit.py", json.dumps(PROMPT).encode(), env)
    assert result.returncode == 0 and result.stdout == b""
    assert 0.4 < elapsed < 1.5


def test_circuit_opens_after_repeated_timeouts(env: dict[str, str], isolated_home: Path, silent_gateway: int) -> None:
    env = {**env, "MNEMEX_GATEWAY_PORT": str(silent_gateway), "MNEMEX_HOOK_TIMEOUT": "0.2"}
    stdin = json.dumps(PROMPT).encode()
    for _ in range(3):
        run_hook("user_prompt_submit.py", stdin, env)
    state = next((isolated_home / "run").glob("circuit-*.json"))
    open_until = float(state.read_text().split()[0])
    assert open_until > time.time() + 20
    result, elapsed = run_hook("user_prompt_submit.py", stdin, env)
    assert result.returncode == 0 and result.stdout == b""
    assert elapsed < 0.2, "an open circuit must skip the gateway, not wait for its timeout"


def test_refused_connections_never_open_the_circuit(env: dict[str, str], isolated_home: Path) -> None:
    stdin = json.dumps(PROMPT).encode()
    for _ in range(5):
        result, _ = run_hook("user_prompt_submit.py", stdin, env)
        assert result.returncode == 0 and result.stdout == b""
    assert not list((isolated_home / "run").glob("circuit-*.json")), "a refusal (~1 ms) tripped the breaker"


def test_unreachable_gateway_starts_the_stack_once(env: dict[str, str], tmp_path: Path) -> None:
    marker = tmp_path / "starts.log"
    env = {
        **env,
        "MNEMEX_HOOK_AUTOSTART": "1",
        "MNEMEX_HOOK_START_CMD": f"{sys.executable} -c \"open(r'{marker}', 'a').write('start\\n')\"",
    }
    stdin = json.dumps(PROMPT).encode()
    for _ in range(2):
        result, elapsed = run_hook("user_prompt_submit.py", stdin, env)
        assert result.returncode == 0 and result.stdout == b"" and elapsed < 2.0
    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)
    assert marker.read_text() == "start\n"
