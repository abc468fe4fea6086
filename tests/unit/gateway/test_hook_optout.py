"""The hooks honour the opt-outs from local files only, and say once when their install is gone."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

HOOKS = Path(__file__).resolve().parents[3] / "hooks"
sys.path.insert(0, str(HOOKS))

import hook_client  # noqa: E402
import hook_main  # noqa: E402

from kernel import optout  # noqa: E402


def prompt(cwd: Path, session: str = "s-1") -> bytes:
    return json.dumps({"session_id": session, "cwd": str(cwd), "prompt": "how do we deploy?"}).encode()


def listening_env(tmp_path: Path) -> tuple[socket.socket, dict[str, str]]:
    """A real listening socket as the gateway address: a hook that sends anything connects to it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.setblocking(False)
    port = server.getsockname()[1]
    env = {
        "MNEMEX_HOME": str(tmp_path / "data"),
        "MNEMEX_GATEWAY_URL": f"http://127.0.0.1:{port}",
        "MNEMEX_HOOK_TIMEOUT": "0.3",
        "MNEMEX_HOOK_AUTOSTART": "0",
    }
    return server, env


def connections(server: socket.socket) -> int:
    count = 0
    while True:
        try:
            conn, _ = server.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


def test_an_excluded_directory_sends_nothing_and_injects_nothing(tmp_path: Path) -> None:
    project = tmp_path / "client-work"
    (project / "src").mkdir(parents=True)
    server, env = listening_env(tmp_path)
    optout.save(Path(env["MNEMEX_HOME"]), optout.OptOut(excluded=[str(project.resolve())]))
    assert hook_main.run("prompt", "claude", prompt(project / "src"), env=env) == ""
    assert connections(server) == 0
    hook_main.run("prompt", "claude", prompt(tmp_path), env=env)  # elsewhere the hook does reach the gateway
    assert connections(server) == 1
    server.close()


def test_a_committed_marker_file_excludes_the_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "a" / "b").mkdir(parents=True)
    (repo / ".mnemex-ignore").write_text("")
    server, env = listening_env(tmp_path)
    assert hook_main.run("prompt", "claude", prompt(repo / "a" / "b"), env=env) == ""
    assert connections(server) == 0
    server.close()


def test_a_paused_session_sends_nothing_while_others_do(tmp_path: Path) -> None:
    server, env = listening_env(tmp_path)
    optout.save(Path(env["MNEMEX_HOME"]), optout.OptOut(paused_sessions=["s-1"]))
    hook_main.run("prompt", "claude", prompt(tmp_path, "s-1"), env=env)
    assert connections(server) == 0
    hook_main.run("prompt", "claude", prompt(tmp_path, "s-2"), env=env)
    assert connections(server) == 1
    optout.save(Path(env["MNEMEX_HOME"]), optout.OptOut(paused=True))
    hook_main.run("prompt", "claude", prompt(tmp_path, "s-2"), env=env)
    assert connections(server) == 0
    server.close()


def test_the_hook_reader_and_the_cli_writer_agree_on_the_file(tmp_path: Path) -> None:
    env = {"MNEMEX_HOME": str(tmp_path)}
    path = optout.save(tmp_path, optout.OptOut(excluded=[str(tmp_path / "x")]))
    assert hook_client.optout_path(env) == str(path)
    assert hook_client.opted_out(str(tmp_path / "x" / "y"), "", env)
    assert not hook_client.opted_out(str(tmp_path / "xy"), "", env)


def test_a_gone_install_is_reported_once_on_stderr(tmp_path: Path) -> None:
    said: list[str] = []
    command = [str(tmp_path / "deleted-venv" / "bin" / "python"), "-m", "mnemex.cli", "up", "--detach"]
    assert hook_client.notice_missing_install(str(tmp_path / "run"), command, said.append)
    assert not hook_client.notice_missing_install(str(tmp_path / "run"), command, said.append)
    assert len(said) == 1 and "mnemex uninstall" in said[0] and "deleted-venv" in said[0]
    assert not hook_client.notice_missing_install(str(tmp_path / "run2"), [sys.executable, "-m", "x"], said.append)


def test_the_gateway_refuses_hook_requests_for_an_excluded_project_or_paused_session(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from gateway.app import create_app
    from tests.support.dead_backends import dead_settings

    home, project = tmp_path / "data", tmp_path / "private"
    (project / "src").mkdir(parents=True)
    optout.save(home, optout.OptOut(excluded=[str(project.resolve())], paused_sessions=["p-1"]))
    with TestClient(create_app(dead_settings(home)), base_url="http://127.0.0.1") as client:
        inside = {"session_id": "s-1", "cwd": str(project / "src"), "prompt": "x"}
        refused = client.post("/api/hooks/get-context", json=inside)
        assert refused.status_code == 403 and "--exclude" in refused.text
        stop = client.post("/api/hooks/stop", json={**inside, "assistant_text": "an answer"})
        assert stop.status_code == 403
        paused = client.post("/api/hooks/get-context", json={**inside, "session_id": "p-1", "cwd": str(tmp_path)})
        assert paused.status_code == 403 and "paused" in paused.text
        elsewhere = client.post("/api/hooks/get-context", json={**inside, "cwd": str(tmp_path)})
        assert elsewhere.status_code == 200  # fail-soft as before: backends are down, the hook still gets an answer


def test_the_gateways_cached_reader_sees_every_change_of_the_file(tmp_path: Path) -> None:
    import os
    import time

    reader = optout.OptOutReader()
    assert reader.load(tmp_path).empty
    path = optout.save(tmp_path, optout.OptOut(paused_sessions=["aaaa"]))
    long_ago = time.time() - 60
    os.utime(path, (long_ago, long_ago))
    first = reader.load(tmp_path)
    assert first.paused_sessions == ["aaaa"] and reader.load(tmp_path) is first  # unchanged: not read again
    optout.save(tmp_path, optout.OptOut(paused_sessions=["bbbb"]))  # the same size, written just now
    assert reader.load(tmp_path).paused_sessions == ["bbbb"]
    optout.save(tmp_path, optout.OptOut())  # nothing opted out: the file is removed
    assert reader.load(tmp_path).empty
