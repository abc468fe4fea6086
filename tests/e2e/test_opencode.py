"""OpenCode 1.18, the real binary, through mnemex's plugin and MCP server.

One recorded conversation of three ``opencode run`` turns (the second and third
continue the first session) backs the loop scenarios. The model is a loopback
OpenAI-compatible fake that obeys the scoring prompt by calling
``mnemex_score_response`` through OpenCode's own MCP connection; OpenCode's
title generation goes to the same fake, on the small model.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gateway.reply_models import MemoryOut
from kernel.json_values import JSONArray
from tests.e2e.scenario import FACT, PROMPTS, hanging_port
from tests.e2e.scripted_model import (
    ANSWER,
    SCORE_BLOCK,
    ObedientModel,
    asks_for_scoring,
    conversation_text,
    has_tool_result,
    is_title_request,
    unanswered_scoring,
)
from tests.support.e2e_user import User, dump, mnemex_cli
from tests.support.fake_models import OpenAIServer, Request
from tests.support.real_clients import OpenCode, session_of
from tests.support.stack import Stack, free_port

pytestmark = pytest.mark.slow


@dataclass
class Conversation:
    user: User
    fact_id: str
    model: ObedientModel
    fact_before: MemoryOut
    fact_after_turn2: MemoryOut | None = None
    turns: list[list[Request]] = field(default_factory=list)
    titles: list[Request] = field(default_factory=list)


@pytest.fixture(scope="module")
def conversation(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Conversation]:
    home = tmp_path_factory.mktemp("opencode-user") / "home"
    project = home / "code" / "shop"
    (project / ".git").mkdir(parents=True)
    (home / "tmp").mkdir()
    user = User(home=home, project=project, stack=stack)
    model = ObedientModel("worked")
    with OpenAIServer(model) as server:
        opencode = OpenCode(home, server.url)
        opencode.write_config()
        user.init("opencode")
        fact_id = user.add_fact(FACT)
        convo = Conversation(user, fact_id, model, fact_before=user.memory(fact_id))
        session = None
        for index, prompt in enumerate(PROMPTS):
            server.clear()
            turn = opencode.run(prompt, project, session=session)
            assert turn.returncode == 0, turn.stdout[-3000:] + turn.stderr[-3000:]
            session = session or session_of(turn)
            calls = server.model_calls()
            convo.titles += [r for r in calls if is_title_request(r)]
            convo.turns.append([r for r in calls if not is_title_request(r)])
            if index == 1:
                convo.fact_after_turn2 = user.memory(fact_id)
    yield convo


def test_a_stored_fact_is_in_the_first_prompts_model_request(conversation: Conversation) -> None:
    first = conversation.turns[0][0]
    text = conversation_text(first)
    assert "KNOWN CONTEXT" in text and FACT in text and f"[id:{conversation.fact_id}]" in text, dump(first.body)


def system_messages(request: Request) -> JSONArray:
    """The request's system-role messages; a request without a list of messages fails the test."""
    messages = request.body.get("messages")
    assert isinstance(messages, list), dump(request.body)
    return [m for m in messages if isinstance(m, dict) and m.get("role") == "system"]


def test_memories_travel_with_the_users_message_not_the_system_prompt(conversation: Conversation) -> None:
    for turn in conversation.turns:
        for request in turn:
            system = system_messages(request)
            assert FACT not in json.dumps(system) and SCORE_BLOCK not in Request("", {"s": system}).text()
    systems = {json.dumps(system_messages(turn[0])) for turn in conversation.turns}
    assert len(systems) == 1, "the system prompt changed from prompt to prompt (prefix caches miss)"


def test_title_generation_never_sees_memories(conversation: Conversation) -> None:
    assert conversation.titles, "OpenCode generated no title: the scenario did not run as expected"
    for request in conversation.titles:
        text = conversation_text(request)
        assert "KNOWN CONTEXT" not in text and FACT not in text and SCORE_TAG_TEXT not in text, dump(request.body)


