"""What a session turn's injection cost, as the viewer estimates it from the memories injected."""

from __future__ import annotations

from gateway import formatting
from gateway.ui.page_render import ALL_PROJECTS, NAV, env, static_url, url
from gateway.ui.turn_rows import DEFAULT_CONTEXT_LIMIT, injected_tokens


def _memory(id: str, content: str) -> dict[str, object]:
    return {"id": id, "collection": "memory_bank", "content": content, "metadata": {}, "score": 0.5, "tags": []}


def test_a_turns_tokens_are_those_of_the_block_get_context_formats() -> None:
    memories = [_memory("memory_bank_1", "Deploy with Helm on the blue cluster"), _memory("memory_bank_2", "x" * 900)]
    block = formatting.known_context(
        memories,
        budget=formatting.block_chars(DEFAULT_CONTEXT_LIMIT),
        content_limit=formatting.INJECTED_MEMORY_CHARS,
    )
    assert block and injected_tokens(memories) == formatting.token_cost(block)
    assert injected_tokens(memories) < formatting.token_cost("x" * 900)  # each line is cut as injected
    assert injected_tokens([]) == 0


def test_the_session_page_shows_each_injections_tokens() -> None:
    memory = _memory("memory_bank_1", "Deploy with Helm on the blue cluster")
    tokens = injected_tokens([memory])
    turn: dict[str, object] = {
        **dict.fromkeys(("exchange_id", "outcome", "client"), ""),
        "id": 1,
        "prompt": "how do we deploy?",
        "started_at": "2026-11-27T10:00:00Z",
        "completed": True,
        "choices": [],
        "left_out": [],
        "tokens": tokens,
        "memories": [{"rank": 1, "id": memory["id"], "memory": memory, "outcome": None, "choice": None}],
    }
    html = env.get_template("session.html").render(
        csrf="",
        project="p",
        page="Sessions",
        nav=NAV,
        project_names=["p"],
        project_labels={"p": "p"},
        switch_path="/ui/sessions",
        all_projects=ALL_PROJECTS,
        token_set=False,
        static=static_url,
        link=lambda path, **params: url(path, project="p", **params),
        session_id="s",
        turns=[turn],
    )
    assert f'data-testid="turn-tokens">· about {tokens} tokens<' in html and tokens > 0
