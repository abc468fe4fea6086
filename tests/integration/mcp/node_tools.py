"""Node tooling for tests that drive real JS clients (tsc, MCP Inspector).

Packages are installed once into ``<repo>/build/node-tools`` (git-ignored)
with pinned versions; a test skips with the reason when node/npm is missing
or the install fails (e.g. no registry access). ``MNEMEX_NODE_TOOLS`` points
at a pre-populated directory instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_DIR = ROOT / "build" / "node-tools"

PLUGIN_TYPES = ("@opencode-ai/plugin@1.18.33", "typescript@7.0.2", "@types/node@26.6.6")
INSPECTOR = ("@modelcontextprotocol/inspector@2.12.0",)


def tools_dir() -> Path:
    return Path(os.environ.get("MNEMEX_NODE_TOOLS") or DEFAULT_DIR)


def require_node() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("node/npm not installed; install Node.js 20+ to run this test")
    return node, npm


def ensure_packages(packages: tuple[str, ...], marker: str, timeout: float = 300.0) -> Path:
    """Install ``packages`` (pinned specs) unless ``marker`` (a path under node_modules) exists."""
    _, npm = require_node()
    directory = tools_dir()
    if (directory / "node_modules" / marker).exists():
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(directory), "npm_config_update_notifier": "false"}
    try:
        proc = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(directory), *packages],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install {' '.join(packages)} timed out (no registry access?)")
    if proc.returncode != 0 or not (directory / "node_modules" / marker).exists():
        pytest.skip(f"npm install {' '.join(packages)} failed: {proc.stderr.strip()[-300:]}")
    return directory
