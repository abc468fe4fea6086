"""The gateway imports the MCP SDK only when a client first calls /mcp (issue 19: idle memory).

A gateway that serves hooks and the viewer never needs the SDK, which costs about
45 MB resident; these tests keep an eager import from creeping back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def run_python(code: str, tmp_path: Path) -> dict[str, bool]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("MNEMEX_")},
            "MNEMEX_HOME": str(tmp_path),
            "MNEMEX_USER": "tester",
            "MNEMEX_GATEWAY_ADDR": "127.0.0.1:0",
        },
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, bool] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def test_creating_and_starting_the_gateway_app_loads_no_mcp_sdk(tmp_path: Path) -> None:
    seen = run_python(
        """
        import json, sys
        from fastapi.testclient import TestClient
        from gateway.app import create_app
        from kernel.config import Settings

        app = create_app(Settings.from_env())
        with TestClient(app, base_url="http://127.0.0.1") as client:
            health = client.get("/api/health")
        print(json.dumps({"mcp": "mcp" in sys.modules, "answered": health.status_code > 0}))
        """,
        tmp_path,
    )
    assert seen == {"mcp": False, "answered": True}


def test_the_first_mcp_request_loads_the_sdk_and_is_answered(tmp_path: Path) -> None:
    seen = run_python(
        """
        import json, sys
        from fastapi.testclient import TestClient
        from gateway.app import create_app
        from kernel.config import Settings

        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        initialize = {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
        }
        with TestClient(create_app(Settings.from_env()), base_url="http://127.0.0.1") as client:
            before = "mcp" in sys.modules
            reply = client.post("/mcp", json=initialize, headers=headers)
        print(json.dumps({"before": before, "after": "mcp" in sys.modules, "ok": reply.status_code == 200}))
        """,
        tmp_path,
    )
    assert seen == {"before": False, "after": True, "ok": True}
