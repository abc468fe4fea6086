"""Node tooling for tests that drive real JS clients (tsc, MCP Inspector).

Packages are installed once into ``<repo>/build/node-tools`` (git-ignored)
with pinned versions. ``MNEMEX_NODE_TOOLS`` points at a pre-populated
directory instead. Without node or npm, or when the install fails or times
out (e.g. no registry access), a test FAILS with a message that says what to
install or run: it never skips, so the only type-check of ``mnemex.ts``
cannot pass without running (as ``tests/support/real_clients.py`` does for the e2e
clients).
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
INSTALL_NODE = "install Node.js 20+ with npm (e.g. `apt-get install nodejs npm`)"


def tools_dir() -> Path:
    return Path(os.environ.get("MNEMEX_NODE_TOOLS") or DEFAULT_DIR)


def require_node() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        missing = " and ".join(name for name, path in (("node", node), ("npm", npm)) if not path)
        pytest.fail(f"{missing} not installed; this test runs real Node tooling: {INSTALL_NODE}", pytrace=False)
    return node, npm


def install_command(directory: Path, packages: tuple[str, ...]) -> str:
    return f"npm install --no-audit --no-fund --prefix {directory} {' '.join(packages)}"


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
        pytest.fail(
            f"{install_command(directory, packages)} timed out after {timeout:.0f} s: is the npm registry reachable? "
            f"Run it by hand, or point MNEMEX_NODE_TOOLS at a directory where it has run",
            pytrace=False,
        )
    if proc.returncode != 0 or not (directory / "node_modules" / marker).exists():
        pytest.fail(
            f"{install_command(directory, packages)} failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}",
            pytrace=False,
        )
    return directory
