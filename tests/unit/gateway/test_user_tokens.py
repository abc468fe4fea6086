"""Per-user tokens: the file format, reloads, and what ``mnemex tokens add`` writes."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

import gateway.user_tokens as user_tokens
from gateway.gateway_errors import InvalidInput
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
    user, stored, added = path.read_text().split()
    assert (user, stored) == ("alice", digest(token))
    assert user_tokens.ADDED_PATTERN.match(added)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_malformed_line_is_reported_with_its_number(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    path.write_text(f"# team tokens\nalice {digest('x')}\nbob not-a-digest\n")
    with pytest.raises(TokensFileError, match="line 3"):
        UserTokens(path)


def test_a_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(TokensFileError, match="cannot read the tokens file"):
        UserTokens(tmp_path / "absent")


def test_added_and_revoked_tokens_take_effect_without_a_restart(tmp_path: Path) -> None:
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


def test_a_revocation_counts_on_the_next_lookup_even_within_one_timestamp_tick(tmp_path: Path) -> None:
    """Same size, same mtime, same inode: only the content changed (a racy rewrite); still seen at once."""
    path = tmp_path / "tokens"
    bob, eve = "b" * 43, "e" * 43
    path.write_text(f"bob {digest(bob)}\n")
    tokens = UserTokens(path)
    assert tokens.user_of(bob) == "bob"
    before = path.stat()
    with path.open("r+") as handle:  # in place: the inode stays
        handle.write(f"eve {digest(eve)}\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_ino == before.st_ino
    assert tokens.user_of(bob) is None
    assert tokens.user_of(eve) == "eve"


def test_a_deleted_file_accepts_no_user_token(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "tokens"
    alice = add_token(path, "alice")
    tokens = UserTokens(path)
    assert tokens.user_of(alice) == "alice"
    path.unlink()
    with caplog.at_level("ERROR", logger="mnemex.gateway.tokens"):
        assert tokens.user_of(alice) is None
        assert tokens.user_of(alice) is None
    assert len([r for r in caplog.records if str(path) in r.getMessage()]) == 1
    again = add_token(path, "alice")  # a new file: its tokens count again, the old one stays gone
    assert tokens.user_of(again) == "alice" and tokens.user_of(alice) is None


def test_a_malformed_file_fails_closed_with_one_log_line_naming_file_and_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "tokens"
    alice = add_token(path, "alice")
    bob = add_token(path, "bob")
    tokens = UserTokens(path)
    assert tokens.user_of(bob) == "bob"
    alice_line = path.read_text().splitlines()[0]
    with caplog.at_level("ERROR", logger="mnemex.gateway.tokens"):
        path.write_text(f"{alice_line}\nthis line is not a token\n")  # bob's line removed, a bad one added
        assert tokens.user_of(bob) is None
        assert tokens.user_of(alice) is None  # the whole file is distrusted, not just the bad line
        assert tokens.user_of(alice) is None
    logged = [r.getMessage() for r in caplog.records]
    assert len(logged) == 1 and str(path) in logged[0] and "line 2" in logged[0], logged
    assert "this line is not a token" not in logged[0]  # a pasted secret would not reach the log
    path.write_text(f"{alice_line}\n")
    assert tokens.user_of(alice) == "alice" and tokens.problem is None


def test_revoke_removes_only_that_users_lines(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    alice = add_token(path, "alice")
    bob = add_token(path, "bob")
    bob2 = add_token(path, "bob")
    with path.open("a") as handle:
        handle.write("# bob's laptop token was rotated\n")
    tokens = UserTokens(path)
    assert user_tokens.revoke(path, "bob") == 2
    assert (tokens.user_of(bob), tokens.user_of(bob2), tokens.user_of(alice)) == (None, None, "alice")
    assert "# bob's laptop" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert user_tokens.revoke(path, "bob") == 0
    assert [e.user for e in user_tokens.list_tokens(path)] == ["alice"]


def test_files_without_dates_still_parse(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    path.write_text(f"carol {digest('c' * 43)}\n")
    assert UserTokens(path).user_of("c" * 43) == "carol"
    assert user_tokens.list_tokens(path) == [user_tokens.TokenEntry("carol", digest("c" * 43), "")]
