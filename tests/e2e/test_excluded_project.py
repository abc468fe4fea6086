"""An excluded project, with the real Claude Code binary: a turn there stores nothing and gets no context."""

from __future__ import annotations

import time

import pytest

from gateway.formatting import CONTEXT_START
from tests.e2e.scripted_model import ObedientModel
from tests.support.e2e_user import User, dump, mnemex_cli
from tests.support.fake_models import AnthropicServer
from tests.support.real_clients import ClaudeCode

pytestmark = pytest.mark.slow

FACT = "The billing service deploys with kubectl rollout from the green cluster"


def test_a_turn_in_an_excluded_project_stores_nothing_and_gets_no_context(user: User) -> None:
    user.init("claude")
    user.add_fact(FACT, user_wide=True)  # a project fact of the excluded project would never reach the control
    excluded = mnemex_cli(["projects", "--exclude", str(user.project)], user.shell_env)
    assert excluded.returncode == 0, excluded.stdout + excluded.stderr
    control = User(home=user.home, project=user.home / "code" / "open", stack=user.stack)
    (control.project / ".git").mkdir(parents=True)
    prompt = "How do we deploy the billing service?"
    with AnthropicServer(ObedientModel("worked")) as server:
        claude = ClaudeCode(user.home, server.url)
        turn = claude.run(prompt, user.project)
        assert turn.returncode == 0, turn.stdout + turn.stderr
        calls = server.model_calls()
        # the block's own delimiter: the MCP server's instructions name "KNOWN CONTEXT" in prose
        assert calls and all(CONTEXT_START not in c.text() and FACT not in c.text() for c in calls), dump(
            [c.body for c in calls]
        )
        server.clear()
        # The same turn in a project that is not excluded does get context and is stored (the control).
        turn = claude.run(prompt, control.project)
        assert turn.returncode == 0, turn.stdout + turn.stderr
        assert any(FACT in c.text() for c in server.model_calls())
    deadline = time.monotonic() + 15
    while not any(prompt in e.content for e in control.exchanges()):
        assert time.monotonic() < deadline, "the control turn's exchange was never stored"
        time.sleep(0.2)
    assert [e for e in user.exchanges() if prompt in e.content] == [], dump(user.exchanges())
