"""`mnemex up` tells where the viewer is, and the address answers."""

from __future__ import annotations

import urllib.request

from tests.support.cli_stack import RunningStack
from tests.support.supervisor import cli


def test_up_prints_the_viewer_address(stack: RunningStack) -> None:
    again = cli(stack.env, "up", "--detach")  # already running: it says so, with the addresses
    assert again.returncode == 0, again.stderr
    viewer = f"{stack.gateway_url}/ui"
    assert f"viewer: {viewer}" in again.stdout
    with urllib.request.urlopen(viewer, timeout=30) as reply:
        assert reply.status == 200 and b"<h1>Overview</h1>" in reply.read()
