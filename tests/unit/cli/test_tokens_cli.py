"""``mnemex tokens add``: a new token, shown once, stored as a digest the gateway accepts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gateway.user_tokens import UserTokens

ROOT = Path(__file__).resolve().parents[3]


def run_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMEX_")}
    env["MNEMEX_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "mnemex.cli", "tokens", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_add_prints_a_token_the_gateway_maps_to_the_user(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "add", "alice", "--json")
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    assert reply["user"] == "alice" and Path(reply["file"]) == tmp_path / "user_tokens"
    assert UserTokens(tmp_path / "user_tokens").user_of(reply["token"]) == "alice"


def test_a_bad_user_id_is_refused_with_a_reason(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "add", "../../etc")
    assert result.returncode == 1
    assert "letters, digits" in result.stderr
    assert not (tmp_path / "user_tokens").exists()


def test_list_shows_users_and_dates_never_tokens_or_digests(tmp_path: Path) -> None:
    alice = json.loads(run_cli(tmp_path, "add", "alice", "--json").stdout)["token"]
    run_cli(tmp_path, "add", "bob")
    listed = run_cli(tmp_path, "list")
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["alice", "bob"]
    digests = [line.split()[1] for line in (tmp_path / "user_tokens").read_text().splitlines()]
    assert alice not in listed.stdout and not any(d in listed.stdout for d in digests)
    as_json = json.loads(run_cli(tmp_path, "list", "--json").stdout)
    assert [t["user"] for t in as_json["tokens"]] == ["alice", "bob"] and all(t["added"] for t in as_json["tokens"])


def test_revoke_removes_the_users_tokens_and_says_when_there_were_none(tmp_path: Path) -> None:
    alice = json.loads(run_cli(tmp_path, "add", "alice", "--json").stdout)["token"]
    bob = json.loads(run_cli(tmp_path, "add", "bob", "--json").stdout)["token"]
    revoked = run_cli(tmp_path, "revoke", "alice")
    assert revoked.returncode == 0 and "revoked 1 token" in revoked.stdout, revoked.stderr
    tokens = UserTokens(tmp_path / "user_tokens")
    assert tokens.user_of(alice) is None and tokens.user_of(bob) == "bob"
    missing = run_cli(tmp_path, "revoke", "alice")
    assert missing.returncode == 1 and "no token for user 'alice'" in missing.stderr


def test_a_malformed_file_is_named_by_list(tmp_path: Path) -> None:
    (tmp_path / "user_tokens").write_text("alice not-a-digest\n")
    listed = run_cli(tmp_path, "list")
    assert listed.returncode == 1 and "line 1" in listed.stderr and "user_tokens" in listed.stderr
