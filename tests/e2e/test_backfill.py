"""`mnemex backfill` imports what the real Claude Code and OpenCode binaries recorded, into the real stack.

A user who never installed mnemex's hooks has two sessions on disk: two
``claude -p`` turns (the second resumes the first) and two ``opencode run``
turns (the second continues the session), all in one project folder. One
``mnemex backfill --json`` stores the four exchanges under that project,
dated when they happened, with their texts; a second run stores nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

import pytest

from gateway.reply_models import SearchHitOut, SearchOut
from kernel.json_values import JSONObject, object_at, parse_object
from mnemex.backfill.exchange import Exchange
from mnemex.backfill.reading import open_reading
from mnemex.backfill.sources import discover
from tests.support.e2e_user import User, dump, mnemex_cli
from tests.support.fake_models import AnthropicServer, OpenAIServer, Reply, Request, Text
from tests.support.real_clients import ClaudeCode, OpenCode, session_of
from tests.support.stack import Stack

pytestmark = pytest.mark.slow

CLAUDE_PROMPTS = ("Where do the shop service's logs go?", "How long are they kept?")
OPENCODE_PROMPTS = ("Which queue does checkout use?", "What is its retry policy?")
ANSWERS = {
    CLAUDE_PROMPTS[0]: "Logs ship to Loki under the app=shop label.",
    CLAUDE_PROMPTS[1]: "Loki keeps them for 30 days.",
    OPENCODE_PROMPTS[0]: "Checkout publishes to the orders queue on RabbitMQ.",
    OPENCODE_PROMPTS[1]: "Three retries with exponential backoff, then the dead-letter queue.",
}


def answer_latest_prompt(request: Request) -> Reply:
    """The answer to the latest of our prompts in the request (the conversation carries the earlier ones)."""
    text = request.text()
    asked = [p for p in ANSWERS if p in text]
    latest = max(asked, key=text.rfind) if asked else ""
    return Text(ANSWERS.get(latest, "Noted."))


@dataclass
class History:
    user: User
    exchanges: list[Exchange]  # as the readers see the transcripts, to compare with what was stored


def backfill(user: User, *args: str) -> JSONObject:
    done = mnemex_cli(["backfill", "--json", *args], user.shell_env)
    assert done.returncode == 0, done.stdout + done.stderr
    return parse_object(done.stdout)


def count(counts: JSONObject, key: str) -> int:
    """A count in the backfill report; anything but an integer fails the test."""
    value = counts.get(key)
    assert isinstance(value, int), (key, counts)
    return value


@pytest.fixture(scope="module")
def history(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[History]:
    home = tmp_path_factory.mktemp("backfill-user") / "home"
    project = home / "code" / "shop"
    (project / ".git").mkdir(parents=True)
    (home / "tmp").mkdir()
    user = User(home=home, project=project, stack=stack)  # no `mnemex init`: no hooks recorded anything live
    with AnthropicServer(answer_latest_prompt) as server:
        claude = ClaudeCode(home, server.url)
        session = None
        for prompt in CLAUDE_PROMPTS:
            turn = claude.run(prompt, project, resume=session)
            assert turn.returncode == 0, turn.stdout + turn.stderr
            session = session or turn.session_id()
    with OpenAIServer(answer_latest_prompt) as server:
        opencode = OpenCode(home, server.url)
        opencode.write_config()
        session = None
        for prompt in OPENCODE_PROMPTS:
            turn = opencode.run(prompt, project, session=session)
            assert turn.returncode == 0, turn.stdout + turn.stderr
            session = session or session_of(turn)
    found = discover(home)
    exchanges = [e for source in found.sources for e in open_reading(source).exchanges]
    yield History(user, exchanges)


def stored_exchanges(user: User) -> list[SearchHitOut]:
    reply = user.stack.post(
        "/api/search",
        {
            "collections": ["working", "history", "patterns"],
            "cwd": str(user.project),
            "days_back": 7,
            "limit": 50,
            "sort_by": "recency",
        },
    )
    return SearchOut.model_validate(reply).memories


def seconds_apart(stored: str, recorded: str) -> float:
    def parse(value: str) -> datetime:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))

    return abs((parse(stored) - parse(recorded)).total_seconds())


def test_the_real_transcripts_hold_the_four_exchanges(history: History) -> None:
    assert sorted((e["client"], e["user_text"].strip('"')) for e in history.exchanges) == sorted(
        [("claude", p) for p in CLAUDE_PROMPTS] + [("opencode", p) for p in OPENCODE_PROMPTS]
    ), dump(history.exchanges)
    assert {e["cwd"] for e in history.exchanges} == {str(history.user.project)}


def test_backfill_stores_every_exchange_under_its_project_with_its_date_and_texts(history: History) -> None:
    report = backfill(history.user)
    exchanges, projects = object_at(report, "exchanges"), object_at(report, "projects")
    assert count(exchanges, "stored") == 4 and count(exchanges, "existing") == 0, dump(report)
    assert count(object_at(report, "files"), "failed") == 0
    assert len(projects) == 1 and count(object_at(projects, next(iter(projects))), "stored") == 4, dump(report)
    stored = stored_exchanges(history.user)
    for exchange in history.exchanges:
        prompt, answer = exchange["user_text"].strip('"'), exchange["assistant_text"]
        matches = [m for m in stored if prompt in m.content and answer in m.content]
        assert len(matches) == 1, (exchange, dump(stored))
        memory = matches[0]
        dates = [memory.created_at, str(memory.metadata.get("started_at") or "")]
        assert any(d and seconds_apart(d, exchange["started_at"]) <= 1.0 for d in dates), (exchange, memory)
    elsewhere = history.user.stack.post(
        "/api/search",
        {"collections": ["working", "history"], "cwd": str(history.user.home), "query": CLAUDE_PROMPTS[0]},
    )
    found = SearchOut.model_validate(elsewhere).memories
    assert all(CLAUDE_PROMPTS[0] not in m.content for m in found), "stored under the wrong project"


def test_a_second_run_stores_nothing(history: History) -> None:
    again = backfill(history.user)
    counts = object_at(again, "exchanges")
    assert count(counts, "stored") == 0 and count(counts, "sent") == 0, dump(again)
    rescanned = backfill(history.user, "--rescan")
    counts = object_at(rescanned, "exchanges")
    assert count(counts, "stored") == 0 and count(counts, "existing") == 4, dump(rescanned)
    assert len([m for m in stored_exchanges(history.user) if CLAUDE_PROMPTS[0] in m.content]) == 1
