"""The stack's internal credential: made 0600 at first start, reused after, refused when unsafe."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from kernel.config import ConfigError, Settings, service_settings_or_exit
from kernel.internal_token import ensure_token, grpc_token, token_path


@pytest.fixture(autouse=True)
def keep_umask() -> object:
    previous = os.umask(0o022)  # an ordinary umask: the file must be private all the same
    yield None
    os.umask(previous)


def test_first_start_makes_a_private_token_and_later_starts_reuse_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    first = ensure_token(home)
    path = token_path(home)
    assert path == home / "secrets" / "internal-token"
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    assert len(first) >= 40 and path.read_text().strip() == first
    assert ensure_token(home) == first
    os.chmod(path, 0o644)  # an older copy or a careless edit: tightened, not replaced
    assert ensure_token(home) == first and path.stat().st_mode & 0o777 == 0o600


def test_processes_starting_at_once_agree_on_one_token(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    results: list[str] = []
    threads = [threading.Thread(target=lambda: results.append(ensure_token(home))) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 16 and len(set(results)) == 1
    assert [p.name for p in token_path(home).parent.iterdir()] == ["internal-token"]


def test_mnemex_token_wins_and_leaves_no_file(tmp_path: Path) -> None:
    assert grpc_token("explicit-" + "x1y2z3" * 6, tmp_path) == "explicit-" + "x1y2z3" * 6
    assert not token_path(tmp_path).exists()


@pytest.mark.parametrize("content", ["", "short", "a" * 50])
def test_an_unusable_token_file_is_refused_with_the_fix(tmp_path: Path, content: str) -> None:
    path = token_path(tmp_path)
    path.parent.mkdir(mode=0o700)
    path.write_text(content)
    with pytest.raises(ConfigError) as refused:
        ensure_token(tmp_path)
    assert str(path) in str(refused.value) and "mnemex up" in str(refused.value)
    assert "MNEMEX_TOKEN" in str(refused.value)


def test_a_token_file_of_another_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ensure_token(tmp_path)
    if os.geteuid() == 0:
        os.chown(token_path(tmp_path), 65534, 65534)
    else:
        monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 1)
    with pytest.raises(ConfigError, match="belongs to another user"):
        ensure_token(tmp_path)


def test_a_service_loaded_as_the_stack_loads_it_carries_the_home_token(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.embedding.settings import EmbeddingSettings
    from services.kg.settings import KgSettings

    kg = service_settings_or_exit(KgSettings.from_env, lambda s: s.address, "MNEMEX_KG_ADDR", "kg service")
    embedding = service_settings_or_exit(
        EmbeddingSettings.from_env, lambda s: s.address, "MNEMEX_EMBEDDING_ADDR", "embedding service"
    )
    token = token_path(isolated_home).read_text().strip()
    assert kg.token == token and embedding.token == token
    monkeypatch.setenv("MNEMEX_TOKEN", "operator-" + "q9w8e7" * 6)
    kg = service_settings_or_exit(KgSettings.from_env, lambda s: s.address, "MNEMEX_KG_ADDR", "kg service")
    assert kg.token == "operator-" + "q9w8e7" * 6


def test_the_gateway_sends_the_home_token(isolated_home: Path) -> None:
    from gateway.rpc import Rpc

    rpc = Rpc(Settings.from_env())
    assert rpc.metadata == (("authorization", f"Bearer {token_path(isolated_home).read_text().strip()}"),)


def test_a_gateway_that_cannot_read_the_token_says_how_to_fix_it(isolated_home: Path) -> None:
    from gateway.gateway_errors import BackendUnavailable
    from gateway.rpc import Rpc

    path = token_path(isolated_home)
    path.parent.mkdir(mode=0o700)
    path.write_text("")
    with pytest.raises(BackendUnavailable, match="mnemex up"):
        _ = Rpc(Settings.from_env()).metadata
