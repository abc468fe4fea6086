"""Hostile stdin and hostile gateways: every hook script exits 0, quickly, printing nothing.

Each of the five scripts, for both clients, is fed empty, non-JSON, binary,
huge, deeply nested, wrongly typed and never-closed stdin; then valid
events against gateways that hang, trickle, answer garbage, lie about
Content-Length or flood the hook with output.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.hookrun import (
    EXIT_BOUND_S,
    HOOKS,
    SCRIPTS,
    claude_turn,
    closed_port,
    hook_env,
    run_hook,
)

MALFORMED: dict[str, bytes] = {
    "empty": b"",
    "whitespace": b" \n\t\r\n",
    "not-json": b"please remember that I like tabs",
    "truncated-json": b'{"session_id": "abc", "prompt": "how do I',
    "binary": bytes(range(256)) * 64,
    "invalid-utf8-in-json": b'{"session_id": "s", "prompt": "\xff\xfe\xfa"}',
    "utf16-bom": '{"prompt": "hi"}'.encode("utf-16"),
    "json-array": b'[{"prompt": "hi"}]',
    "json-scalar": b"42",
    "json-null": b"null",
    "nested-200k": b"[" * 200_000,
    "nested-objects": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "wrong-types": json.dumps(
        {
            "session_id": 7,
            "cwd": ["/x"],
            "prompt": {"text": 1},
            "tool_input": "x" * 100,
            "tool_response": 3.5,
            "last_assistant_message": None,
            "source": False,
        }
    ).encode(),
    "nan-and-huge-numbers": b'{"session_id": NaN, "prompt": 1e999999, "cwd": -Infinity}',
    "huge-5mb": b'{"prompt": "' + b"a" * (5 * 1024 * 1024) + b'"}',
}


@pytest.fixture
def dead_env(tmp_path: Path) -> dict[str, str]:
    return hook_env(tmp_path, closed_port())


@pytest.mark.parametrize("client", ["claude", "cursor"])
@pytest.mark.parametrize("event", sorted(SCRIPTS))
def test_every_script_survives_every_malformed_stdin(event: str, client: str, dead_env: dict[str, str]) -> None:
    args = ("--client", "cursor") if client == "cursor" else ()
    slow = []
    for name, stdin in MALFORMED.items():
        run = run_hook(event, stdin, dead_env, *args)
        assert run.returncode == 0, (name, run.stderr[-500:])
        assert run.stdout == "", (name, run.stdout[:200])
        assert "Traceback" not in run.stderr, (name, run.stderr[-500:])
        if run.elapsed >= EXIT_BOUND_S:
            slow.append((name, round(run.elapsed, 2)))
    assert not slow, f"{event}: slower than {EXIT_BOUND_S} s: {slow}"


def test_stdin_that_never_closes_still_exits_0_within_the_hook_timeout(tmp_path: Path) -> None:
    env = hook_env(tmp_path, closed_port(), MNEMEX_HOOK_TIMEOUT="1")
    proc = subprocess.Popen(
        [sys.executable, "-S", str(HOOKS / SCRIPTS["prompt"])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    started = time.monotonic()
    assert proc.stdin is not None
    proc.stdin.write(b'{"session_id": "open", "prompt": "still typing')
    proc.stdin.flush()
    try:
        code = proc.wait(timeout=EXIT_BOUND_S + 2)
    finally:
        proc.kill()
        proc.stdin.close()
        out = proc.stdout.read() if proc.stdout else b""
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
    assert code == 0 and out == b""
    assert time.monotonic() - started < EXIT_BOUND_S


# -- hostile gateways -------------------------------------------------------
Behaviour = Callable[[socket.socket], None]


def _read_request(conn: socket.socket) -> bytes:
    conn.settimeout(2)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return data


def _hang(conn: socket.socket) -> None:
    _read_request(conn)
    time.sleep(6)


def _trickle(conn: socket.socket) -> None:
    _read_request(conn)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
    for _ in range(60):
        conn.sendall(b" ")
        time.sleep(0.1)


def _garbage(conn: socket.socket) -> None:
    _read_request(conn)
    conn.sendall(os.urandom(4096))


def _server_error(conn: socket.socket) -> None:
    _read_request(conn)
    body = b'{"context": "SHOULD NOT BE PRINTED"}'
    conn.sendall(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))


def _bad_json(conn: socket.socket) -> None:
    _read_request(conn)
    body = b'{"context": "half'
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    )


def _wrong_shape(conn: socket.socket) -> None:
    _read_request(conn)
    body = b'{"context": {"not": "a string"}, "memories": 5}'
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))


def _flood(conn: socket.socket) -> None:
    _read_request(conn)
    body = json.dumps({"context": "x" * (3 * 1024 * 1024)}).encode()
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body))
    try:
        conn.sendall(body)
    except OSError:
        pass


def _bad_chunked(conn: socket.socket) -> None:
    _read_request(conn)
    conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n{}\r\n0\r\n\r\n")


def _reset(conn: socket.socket) -> None:
    _read_request(conn)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")


HOSTILE: dict[str, tuple[Behaviour, bool]] = {
    # name: (behaviour, output allowed)
    "hangs": (_hang, False),
    "trickles-bytes": (_trickle, False),
    "random-bytes": (_garbage, False),
    "http-500": (_server_error, False),
    "truncated-json": (_bad_json, False),
    "context-not-a-string": (_wrong_shape, False),
    "3mb-context": (_flood, True),
    "bad-chunked-encoding": (_bad_chunked, False),
    "connection-reset": (_reset, False),
}


@pytest.fixture
def hostile_gateway() -> Iterator[Callable[[Behaviour], int]]:
    servers: list[tuple[socket.socket, threading.Event]] = []

    def start(behaviour: Behaviour) -> int:
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.settimeout(0.1)
        stop = threading.Event()

        def loop() -> None:
            while not stop.is_set():
                try:
                    conn, _ = server.accept()
                except OSError:
                    continue
                threading.Thread(target=_serve_one, args=(behaviour, conn), daemon=True).start()

        threading.Thread(target=loop, daemon=True).start()
        servers.append((server, stop))
        return int(server.getsockname()[1])

    yield start
    for server, stop in servers:
        stop.set()
        server.close()


def _serve_one(behaviour: Behaviour, conn: socket.socket) -> None:
    try:
        behaviour(conn)
    except OSError:
        pass
    finally:
        conn.close()


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_prompt_hook_survives_a_hostile_gateway(
    name: str, hostile_gateway: Callable[[Behaviour], int], tmp_path: Path
) -> None:
    behaviour, may_print = HOSTILE[name]
    env = hook_env(tmp_path, hostile_gateway(behaviour), MNEMEX_HOOK_TIMEOUT="1")
    run = run_hook("prompt", claude_turn("prompt", "hostile-1", str(tmp_path)), env)
    assert run.returncode == 0, run.stderr[-500:]
    assert run.elapsed < 1.0 + 1.5, f"{name}: took {run.elapsed:.2f} s"
    if may_print:
        assert len(run.stdout) <= 10_000, "Claude Code drops hook output past 10,000 characters"
    else:
        assert run.stdout == "", run.stdout[:200]