SCORE_TAG_TEXT = "mnemex-score-required"


def test_the_exchange_is_stored_under_the_project_of_the_working_directory(conversation: Conversation) -> None:
    exchanges = conversation.user.exchanges()
    first = [e for e in exchanges if PROMPTS[0] in e.content]
    assert len(first) == 1, dump(exchanges)
    assert ANSWER + PROMPTS[0] in first[0].content


def test_the_next_prompt_carries_the_scoring_prompt(conversation: Conversation) -> None:
    assert not asks_for_scoring(conversation.turns[0][0]), "nothing to score before the first exchange"
    first_of_turn2 = conversation.turns[1][0]
    assert unanswered_scoring(first_of_turn2), dump(first_of_turn2.body)
    assert conversation.fact_id in conversation_text(first_of_turn2).split(SCORE_BLOCK, 1)[1]


def test_score_response_through_opencodes_mcp_connection_changes_the_memory(conversation: Conversation) -> None:
    assert [c["tool"] for c in conversation.model.score_calls][:1] == ["mnemex_score_response"]
    after_tool = [r for r in conversation.turns[1] if has_tool_result(r)]
    assert after_tool, "OpenCode never returned the tool's result to the model"
    assert "Scored" in conversation_text(after_tool[0])
    before, after = conversation.fact_before, conversation.fact_after_turn2
    assert after is not None, "the fact was not read after turn 2"
    assert after.uses == before.uses + 1 and after.last_outcome == "worked", (before, after)


def test_no_later_request_of_the_turn_asks_for_scoring_again(conversation: Conversation) -> None:
    turn2 = conversation.turns[1]
    assert len(turn2) >= 2, "expected the score call and the answer after it"
    assert [unanswered_scoring(r) for r in turn2[1:]] == [False] * (len(turn2) - 1), dump(turn2[-1].body)
    assert len(conversation.model.score_calls) == 2, conversation.model.score_calls  # once in turn 2, once in turn 3
    assert unanswered_scoring(conversation.turns[2][0]), "turn 3 must ask for turn 2's exchange"


FAIL_OPEN_BOUND_S = 2.0  # the plugin's per-call timeout (MNEMEX_HOOK_TIMEOUT_MS, 2000)
CALLS_PER_TURN = 2  # get-context before the prompt, stop after the answer


def test_with_the_stack_down_opencode_still_answers_within_the_fail_open_bound(user: User, tmp_path: Path) -> None:
    with hanging_port() as gateway_port, OpenAIServer(ObedientModel()) as server:
        bare = OpenCode(tmp_path / "bare-home", server.url)
        bare.write_config()
        (bare.home / "tmp").mkdir()
        opencode = OpenCode(user.home, server.url)
        opencode.write_config()
        env = {
            **user.shell_env,
            "MNEMEX_HOME": str(tmp_path / "down-home"),
            "MNEMEX_GATEWAY_ADDR": f"127.0.0.1:{gateway_port}",
            "MNEMEX_AUTOSTART": "0",
        }
        for name in ("EMBEDDING", "MEMORY", "KG"):
            env[f"MNEMEX_{name}_ADDR"] = f"127.0.0.1:{free_port()}"
        done = mnemex_cli(["init", "--client", "opencode"], env)
        assert done.returncode == 0, done.stdout + done.stderr
        bare.run("warm up", user.project)  # OpenCode's first start in a home installs its own packages
        opencode.run("warm up", user.project)
        plain = bare.run(PROMPTS[0], user.project)
        with_mnemex = opencode.run(PROMPTS[0], user.project)
    for turn in (plain, with_mnemex):
        assert turn.returncode == 0 and ANSWER + PROMPTS[0] in turn.stdout, turn.stdout[-2000:] + turn.stderr[-2000:]
    added = with_mnemex.seconds - plain.seconds
    assert added <= CALLS_PER_TURN * FAIL_OPEN_BOUND_S + 2.0, (plain.seconds, with_mnemex.seconds)
