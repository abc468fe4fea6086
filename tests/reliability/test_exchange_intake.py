"""The exchange intake journal across kill -9 (issue 27, defect 14): an acknowledged stop is never lost.

A stop is acknowledged once its exchange is journaled (``api.exchange_intake``),
before it is embedded and stored. Here the embedding service is frozen
(SIGSTOP), so no exchange can be stored: the stops are acknowledged from the
journal alone. Then memory is killed with SIGKILL, embedding thawed, memory
restarted: every acknowledged exchange is stored exactly once under the id
its stop returned. (Before the journal, these stops failed: each waited for
the embedding and timed out.)
"""

from __future__ import annotations

import os
import signal
import time
import uuid

import pytest

from gateway.reply_models import SearchOut
from tests.support.json_read import json_str
from tests.support.procstack import kill9, post, restart
from tests.support.stack import Stack

pytestmark = pytest.mark.slow

STOPS = 12


def test_stops_acknowledged_from_the_journal_survive_kill_9_of_memory(procs: Stack) -> None:
    cwd = f"/srv/intake-{uuid.uuid4().hex[:8]}"
    answers = {
        f"intake-{n}": f"Answer {n}: the {n}th deploy step runs migration M{n * 7 + 3} first." for n in range(STOPS)
    }
    embedding = procs.procs["embedding"]
    acknowledged: dict[str, str] = {}
    os.kill(embedding.pid, signal.SIGSTOP)
    try:
        for session, answer in answers.items():
            status, reply = post(
                procs,
                "/api/hooks/stop",
                {"session_id": session, "cwd": cwd, "user_text": f"what about {session}?", "assistant_text": answer},
                timeout=10,
            )
            assert status == 200 and json_str(reply, "exchange_id"), reply
            acknowledged[session] = json_str(reply, "exchange_id")
        kill9(procs, "memory")
    finally:
        os.kill(embedding.pid, signal.SIGCONT)
    restart(procs, "memory")
    found: dict[str, int] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(found) < STOPS:
        for session, memory_id in acknowledged.items():
            status, reply = post(procs, "/api/search", {"id": memory_id, "cwd": cwd})
            memories = SearchOut.model_validate(reply).memories if status == 200 else []
            if memories:
                assert answers[session] in memories[0].content
                found[session] = len(memories)
        time.sleep(0.2)
    assert sorted(found) == sorted(acknowledged), f"not stored after the restart: {set(acknowledged) - set(found)}"
    status, listed = post(procs, "/api/search", {"query": "deploy step migration", "cwd": cwd, "limit": 50})
    assert status == 200
    contents = [m.content for m in SearchOut.model_validate(listed).memories]
    for answer in answers.values():
        assert sum(answer in c for c in contents) <= 1, f"stored twice: {answer}"
    procs.wait_healthy(60)
