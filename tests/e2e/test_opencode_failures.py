"""OpenCode 1.18, the real binary: a failing bash command reaches the kg through the plugin.

mnemex's plugin hooks ``tool.execute.after`` (OpenCode's counterpart of Claude Code's
PostToolUse / PostToolUseFailure): the bash tool reports its exit code in ``metadata.exit``,
and the plugin posts the command, its output and that code to the gateway. Once the turn is
scored ``failed``, the failed command and its error are what the kg warns with when the
problem comes back in other words.
"""

from __future__ import annotations

import pytest

from gateway.formatting import FAILURES_TITLE
from gateway.reply_models import ContextOut, ScoreOut, SearchOut
from tests.e2e.scenario import wait_for_exchange
from tests.e2e.scripted_model import has_tool_result, is_title_request, last_user_text
from tests.support.e2e_user import User, dump
from tests.support.fake_models import OpenAIServer, Reply, Request, Text, ToolCall
from tests.support.real_clients import OpenCode, session_of

pytestmark = pytest.mark.slow

PROBLEM = "the nightly ledger job crashes on startup: ModuleNotFoundError for the rates module"
RECURRENCE = "the invoice job fails on startup, python cannot import the pricing module"
COMMAND = "python3 -c 'import ledgerx_rates'"


def model(request: Request) -> Reply:
    """Runs the failing command once for the problem prompt, then answers."""
    if is_title_request(request):
        return Text("Ledger job")
    if PROBLEM in last_user_text(request) and not has_tool_result(request):
        return ToolCall("bash", {"command": COMMAND, "description": "try the import"})
    return Text("The rates module is not importable from here.")


def test_a_failing_bash_command_reaches_the_kg_through_the_plugin(user: User) -> None:
    with OpenAIServer(model) as server:
        opencode = OpenCode(user.home, server.url)
        opencode.write_config()
        user.init("opencode")
        turn = opencode.run(PROBLEM, user.project)
        assert turn.returncode == 0, turn.stdout[-3000:] + turn.stderr[-3000:]
        session = session_of(turn)
    observed = user.stack.post(
        "/api/search", {"query": "Ran python3", "cwd": str(user.project), "collections": ["working"], "limit": 20}
    )
    assert any(
        m.content.startswith("Ran python3") and "[failed: ModuleNotFoundError" in m.content
        for m in SearchOut.model_validate(observed).memories
    ), dump(observed)
    wait_for_exchange(user, PROBLEM)
    # The assistant scores the turn failed (as the next prompt's scoring block asks).
    scored = user.stack.post(
        "/api/record-outcome", {"session_id": session, "cwd": str(user.project), "outcome": "failed"}
    )
    episode = ScoreOut.model_validate(scored).kg.episode
    assert episode is not None and PROBLEM in episode.problem, dump(scored)  # opencode run quotes the message
    later = user.stack.post(
        "/api/hooks/get-context", {"session_id": "later", "prompt": RECURRENCE, "cwd": str(user.project)}
    )
    warned = ContextOut.model_validate(later).known_context.split(FAILURES_TITLE, 1)
    assert len(warned) == 2 and COMMAND in warned[1] and "ModuleNotFoundError" in warned[1], dump(later)
