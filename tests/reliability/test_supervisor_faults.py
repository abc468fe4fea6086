"""`mnemex up` under fault: SIGKILL a supervised service while hooks fire.

The supervisor runs a whole stack in its own home (its services share that
home's internal credential, so it cannot borrow another home's embedding service).
Memory is killed twice: the supervisor restarts it each time with a growing
delay, ``mnemex status --json`` shows both restarts and the SIGKILL, hooks
keep exiting 0 throughout, and once the supervisor reports memory healthy the
prompt hook gets the project's context again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from kernel.json_values import JSONObject, object_at, parse_object
from tests.support.hookrun import claude_turn, hook_env, run_hook
from tests.support.json_read import json_int, json_str
from tests.support.stack import ROOT, free_port
from tests.support.supervisor import service_state, state, wait_for

pytestmark = pytest.mark.slow

PROJECT = "/srv/supervised-project"
FACT = "Feature flags for the checkout service live in LaunchDarkly project shop-web"
PROMPT = "where do the checkout feature flags live?"


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mnemex.cli", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@dataclass(frozen=True)
class Supervised:
    home: Path
    env: dict[str, str]
    up: subprocess.Popen[bytes]  # `mnemex up`
    port: int  # the gateway's


@pytest.fixture(scope="module")
def supervised(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Supervised]:
    home = tmp_path_factory.mktemp("supervised-home")
    env = {k: v for k, v in os.environ.items() if k != "MNEMEX_TOKEN"}
    env.update(
        MNEMEX_HOME=str(home),
        MNEMEX_USER="tester",
        PYTHONUNBUFFERED="1",
        MNEMEX_EMBEDDING_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_GATEWAY_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_MEMORY_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_KG_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_GET_CONTEXT_BUDGET_MS="5000",
        MNEMEX_MEMORY_MAINTENANCE_INTERVAL_S="0",
    )
    up = subprocess.Popen(
        [sys.executable, "-m", "mnemex.cli", "up"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(
            lambda: object_at(state(home), "supervisor").get("ready_at"),
            120,
            "the supervised stack to be ready",
            interval=0.05,
        )
        yield Supervised(home, env, up, int(env["MNEMEX_GATEWAY_ADDR"].rsplit(":", 1)[1]))
    finally:
        up.send_signal(signal.SIGTERM)
        try:
            up.wait(30)
        except subprocess.TimeoutExpired:
            up.kill()
            up.wait(10)


def _post(port: int, path: str, body: Mapping[str, object]) -> JSONObject:
    import urllib.request

    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return parse_object(reply.read())


def test_supervisor_restarts_memory_with_backoff_and_hooks_survive(supervised: Supervised, tmp_path: Path) -> None:
    home, env, port = supervised.home, supervised.env, supervised.port
    fact_id = json_str(_post(port, "/api/memory-bank/add", {"content": FACT, "cwd": PROJECT}), "memory", "id")
    hooks = hook_env(tmp_path, port, MNEMEX_HOOK_TIMEOUT="8")
    runs = []
    for round_number in (1, 2):
        pid = json_int(service_state(home, "memory"), "pid")
        os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        while service_state(home, "memory").get("pid") in (pid, None):
            runs.append(run_hook("prompt", claude_turn("prompt", f"sup-{round_number}", PROJECT, PROMPT), hooks))
            runs.append(run_hook("stop", claude_turn("stop", f"sup-{round_number}", PROJECT), hooks))
            if time.monotonic() - killed_at > 60:
                raise TimeoutError("memory was not restarted")
        after = wait_for(
            lambda: s if (s := service_state(home, "memory")).get("status") == "healthy" else None,
            60,
            "memory healthy again",
            interval=0.05,
        )
        assert after["restarts"] == round_number and after["last_exit"] == -signal.SIGKILL, after
    assert all(r.returncode == 0 and r.elapsed < 10 for r in runs), [(r.returncode, r.elapsed) for r in runs]
    assert len(runs) >= 4
    report = json.loads(_cli(env, "status", "--json").stdout)
    assert report["services"]["memory"]["restarts"] == 2 and report["services"]["kg"]["restarts"] == 0, report
    human = _cli(env, "status")
    assert human.returncode == 0 and "SIGKILL" in human.stdout, human.stdout
    # The gateway reconnects, then the prompt hook injects the fact again (fresh hook state:
    # the circuit breaker and the reconnect delay have their own tests in test_faults.py).
    end = time.monotonic() + 20
    poll = {"session_id": "sup-poll", "prompt": PROMPT, "cwd": PROJECT}
    while f"[id:{fact_id}]" not in json_str(_post(port, "/api/hooks/get-context", poll), "context"):
        assert time.monotonic() < end, "context did not come back after the supervised restart"
        time.sleep(0.1)
    first = run_hook(
        "prompt",
        claude_turn("prompt", "sup-after", PROJECT, PROMPT),
        hook_env(tmp_path / "fresh", port, MNEMEX_HOOK_TIMEOUT="8"),
    )
    assert f"[id:{fact_id}]" in first.stdout, first
