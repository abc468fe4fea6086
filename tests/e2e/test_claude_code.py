"""Claude Code 2.1, the real binary, through mnemex's hooks and MCP server.

One recorded conversation of three ``claude -p`` turns (the second and third
resume the first session) backs the loop scenarios; the model is a loopback
fake that obeys the scoring prompt by calling ``score_response`` through
Claude Code's own MCP connection.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gateway.reply_models import MemoryOut, SearchOut
from tests.e2e.scenario import FACT, PROMPTS, hanging_port
from tests.e2e.scripted_model import (
    ANSWER,
    SCORE_BLOCK,
    ObedientModel,
    asks_for_scoring,
    conversation_text,
    has_tool_result,
    unanswered_scoring,
)
from tests.support.e2e_user import User, dump, mnemex_cli
from tests.support.fake_models import AnthropicServer, Request
from tests.support.real_clients import ClaudeCode
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
    session_id: str = ""


@pytest.fixture(scope="module")
def conversation(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Conversation]:
    home = tmp_path_factory.mktemp("claude-user") / "home"
    project = home / "code" / "shop"
    (project / ".git").mkdir(parents=True)
    user = User(home=home, project=project, stack=stack)
    user.init("claude")
    fact_id = user.add_fact(FACT)
    model = ObedientModel("worked")
    convo = Conversation(user, fact_id, model, fact_before=user.memory(fact_id))
    with AnthropicServer(model) as server:
        claude = ClaudeCode(home, server.url)
        for index, prompt in enumerate(PROMPTS):
            server.clear()
            turn = claude.run(prompt, project, resume=convo.session_id or None)
            assert turn.returncode == 0, turn.stdout + turn.stderr
            convo.session_id = convo.session_id or turn.session_id()
            convo.turns.append(server.model_calls())
            if index == 1:
                convo.fact_after_turn2 = user.memory(fact_id)
    yield convo


def test_a_stored_fact_is_in_the_first_prompts_model_request(conversation: Conversation) -> None:
    first = conversation.turns[0][0]
    text = first.text()
    assert "KNOWN CONTEXT" in text and FACT in text and f"[id:{conversation.fact_id}]" in text, dump(first.body)


def test_the_exchange_is_stored_under_the_project_of_the_working_directory(conversation: Conversation) -> None:
    exchanges = conversation.user.exchanges()
    first = [e for e in exchanges if PROMPTS[0] in e.content]
    assert len(first) == 1, dump(exchanges)
    assert ANSWER + PROMPTS[0] in first[0].content
    elsewhere = conversation.user.stack.post(
        "/api/search", {"collections": ["working"], "cwd": str(conversation.user.home), "query": PROMPTS[0]}
    )
    found = SearchOut.model_validate(elsewhere).memories
    assert all(PROMPTS[0] not in r.content for r in found), "stored under the wrong project"


def test_the_next_prompt_carries_the_scoring_prompt(conversation: Conversation) -> None:
    first_of_turn2 = conversation.turns[1][0]
    assert asks_for_scoring(first_of_turn2), dump(first_of_turn2.body)
    assert conversation.fact_id in conversation_text(first_of_turn2).split(SCORE_BLOCK, 1)[1]
    assert not asks_for_scoring(conversation.turns[0][0]), "nothing to score before the first exchange"


def test_score_response_through_claude_codes_mcp_connection_changes_the_memory(conversation: Conversation) -> None:
    assert [c["tool"] for c in conversation.model.score_calls][:1] == ["mcp__mnemex__score_response"]
    after_tool = [r for r in conversation.turns[1] if has_tool_result(r)]
    assert after_tool, "Claude Code never returned the tool's result to the model"
    result_text = after_tool[0].text()
    assert "Scored" in result_text or "scored" in result_text, result_text[-2000:]
    before, after = conversation.fact_before, conversation.fact_after_turn2
    assert after is not None, "the fact was not read after turn 2"
    assert after.uses == before.uses + 1 and after.last_outcome == "worked", (before, after)


def test_no_later_request_of_the_turn_asks_for_scoring_again(conversation: Conversation) -> None:
    turn2 = conversation.turns[1]
    assert unanswered_scoring(turn2[0])
    assert [unanswered_scoring(r) for r in turn2[1:]] == [False] * (len(turn2) - 1), dump(turn2[-1].body)
    assert len(conversation.model.score_calls) == 2, conversation.model.score_calls  # once in turn 2, once in turn 3
    # scoring during turn 2 did not use up turn 3's prompt: turn 3 asks for turn 2's exchange
    assert unanswered_scoring(conversation.turns[2][0])


HOOK_BOUND_S = 2.0  # a hook's hard bound from spawn (hooks/hook_main.py: DEFAULT_TIMEOUT 1.8 s + interpreter start)
HOOKS_PER_TURN = 3  # SessionStart, UserPromptSubmit, Stop


def test_with_the_stack_down_claude_still_answers_within_the_fail_open_bound(user: User, tmp_path: Path) -> None:
    """Worst case: a gateway that accepts connections and never answers, every service down."""
    with hanging_port() as gateway_port:
        env = {
            **user.shell_env,
            "MNEMEX_HOME": str(tmp_path / "down-home"),  # its own home: the suite's stack keeps its connection file
            "MNEMEX_GATEWAY_ADDR": f"127.0.0.1:{gateway_port}",
            "MNEMEX_AUTOSTART": "0",
        }
        for name in ("EMBEDDING", "MEMORY", "KG"):
            env[f"MNEMEX_{name}_ADDR"] = f"127.0.0.1:{free_port()}"
        done = mnemex_cli(["init", "--client", "claude"], env)
        assert done.returncode == 0, done.stdout + done.stderr
        bare_home = tmp_path / "bare-home"
        (bare_home / "tmp").mkdir(parents=True)
        with AnthropicServer(ObedientModel()) as server:
            plain = ClaudeCode(bare_home, server.url).run(PROMPTS[0], user.project)
            with_mnemex = ClaudeCode(user.home, server.url).run(PROMPTS[0], user.project)
    for turn in (plain, with_mnemex):
        assert turn.returncode == 0 and turn.json()["result"] == ANSWER + PROMPTS[0], turn.stdout + turn.stderr
    added = with_mnemex.seconds - plain.seconds
    assert added <= HOOKS_PER_TURN * HOOK_BOUND_S + 1.5, (plain.seconds, with_mnemex.seconds)
