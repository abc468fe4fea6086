"""The injected block says each fact once, and only where it holds (issue 35, items 4 and 5).

Real HTTP against the real stack (embedding, memory, kg, gateway). A held-out scenario found, in
the block: another project's project fact ("The CI provider is GitLab CI." in a project on GitHub
Actions), a superseded value on a line of its own next to the current one, and each fact said twice,
as the memory_bank fact and as the stored exchange in which it was stated.
"""

from __future__ import annotations

import re
from pathlib import Path

from bench.experience.block import lines
from gateway.formatting import BLOCK_TOKENS, CONTEXT_END, CONTEXT_START, PREAMBLE, token_cost
from gateway.reply_models import ContextOut, SessionStartOut, StopOut, StoredFactOut
from tests.integration.gateway.live_stack import LiveStack

CI_FACT = "The CI provider is GitLab CI."
TABS_FACT = "I prefer tabs over spaces for indentation."
HUMAN_DATE = r"\d{1,2} [A-Z][a-z]{2} \d{4}"


def project(tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    (path / ".git").mkdir(parents=True)
    return str(path)


def context(live: LiveStack, session: str, prompt: str, cwd: str) -> ContextOut:
    """get-context's reply, read through the route's response model (so its shape is checked too)."""
    return ContextOut.model_validate(
        live.post_as("/api/hooks/get-context", {"session_id": session, "prompt": prompt, "cwd": cwd}, ContextOut)
    )


def state_in_a_turn(live: LiveStack, cwd: str, session: str, fact: str, **extra: object) -> tuple[str, str]:
    """The user states ``fact`` in a turn, the assistant stores it with add_to_memory_bank, the Stop
    hook stores the exchange: (the fact's id, the exchange's id)."""
    context(live, session, f"FYI for later: {fact}", cwd)
    added = live.post_as("/api/memory-bank/add", {"content": fact, "cwd": cwd, **extra}, StoredFactOut)
    answer = "Noted, I stored that in memory."
    stopped = live.post_as("/api/hooks/stop", {"session_id": session, "cwd": cwd, "assistant_text": answer}, StopOut)
    return added.memory.id, stopped.exchange_id


def memory_lines(known: str) -> list[str]:
    return [line.text for line in lines(known)]


def test_another_projects_fact_never_reaches_the_block_and_a_user_wide_one_reaches_both(
    live: LiveStack, tmp_path: Path
) -> None:
    gitlab, github = project(tmp_path, "on-gitlab"), project(tmp_path, "on-github")
    ci = live.post_as("/api/memory-bank/add", {"content": CI_FACT, "cwd": gitlab}, StoredFactOut).memory.id
    tabs = live.post_as(
        "/api/memory-bank/add", {"content": TABS_FACT, "cwd": gitlab, "user_wide": True}, StoredFactOut
    ).memory.id
    asked = "Which CI provider runs our pipelines, and do I indent the CI config with tabs or spaces?"
    here = context(live, "scope-gitlab", asked, gitlab)
    assert f"[id:{ci}]" in here.known_context and f"[id:{tabs}]" in here.known_context
    there = context(live, "scope-github", asked, github)
    assert f"[id:{tabs}]" in there.known_context
    assert f"[id:{ci}]" not in there.context and "GitLab" not in there.context
    assert ci not in [m.id for m in there.memories] and ci not in there.scoring_ids
    assert ci not in [c.id for c in there.choices]  # the search leaves it out: it takes no place
    # nor in the seed a new session starts with
    seed = live.post_as("/api/hooks/session-start", {"session_id": "scope-github-2", "cwd": github}, SessionStartOut)
    assert "GitLab" not in str(seed) and TABS_FACT in str(seed)


def test_a_superseded_value_is_a_note_on_the_current_line_not_a_line_of_its_own(
    live: LiveStack, tmp_path: Path
) -> None:
    cwd = project(tmp_path, "ledger")
    old, _ = state_in_a_turn(live, cwd, "pg-1", "The staging database for this service runs PostgreSQL 14.")
    chat = "Pin the CI Postgres service container to PostgreSQL 14 so it matches staging."
    context(live, "pg-2", chat, cwd)
    live.post_as(
        "/api/hooks/stop",
        {"session_id": "pg-2", "cwd": cwd, "assistant_text": "Done: ci.yml now uses the PostgreSQL 14 image."},
        StopOut,
    )
    new, _ = state_in_a_turn(live, cwd, "pg-3", "The staging database for this service runs PostgreSQL 16.")
    reply = context(live, "pg-4", "Which Postgres major version does staging run? I want pg_dump to match.", cwd)
    shown = memory_lines(reply.known_context)
    assert not [line for line in shown if "PostgreSQL 14" in line or old in line], shown
    [current] = [line for line in shown if "PostgreSQL 16" in line]
    assert f"[id:{new}]" in current
    assert re.search(rf"\(was 14 until {HUMAN_DATE}\)", current), current
    assert not re.search(r"\d{4}-\d{2}-\d{2}", current)  # a human date, not a timestamp


def test_a_fact_and_the_exchange_that_stated_it_are_one_line(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path, "ledger-cluster")
    fact, exchange = state_in_a_turn(live, cwd, "cluster-1", "The ledger staging cluster is called blue-7.")
    reply = context(live, "cluster-2", "What is the ledger staging cluster called again?", cwd)
    shown = memory_lines(reply.known_context)
    [line] = [line for line in shown if "blue-7" in line]
    assert f"[id:{fact}]" in line
    [collapsed] = [c for c in reply.choices if c.id == exchange]
    assert not collapsed.kept and collapsed.reason.startswith(f"duplicate of {fact}")
    [kept] = [c for c in reply.choices if c.id == fact]
    assert kept.merged_ids == [exchange]


def test_the_held_out_style_block_stays_within_its_budget(live: LiveStack, tmp_path: Path) -> None:
    """Facts stated in turns, one changed, chat about the old value, another project's fact, a user-wide one:
    the block's memory lines stay within BLOCK_TOKENS, and no line says a thing another line says."""
    ledger, storefront = project(tmp_path, "ledger-api"), project(tmp_path, "storefront")
    state_in_a_turn(live, ledger, "held-1", "The staging database for this service runs PostgreSQL 14.")
    state_in_a_turn(live, ledger, "held-2", "The release branch is main.")
    state_in_a_turn(live, storefront, "held-3", "The CI provider is GitLab CI.")
    state_in_a_turn(live, storefront, "held-4", "The staging database for the storefront runs PostgreSQL 15.")
    state_in_a_turn(live, ledger, "held-5", TABS_FACT, user_wide=True)
    context(live, "held-6", "Pin the CI Postgres service container to PostgreSQL 14 so it matches staging.", ledger)
    live.post_as(
        "/api/hooks/stop", {"session_id": "held-6", "cwd": ledger, "assistant_text": "Done: ci.yml pins 14."}, StopOut
    )
    state_in_a_turn(live, ledger, "held-7", "The staging database for this service runs PostgreSQL 16.")
    reply = context(live, "held-8", "Which Postgres version does staging run, and which CI provider do we use?", ledger)
    known = reply.known_context
    body = known.removeprefix(f"{CONTEXT_START}\n{PREAMBLE}\n").removesuffix(CONTEXT_END)
    assert token_cost(body) <= BLOCK_TOKENS and reply.tokens.known_context <= BLOCK_TOKENS
    shown = memory_lines(known)
    assert "GitLab" not in known and "PostgreSQL 15" not in known
    assert sum("PostgreSQL 16" in line for line in shown) == 1
    assert not [line for line in shown if "PostgreSQL 14" in line]
