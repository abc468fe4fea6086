"""Faults: SIGKILL each real process while the real hook scripts keep firing.

For each of embedding, memory, kg and gateway:
- hooks (prompt, stop, post-tool-use, session-start, fed realistic Claude Code
  JSON) keep exiting 0 within their bound and never print anything malformed;
- while a backend is down, the gateway answers get-context with 200, a valid
  shape and the dead service named in ``degraded``, and /api/health says 503;
- after the process is restarted (on the same port) and answers its own
  health probe, the very first prompt gets the project's context again: no
  cold-start window that silently injects nothing.

``bench/bench_faults.py`` is the long version (many rounds per service).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kernel.json_values import JSONValue, as_object, str_at
from tests.support.hookrun import (
    HookLoad,
    HookRun,
    claude_turn,
    hook_env,
    run_hook,
    valid_context_output,
)
from tests.support.json_read import json_object, json_str, json_strs
from tests.support.procstack import kill9, post, restart
from tests.support.stack import Stack

pytestmark = pytest.mark.slow

PROJECT = "/srv/fault-project"
FACT = "The payments service is deployed with Argo CD from the gitops repository"
PROMPT = "how is the payments service deployed?"
HOOK_TIMEOUT = 8.0  # generous: CI machines are small; the bound checked is this plus interpreter start


@pytest.fixture(scope="module")
def fact_id(procs: Stack) -> str:
    status, added = post(procs, "/api/memory-bank/add", {"content": FACT, "cwd": PROJECT})
    assert status == 200, added
    return json_str(added, "memory", "id")


def _assert_hooks_behaved(runs: list[tuple[str, HookRun]]) -> None:
    assert runs, "no hook ran"
    bound = HOOK_TIMEOUT + 2.0
    for event, run in runs:
        assert run.returncode == 0, (event, run.stderr[-300:])
        assert run.elapsed < bound, (event, round(run.elapsed, 2))
        assert "Traceback" not in run.stdout + run.stderr
        if run.stdout:
            assert event in ("prompt", "session_start"), (event, run.stdout[:200])
            assert valid_context_output(run.stdout), run.stdout[:300]


def _get_context(procs: Stack, session: str) -> tuple[int, JSONValue]:
    return post(procs, "/api/hooks/get-context", {"session_id": session, "prompt": PROMPT, "cwd": PROJECT})


@pytest.mark.parametrize("service", ["embedding", "memory", "kg", "gateway"])
def test_sigkill_while_hooks_fire_then_context_returns(
    service: str, procs: Stack, fact_id: str, tmp_path: Path
) -> None:
    env = hook_env(tmp_path, int(procs.gateway_url.rsplit(":", 1)[1]), MNEMEX_HOOK_TIMEOUT=str(HOOK_TIMEOUT))
    status, before = _get_context(procs, "fault-before")
    assert status == 200 and f"[id:{fact_id}]" in json_str(before, "context"), before
    load = HookLoad(env, PROJECT, PROMPT)
    load.start()
    try:
        load.wait_for(4)
        kill9(procs, service)
        down_since = time.monotonic()
        seen = len(load.runs)
        load.wait_for(seen + 4, timeout=60)
        if service != "gateway":
            status, degraded = _get_context(procs, "fault-during")
            assert status == 200, degraded
            assert set(json_object(degraded)) >= {"context", "memories", "scoring_required", "degraded"}, degraded
            assert service in json_strs(degraded, "degraded"), degraded
            reminder_status, _ = post(procs, "/api/hooks/pre-compact", {"session_id": "fault-during"})
            assert reminder_status == 200, "hook endpoints that need no backend keep working"
        outage = time.monotonic() - down_since
        restart(procs, service)
    finally:
        load.stop()
    _assert_hooks_behaved(load.runs)
    recovered = _wait_for_context(procs, fact_id, timeout=20)
    # A fresh hook state dir: the hook's circuit breaker has its own test below, and the
    # gateway's reconnect delay (the prompt right after a restart) has its own too.
    fresh = {**env, "MNEMEX_HOME": str(tmp_path / "fresh-hook-state")}
    first = run_hook("prompt", claude_turn("prompt", "fault-after", PROJECT, PROMPT), fresh)
    assert first.returncode == 0
    assert f"[id:{fact_id}]" in first.stdout, (
        f"prompt after restarting {service} (down {outage:.1f} s, context back in {recovered:.1f} s) "
        f"got no context: {first.stdout[:200]!r}"
    )


def _wait_for_context(procs: Stack, fact_id: str, timeout: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        status, reply = _get_context(procs, "fault-recovery")
        if status == 200 and f"[id:{fact_id}]" in str_at(as_object(reply), "context"):
            return time.monotonic() - started
        time.sleep(0.1)
    raise AssertionError(f"context did not come back within {timeout} s of the restart")


@pytest.mark.parametrize(("dead", "event"), [("gateway", "prompt")])
def test_an_outage_does_not_silence_prompts_after_recovery(
    dead: str, event: str, procs: Stack, fact_id: str, tmp_path: Path
) -> None:
    env = hook_env(tmp_path, int(procs.gateway_url.rsplit(":", 1)[1]), MNEMEX_HOOK_TIMEOUT=str(HOOK_TIMEOUT))
    kill9(procs, dead)
    for turn in range(3):
        fired = run_hook(event, claude_turn(event, f"circuit-{turn}", PROJECT, PROMPT), env)
        assert fired.returncode == 0 and fired.stdout == ""
    restart(procs, dead)
    procs.wait_healthy(60)  # the gateway itself sees memory again: only the hook's own state can stand in the way
    status, direct = _get_context(procs, "circuit-direct")
    assert status == 200 and f"[id:{fact_id}]" in json_str(direct, "context"), direct
    first = run_hook("prompt", claude_turn("prompt", "circuit-after", PROJECT, PROMPT), env)
    assert first.returncode == 0 and f"[id:{fact_id}]" in first.stdout, "the hook's circuit is still open"
    assert not list((tmp_path / "run").glob("circuit-*.json")), "the circuit was tripped by a cheap failure"


def test_first_prompt_right_after_a_memory_restart_gets_context(procs: Stack, fact_id: str) -> None:
    """The prompt that arrives once memory answers its own health probe (what the supervisor reports).

    Two outages of 6 s, long enough for the gateway's reconnect backoff to reach its cap, so a
    channel that only reconnects on its own schedule misses the first prompt nearly every time.
    """
    missed = []
    for cycle in range(2):
        _wait_for_context(procs, fact_id, timeout=30)
        kill9(procs, "memory")
        end = time.monotonic() + 6
        while time.monotonic() < end:
            _get_context(procs, "fault-long")  # prompts keep arriving while memory is down
            time.sleep(0.5)
        restart(procs, "memory")
        status, reply = _get_context(procs, f"fault-long-after-{cycle}")
        if not (status == 200 and f"[id:{fact_id}]" in str_at(as_object(reply), "context")):
            missed.append((cycle, reply.get("degraded") if isinstance(reply, dict) else reply))
    procs.wait_healthy(60)  # leave the stack usable for the next test
    assert not missed, f"first prompt after a restart injected nothing: {missed}"
