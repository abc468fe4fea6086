"""A turn is read whole: its injected lines, why each was chosen, and its client, or not at all.

PrepareContext records the injection after it answers (a deferred write). The viewer's
turn read waits for that write, and the injection, the choices and the client land in
one transaction, so the session page never shows a line without the reason it was
kept (the "copies folded in" it names came from the choices).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np

from services.memory.domain.search_params import build_search_params
from tests.support.memory_core import make_core, unit


def test_a_turn_read_right_after_the_prompt_holds_its_injection_and_choices(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        vector = unit(np.random.default_rng(3).standard_normal(384).astype(np.float32))
        stored = await core.writes.store(
            scope, collection="working", content="pip install -e . fixed the billing import", vector=vector
        )
        params = build_search_params(query="billing import", has_vector=True, limit=5, collections=["working"])
        await core.prepare.select(scope, "s1", params, vector, "the billing import fails again", client="claude")
        # No settle here: the read itself must wait for the deferred write.
        turns = await core.viewer.turns(scope, session_id="s1", memory_id="", limit=10)
        assert len(turns) == 1, "the turn PrepareContext recorded is not visible to the viewer yet"
        turn = turns[0]
        assert turn.injected_ids == [stored.memory.id]
        chosen = {c["id"]: c for c in json.loads(turn.choices)}
        assert chosen[stored.memory.id]["kept"] is True
        assert turn.client == "claude"
        await core.close()

    asyncio.run(main())


def test_the_injection_and_its_choices_are_one_write(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        choices = json.dumps([{"id": "working_a", "kept": True, "merged_ids": ["history_b"]}])
        core.turn_store.record_injection(
            scope, "s2", ["working_a"], "why does it fail", 1.0, choices=choices, client="cursor"
        )
        (turn,) = core.turn_store.turns(scope, session_id="s2")
        assert (turn.injected_ids, turn.choices, turn.client) == (["working_a"], choices, "cursor")
        # A follow-up injection into the same (open) turn keeps one row and takes the newer choices.
        later = json.dumps([{"id": "working_c", "kept": True}])
        core.turn_store.record_injection(scope, "s2", ["working_c"], "", 2.0, choices=later)
        (turn,) = core.turn_store.turns(scope, session_id="s2")
        assert (turn.injected_ids, turn.choices, turn.client) == (["working_a", "working_c"], later, "cursor")
        await core.close()

    asyncio.run(main())
