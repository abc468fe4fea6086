"""Per-user tokens: the file format, reloads, and what ``mnemex tokens add`` writes."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

import gateway.user_tokens as user_tokens
from gateway.errors import InvalidInput
from gateway.user_tokens import TokensFileError, UserTokens, add_token, digest


def test_a_token_maps_to_its_user_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    alice = add_token(path, "alice")
    bob = add_token(path, "bob")
    tokens = UserTokens(path)
    assert (tokens.user_of(alice), tokens.user_of(bob)) == ("alice", "bob")
    assert tokens.user_of(alice + "x") is None
    assert tokens.user_of("") is None


def test_the_file_holds_digests_only_and_is_private(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    token = add_token(path, "alice")
    assert token not in path.read_text()
    assert path.read_text() == f"alice {digest(token)}\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_malformed_line_is_reported_with_its_number(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    path.write_text(f"# team tokens\nalice {digest('x')}\nbob not-a-digest\n")
    with pytest.raises(TokensFileError, match="line 3"):
        UserTokens(path)


def test_a_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(TokensFileError, match="cannot read the tokens file"):
        UserTokens(tmp_path / "absent")


def test_added_and_revoked_tokens_take_effect_without_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(user_tokens, "RECHECK_S", 0.0)
    path = tmp_path / "tokens"
    alice = add_token(path, "alice")
    tokens = UserTokens(path)
    carol = add_token(path, "carol")
    assert tokens.user_of(carol) == "carol"
    path.write_text(f"carol {digest(carol)}\n")  # alice's line removed: revoked
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 1_000_000))
    assert tokens.user_of(alice) is None
    assert tokens.user_of(carol) == "carol"


def test_a_user_id_must_be_safe(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="letters, digits"):
        add_token(tmp_path / "tokens", "../root")
