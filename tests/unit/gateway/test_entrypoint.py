"""``python -m gateway`` refuses to listen beyond loopback without a token."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
