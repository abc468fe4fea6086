"""Run the real hook scripts as subprocesses, fed realistic Claude Code / Cursor JSON.

Hooks run exactly as Claude Code runs them: ``python -S hooks/<script>.py``,
JSON on stdin, context on stdout, and the exit status is what matters.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from kernel.json_values import JSONObject

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / "hooks"
SCRIPTS = {
    "prompt": "user_prompt_submit.py",
    "stop": "stop.py",
    "session_start": "session_start.py",
    "pre_compact": "pre_compact.py",
    "post_tool_use": "post_tool_use.py",
}
# The hook's own deadline (MNEMEX_HOOK_TIMEOUT, 2 s by default) plus
# interpreter start on a loaded 2-core CI machine.
HOOK_TIMEOUT_S = 2.0
EXIT_BOUND_S = HOOK_TIMEOUT_S + 1.5


@dataclass(frozen=True)
class HookRun:
    returncode: int
    stdout: str
    stderr: str
    elapsed: float


def closed_port() -> int:
    """A loopback port nothing listens on (bound, read, released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def hook_env(home: Path, gateway_port: int, token: str = "", **extra: str) -> dict[str, str]:
    """A minimal environment like a client's: no autostart, state under ``home``."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "MNEMEX_HOME": str(home),
        "MNEMEX_GATEWAY_PORT": str(gateway_port),
        "MNEMEX_HOOK_AUTOSTART": "0",
        "MNEMEX_HOOK_TIMEOUT": str(HOOK_TIMEOUT_S),
    }
    if token:
        env["MNEMEX_TOKEN"] = token
    env.update(extra)
    return env


def run_hook(
    event: str, stdin: bytes | str | JSONObject, env: dict[str, str], *args: str, kill_after: float = 20.0
) -> HookRun:
    data = stdin if isinstance(stdin, bytes) else (stdin if isinstance(stdin, str) else json.dumps(stdin)).encode()
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-S", str(HOOKS / SCRIPTS[event]), *args],
        input=data,
        env=env,
        capture_output=True,
        timeout=kill_after,
        check=False,
    )
    return HookRun(
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
        time.monotonic() - started,
    )


def _base(event_name: str, session_id: str, cwd: str) -> JSONObject:
    return {
        "session_id": session_id,
        "transcript_path": f"/home/dev/.claude/projects/-work/{session_id}.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event_name,
    }


def claude_prompt(session_id: str, cwd: str, prompt: str) -> JSONObject:
    return {**_base("UserPromptSubmit", session_id, cwd), "prompt": prompt}


def claude_stop(session_id: str, cwd: str, answer: str) -> JSONObject:
    return {**_base("Stop", session_id, cwd), "stop_hook_active": False, "last_assistant_message": answer}


def claude_session_start(session_id: str, cwd: str, source: str = "startup") -> JSONObject:
    return {**_base("SessionStart", session_id, cwd), "source": source}


def claude_pre_compact(session_id: str, cwd: str) -> JSONObject:
    return {**_base("PreCompact", session_id, cwd), "trigger": "auto", "custom_instructions": ""}


def claude_post_tool_use(
    session_id: str,
    cwd: str,
    command: str = "pytest -q tests/unit",
    stdout: str = "........ [100%]\n8 passed in 0.41s",
    description: str = "",
) -> JSONObject:
    tool_input: JSONObject = {"command": command}
    if description:
        tool_input["description"] = description
    return {
        **_base("PostToolUse", session_id, cwd),
        "tool_name": "Bash",
        "tool_input": tool_input,
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False},
    }


def claude_turn(event: str, session_id: str, cwd: str, text: str = "how do I run the tests?") -> JSONObject:
    """A realistic payload for any of the five events."""
    if event == "prompt":
        return claude_prompt(session_id, cwd, text)
    if event == "stop":
        return claude_stop(session_id, cwd, f"Run `pytest -q`; {text}")
    if event == "session_start":
        return claude_session_start(session_id, cwd)
    if event == "pre_compact":
        return claude_pre_compact(session_id, cwd)
    return claude_post_tool_use(session_id, cwd)


def valid_context_output(text: str) -> bool:
    """What a prompt/session-start hook may print: nothing, the scoring prompt, a reminder, and/or
    one KNOWN CONTEXT block that ends the output. Never a partial block or a stray tag."""
    from gateway.formatting import CONTEXT_END, CONTEXT_START, SCORE_TAG

    if len(text) > 10_000:
        return False
    starts, ends = text.count(CONTEXT_START), text.count(CONTEXT_END)
    if (starts, ends) not in ((0, 0), (1, 1)):
        return False
    if starts and not (text.rstrip().endswith(CONTEXT_END) and text.index(CONTEXT_START) < text.index(CONTEXT_END)):
        return False
    return text.count(f"<{SCORE_TAG}>") == text.count(f"</{SCORE_TAG}>") <= 1


LOAD_EVENTS = ("prompt", "stop", "post_tool_use", "session_start")


@dataclass
class HookLoad:
    """Fires the hook scripts back to back on a thread (prompt, stop, post-tool-use, session-start) until stopped."""

    env: dict[str, str]
    cwd: str
    prompt: str
    runs: list[tuple[str, HookRun]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        def loop() -> None:
            turn = 0
            while not self._stop.is_set():
                event = LOAD_EVENTS[turn % len(LOAD_EVENTS)]
                payload = claude_turn(event, f"load-{turn // len(LOAD_EVENTS)}", self.cwd, self.prompt)
                self.runs.append((event, run_hook(event, payload, self.env)))
                turn += 1

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def wait_for(self, count: int, timeout: float = 120.0) -> None:
        end = time.monotonic() + timeout
        while len(self.runs) < count and time.monotonic() < end:
            time.sleep(0.05)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(60)
