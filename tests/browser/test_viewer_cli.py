"""`mnemex ui` against the running viewer: prints the address, opens it with the user's browser, --json."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support.browser import Seeded


def run_ui(seeded: Seeded, tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        **os.environ,
        "MNEMEX_HOME": str(seeded.live.home),
        "MNEMEX_GATEWAY_ADDR": seeded.live.url.removeprefix("http://"),
        "HOME": str(tmp_path),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "mnemex.cli", "ui", *args],
        cwd=seeded.cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_ui_opens_the_viewer_of_this_directorys_project(seeded: Seeded, tmp_path: Path) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "fake-browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {opened}\n')
    browser.chmod(browser.stat().st_mode | stat.S_IEXEC)
    result = run_ui(seeded, tmp_path, BROWSER=str(browser))
    assert result.returncode == 0, result.stderr
    url = f"{seeded.live.url}/ui?project={seeded.project}"
    assert url in result.stdout
    assert opened.read_text() == url
    assert httpx.get(url, timeout=30).status_code == 200


def test_ui_json_and_no_open(seeded: Seeded, tmp_path: Path) -> None:
    result = run_ui(seeded, tmp_path, "--json", "--project", "other-project")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "url": f"{seeded.live.url}/ui?project=other-project",
        "project": "other-project",
        "opened": False,
    }
    plain = run_ui(seeded, tmp_path, "--no-open", BROWSER="/bin/false")
    assert plain.returncode == 0 and plain.stdout.startswith("mnemex viewer: http://")


def test_ui_with_the_stack_stopped_says_how_to_start_it(seeded: Seeded, tmp_path: Path) -> None:
    result = run_ui(seeded, tmp_path, "--no-open", MNEMEX_GATEWAY_ADDR="127.0.0.1:9")
    assert result.returncode == 1
    assert "mnemex up" in result.stderr
