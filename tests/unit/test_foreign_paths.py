"""Paths of other users: a home they own is refused, and a request's cwd cannot probe their files.

A home owned by another OS user let that user rename ``logs/`` or open the
home while the stack ran (issue 36, item 7). And the gateway answered a hook
request whose ``cwd`` lay below a ``.mnemex-ignore`` with a 403 naming that
file, so any caller could test whether such a file existed at any path. Now
the marker is looked for only in the stack user's own folders, and the 403
names no path.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kernel import optout
from kernel.config import ConfigError, service_settings_or_exit
from kernel.grpc_hosting import ServiceSettings
from kernel.home_safety import protect_home
from kernel.internal_token import token_path

OTHER_UID = 65534


@pytest.fixture(autouse=True)
def keep_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def make_foreign(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Give ``path`` to another user: really as root, else by making this process someone else."""
    if os.geteuid() == 0:
        os.chown(path, OTHER_UID, OTHER_UID)
    else:
        me = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: me + 1)


def test_a_home_owned_by_another_user_is_refused_with_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    protect_home(home)  # our own: accepted
    make_foreign(home, monkeypatch)
    with pytest.raises(ConfigError) as refused:
        protect_home(home)
    message = str(refused.value)
    assert "belongs to another user" in message and "chown" in message and str(home) in message


def _service_loaders() -> dict[str, tuple[Callable[[], ServiceSettings], str]]:
    from services.embedding.settings import EmbeddingSettings
    from services.kg.settings import KgSettings
    from services.memory.settings import MemorySettings

    return {
        "embedding": (EmbeddingSettings.from_env, "MNEMEX_EMBEDDING_ADDR"),
        "memory": (MemorySettings.from_env, "MNEMEX_MEMORY_ADDR"),
        "kg": (KgSettings.from_env, "MNEMEX_KG_ADDR"),
    }


@pytest.mark.parametrize("service", ["embedding", "memory", "kg"])
def test_each_service_refuses_another_users_home_before_writing_into_it(
    service: str, isolated_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The embedding service keeps no data, but writes the internal token into MNEMEX_HOME: it accepted
    a home of another user and wrote ``secrets/internal-token`` there, where the others refused."""
    load, env_name = _service_loaders()[service]
    make_foreign(isolated_home, monkeypatch)
    with pytest.raises(SystemExit) as stopped:
        service_settings_or_exit(load, lambda s: s.address, env_name, f"{service} service")
    message = capsys.readouterr().err
    assert stopped.value.code == 2
    assert message.startswith(f"mnemex {service} service: MNEMEX_HOME {isolated_home} belongs to another user")
    assert "chown -R" in message and "Traceback" not in message
    assert not token_path(isolated_home).exists() and list(isolated_home.iterdir()) == []


def test_the_embedding_service_with_mnemex_token_never_opens_the_home(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.embedding.settings import EmbeddingSettings

    elsewhere = tmp_path / "not-made"
    monkeypatch.setenv("MNEMEX_HOME", str(elsewhere))
    monkeypatch.setenv("MNEMEX_TOKEN", "operator-" + "q9w8e7" * 6)
    settings = service_settings_or_exit(
        EmbeddingSettings.from_env, lambda s: s.address, "MNEMEX_EMBEDDING_ADDR", "embedding service"
    )
    assert settings.token == "operator-" + "q9w8e7" * 6 and not elsewhere.exists()


def test_a_root_owned_home_is_still_accepted_for_a_kubernetes_volume(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to hand a folder to root")
    home = tmp_path / "volume"
    home.mkdir(mode=0o770)
    os.chown(home, 0, 0)
    protect_home(home)


def test_the_marker_is_found_in_the_users_own_folders_and_not_named(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / optout.MARKER_FILE).write_text("")
    reason = optout.exclusion_reason(str(repo / "pkg"), optout.OptOut())
    assert reason is not None and optout.MARKER_FILE in reason and str(repo) not in reason


def test_the_marker_of_another_users_folder_is_never_probed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = tmp_path / "theirs"
    (theirs / "deep").mkdir(parents=True)
    (theirs / optout.MARKER_FILE).write_text("")
    assert optout.marker_above(str(theirs / "deep")) is not None  # ours, for now
    uid = os.geteuid()
    assert optout.marker_above(str(theirs / "deep"), owner=uid + 1) is None
    if os.geteuid() == 0:
        for path in (theirs, theirs / "deep"):
            os.chown(path, OTHER_UID, OTHER_UID)
        assert optout.exclusion_reason(str(theirs / "deep"), optout.OptOut()) is None
        assert optout.exclusion_reason(str(theirs), optout.OptOut()) is None


def test_a_missing_path_or_a_linked_marker_answers_nothing(tmp_path: Path) -> None:
    assert optout.exclusion_reason(str(tmp_path / "no" / "such" / "dir"), optout.OptOut()) is None
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "secret-file").write_text("")
    (elsewhere / optout.MARKER_FILE).symlink_to(tmp_path / "secret-file")
    assert optout.marker_above(str(elsewhere)) is None


def test_the_gateway_answers_a_foreign_cwd_alike_with_or_without_a_marker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi.testclient import TestClient

    from gateway.app import create_app
    from tests.support.dead_backends import dead_settings

    if os.geteuid() != 0:
        pytest.skip("needs root to hand folders to another user")
    home = tmp_path / "data"
    marked, plain = tmp_path / "other-user" / "marked", tmp_path / "other-user" / "plain"
    for folder in (marked, plain):
        folder.mkdir(parents=True)
    (marked / optout.MARKER_FILE).write_text("")
    for path in (tmp_path / "other-user", marked, plain):
        os.chown(path, OTHER_UID, OTHER_UID)
    with TestClient(create_app(dead_settings(home)), base_url="http://127.0.0.1") as client:
        answers = []
        for cwd in (marked, plain, marked / "missing"):
            reply = client.post("/api/hooks/get-context", json={"session_id": "s-1", "cwd": str(cwd), "prompt": "x"})
            answers.append((reply.status_code, ".mnemex-ignore" in reply.text, str(marked) in reply.text))
        assert answers[0] == answers[1] == answers[2] == (200, False, False)
