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
