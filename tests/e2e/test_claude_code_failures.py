"""Claude Code 2.1, the real binary: a failing command reaches the kg and warns the next time.

Checked with the binary: a Bash call that exits non-zero fires ``PostToolUseFailure``
(``tool_name``, ``tool_input``, ``tool_use_id``, ``error`` = "Exit code N" + the output),
not ``PostToolUse``; ``mnemex init`` registers both.

The scripted model solves a problem the hard way in one session: two commands fail and
it scores those turns ``failed``, then a fix works. In a new session the problem comes back
in other words and with other names; the block the model receives names the failed
commands with their error under "What failed before" and the fix under "What worked before".
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass

import pytest

from gateway.formatting import FAILURES_TITLE, SOLUTIONS_TITLE
from kernel.json_values import objects_at
from tests.e2e.scenario import wait_for_exchange
from tests.e2e.scripted_model import SCORE_TOOL, last_user_text, scores_this_turn, unanswered_scoring
from tests.support.e2e_user import User, dump
from tests.support.fake_models import AnthropicServer, Reply, Request, Text, ToolCall
from tests.support.real_clients import ClaudeCode

pytestmark = pytest.mark.slow

FIRST_TRY = "python3 -c 'import ledgerx_rates'"
SECOND_TRY = "ls vendor/ledgerx_rates"
FIX = "Fixed: the rates package lives in src/, so the job's env file now sets PYTHONPATH=src."


@dataclass(frozen=True)
class Step:
    command: str  # a Bash command the model runs this turn ("" for none)
    previous: str  # the outcome it gives the previous exchange when asked to score ("" for none)
    answer: str


SCRIPT = {
    "the nightly ledger job crashes on startup: ModuleNotFoundError for the rates module": Step(
        FIRST_TRY, "", "I tried importing the rates module directly; it is not on the path."
    ),
    "still broken, same traceback": Step(SECOND_TRY, "failed", "I looked for a vendored copy of the package."),
    "nope, the same error again": Step("", "failed", FIX),
    "that did it, thanks": Step("", "worked", "Glad it works."),
}
RECURRENCE = "the invoice job fails on startup, python cannot import the pricing module"


class EpisodeModel:
    """Follows ``SCRIPT`` for each prompt: scores the previous exchange when the scoring prompt asks,
    runs the step's command once, then answers."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, object]]] = []
        self.seen: list[tuple[str, bool, bool]] = []
        self._lock = threading.Lock()

    def _call(self, name: str, arguments: dict[str, object]) -> ToolCall:
        with self._lock:
            self.calls.append((name, arguments))
        return ToolCall(name, arguments)

    def __call__(self, request: Request) -> Reply:
        step = SCRIPT.get(last_user_text(request).strip(), Step("", "", "Noted."))
        score = next((name for name in request.tool_names() if SCORE_TOOL.match(name)), None)
        self.seen.append((last_user_text(request).strip()[:30], bool(score), unanswered_scoring(request)))
        if score and step.previous and unanswered_scoring(request) and scores_this_turn(request) == 0:
            return self._call(score, {"outcome": step.previous})
        if step.command and not _ran_this_turn(request, step.command):
            return self._call("Bash", {"command": step.command, "description": "try a fix"})
        return Text(step.answer)


def _ran_this_turn(request: Request, command: str) -> bool:
    messages = list(objects_at(request.body, "messages"))
    return command in json.dumps(messages[-6:])


def test_a_failing_command_is_warned_under_what_failed_before_in_a_new_session(user: User) -> None:
    user.init("claude")
    model = EpisodeModel()
    with AnthropicServer(model) as server:
        claude = ClaudeCode(user.home, server.url)
        session = ""
        for prompt in SCRIPT:
            turn = claude.run(prompt, user.project, resume=session or None, allowed_tools="Bash")
            assert turn.returncode == 0, turn.stdout + turn.stderr
            session = session or turn.session_id()
            wait_for_exchange(user, prompt)
        assert [c for c in model.calls if c[0] == "Bash"] == [
            ("Bash", {"command": FIRST_TRY, "description": "try a fix"}),
            ("Bash", {"command": SECOND_TRY, "description": "try a fix"}),
        ]
        assert [c[1]["outcome"] for c in model.calls if c[0] != "Bash"] == ["failed", "failed", "worked"], model.seen

        server.clear()
        later = claude.run(RECURRENCE, user.project, allowed_tools="Bash")
        assert later.returncode == 0, later.stdout + later.stderr
        first_request = server.model_calls()[0].text()
    probe = user.stack.post(
        "/api/hooks/get-context", {"session_id": "probe", "prompt": RECURRENCE, "cwd": str(user.project)}
    )
    assert FAILURES_TITLE in first_request, dump(probe) + first_request[:200]
    warned = first_request.split(FAILURES_TITLE, 1)[1].split("END CONTEXT", 1)[0]
    assert FIRST_TRY in warned and "ModuleNotFoundError" in warned, warned
    assert SECOND_TRY in warned and "No such file or directory" in warned, warned
    assert SOLUTIONS_TITLE in first_request and "PYTHONPATH=src" in first_request.split(FAILURES_TITLE)[0]
