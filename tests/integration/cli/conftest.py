"""A real mnemex stack (all four processes, started by `mnemex up --detach`) shared by the CLI tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kernel.json_values import as_object, int_at
from tests.support.cli_stack import RunningStack, start_stack
from tests.support.json_read import json_object
from tests.support.supervisor import alive, cli, state, wait_for


@pytest.fixture(scope="package")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    running = start_stack(tmp_path_factory.mktemp("cli-stack") / "home")
    try:
        yield running
    finally:
        services = json_object(state(running.home), "services").values()
        pids = [pid for s in services if (pid := int_at(as_object(s), "pid"))]
        cli(running.env, "down")
    # A clean stop of the whole stack leaves no child behind.
    wait_for(lambda: not any(alive(pid) for pid in pids), 15, "every service to exit")
