"""``python -m gateway`` refuses to listen beyond loopback without a token, or with a weak one."""

from __future__ import annotations

import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.config import ConfigError, require_token_for, weak_token_reason

ROOT = Path(__file__).resolve().parents[3]


def test_python_m_gateway_refuses_a_public_bind_without_a_token(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "MNEMEX_HOME": str(tmp_path),
        "MNEMEX_USER": "t",
        "MNEMEX_GATEWAY_ADDR": "0.0.0.0:0",
    }
    result = subprocess.run(
        [sys.executable, "-m", "gateway"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "MNEMEX_TOKEN" in result.stderr and "refusing" in result.stderr


def _start(tmp_path: Path, module: str, address_variable: str, token: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "MNEMEX_HOME": str(tmp_path),
        "MNEMEX_USER": "t",
        address_variable: "0.0.0.0:0",
        "MNEMEX_TOKEN": token,
    }
    return subprocess.run([sys.executable, "-m", module], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    "token", [" ", "x", "changeme", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "correct horse battery staple"]
)
def test_a_weak_token_is_refused_for_a_public_bind_with_how_to_make_a_strong_one(tmp_path: Path, token: str) -> None:
    result = _start(tmp_path, "gateway", "MNEMEX_GATEWAY_ADDR", token)
    assert result.returncode == 2, result.stderr[-500:]
    assert "too weak" in result.stderr and "secrets.token_urlsafe(32)" in result.stderr
    assert len(token) < 8 or token not in result.stderr  # the message never echoes the secret


def test_the_services_refuse_a_weak_token_too(tmp_path: Path) -> None:
    result = _start(tmp_path, "services.kg", "MNEMEX_KG_ADDR", "x")
    assert result.returncode == 2 and "too weak" in result.stderr, result.stderr[-500:]


def test_the_strength_rule() -> None:
    assert weak_token_reason(secrets.token_urlsafe(32)) is None
    assert weak_token_reason(secrets.token_urlsafe(18)) is None
    assert "whitespace" in (weak_token_reason("a" * 40 + " ") or "")
    assert "fewer than" in (weak_token_reason("abc123") or "")
    assert "distinct" in (weak_token_reason("abababababababababababababab") or "")
    require_token_for("127.0.0.1", "x", "the gateway")  # loopback: any token (or none) is the user's choice
    with pytest.raises(ConfigError, match="too weak"):
        require_token_for("0.0.0.0", "x", "the gateway")
    require_token_for("0.0.0.0", secrets.token_urlsafe(32), "the gateway")


def test_a_malformed_tokens_file_stops_the_gateway_with_one_line_not_a_traceback(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("this line is not a token line\n")
    tokens.chmod(0o600)
    env = {
        "PATH": "/usr/bin:/bin",
        "MNEMEX_HOME": str(tmp_path / "home"),
        "MNEMEX_USER": "t",
        "MNEMEX_GATEWAY_ADDR": "127.0.0.1:0",
        "MNEMEX_USER_TOKENS": str(tokens),
    }
    result = subprocess.run(
        [sys.executable, "-m", "gateway"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2, result.stderr[-500:]
    assert "Traceback" not in result.stderr
    assert str(tokens) in result.stderr and "mnemex tokens add" in result.stderr
