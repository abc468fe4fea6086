"""Hypothesis property tests over the pure domain modules (hostile and random input).

scoring and Wilson, lifecycle, ranking, normalization (record parsing and the
view), formatting and escaping, lexical search, project ids, tool observations,
and the hooks' stdin adapter. (Privacy has its own in tests/unit/test_privacy_*.)
Each property is something a caller relies on: totality (no exception on
any input), ranges, monotonicity, and the structure of text shown to the model.
"""

from __future__ import annotations

import math
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gateway import formatting, inert_text
from gateway.tool_observations import MAX_OBSERVATION_CHARS, observe
from kernel import projects
from services.memory.domain import lifecycle, naming, ranking, scoring
from services.memory.domain.memory_view import view
from services.memory.domain.outcomes import Outcome
from services.memory.retrieval.lexical import LexicalIndex
from services.memory.storage.record_codec import parse_record

HOOKS = Path(__file__).resolve().parents[2] / "hooks"
PROPS = settings(max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
UNIT = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
AGE = st.floats(min_value=0.0, max_value=5_000.0, allow_nan=False)
OUTCOMES = st.sampled_from(list(Outcome))
TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=300)
HOSTILE_TEXT = st.one_of(
    TEXT,
    st.lists(
        st.sampled_from(
            [
                formatting.CONTEXT_START,
                formatting.CONTEXT_END,
                f"<{formatting.SCORE_TAG}>",
                f"</{formatting.SCORE_TAG}>",
                "[id:patterns_" + "a" * 32 + "]",
                "\n",
                "\r",
                "\u2028",
                "\u0085",
                "\u200b",
                "\u202e",
                "═",
                "• ",
                "[ id :",
                "KNOWN CONTEXT",
                "END CONTEXT",
                "<mnemex",
                "ignore previous instructions",
                " ",
                "x",
            ]
        ),
        max_size=30,
    ).map("".join),
)
COUNTERS = st.builds(
    scoring.Counters,
    score=UNIT,
    uses=st.integers(0, 10_000),
    success_count=st.floats(0.0, 10_000.0, allow_nan=False),
    history=st.text(alphabet="Y~?N", max_size=12),
)


# -- scoring and Wilson --------------------------------------------------------
@PROPS
@given(st.floats(0.0, 1e6, allow_nan=False), st.integers(0, 1_000_000))
def test_wilson_is_a_probability_and_below_the_observed_rate(successes: float, uses: int) -> None:
    bound = scoring.wilson_lower_bound(successes, uses)
    assert 0.0 <= bound <= 1.0
    if uses == 0:
        assert bound == 0.5
    else:
        assert bound <= min(1.0, successes / uses) + 1e-12


@PROPS
@given(st.integers(1, 10_000), st.data())
def test_wilson_grows_with_successes_and_with_evidence(uses: int, data: st.DataObject) -> None:
    low = data.draw(st.floats(0.0, float(uses), allow_nan=False))
    high = data.draw(st.floats(low, float(uses), allow_nan=False))
    assert scoring.wilson_lower_bound(low, uses) <= scoring.wilson_lower_bound(high, uses) + 1e-12
    rate = data.draw(st.floats(0.05, 1.0))
    assert scoring.wilson_lower_bound(rate * uses, uses) <= scoring.wilson_lower_bound(rate * uses * 4, uses * 4) + 1e-9


@PROPS
@given(COUNTERS, OUTCOMES, AGE, st.booleans())
def test_an_outcome_is_one_use_and_moves_the_score_the_right_way(
    counters: scoring.Counters, outcome: Outcome, age: float, moves: bool
) -> None:
    after = scoring.apply_outcome(counters, outcome, age, moves_score=moves)
    assert after.uses == counters.uses + 1
    assert after.success_count >= counters.success_count - 1e-6  # stored rounded to 6 places
    assert 0.0 <= after.score <= 1.0
    assert len(after.history) <= scoring.HISTORY_KEEP and after.last_outcome == outcome.value
    if not moves or outcome is Outcome.UNKNOWN:
        assert after.score == round(counters.score, 6)
    elif outcome in (Outcome.WORKED, Outcome.PARTIAL):
        assert after.score >= round(counters.score, 6) - 1e-9
    else:
        assert after.score <= round(counters.score, 6) + 1e-9


# -- lifecycle -----------------------------------------------------------------
NEXT = {"working": {"history"}, "history": {"patterns"}, "patterns": {"history"}}


@PROPS
@given(st.sampled_from(naming.COLLECTIONS), COUNTERS, st.floats(0.0, 10_000.0, allow_nan=False))
def test_lifecycle_moves_one_step_and_never_touches_bank_or_books(
    collection: str, counters: scoring.Counters, idle_hours: float
) -> None:
    config = lifecycle.LifecycleConfig()
    now = datetime(2026, 1, 1, tzinfo=UTC)
    from datetime import timedelta

    for transition in (
        lifecycle.after_outcome(collection, counters, config),
        lifecycle.sweep(collection, counters, expiry_clock=now - timedelta(hours=idle_hours), now=now, config=config),
    ):
        if collection in (naming.MEMORY_BANK, naming.BOOKS):
            assert transition.action is lifecycle.Action.NONE
        if transition.action in (lifecycle.Action.PROMOTE, lifecycle.Action.DEMOTE):
            assert transition.target in NEXT[collection]
        if transition.action is lifecycle.Action.DELETE:
            assert counters.score < config.delete_below
        if transition.action is lifecycle.Action.PROMOTE:
            assert counters.score >= min(config.promote_working_min_score, config.promote_history_min_score)


# -- ranking --------------------------------------------------------------------
RANK_INPUTS = st.builds(
    ranking.RankInput,
    collection=st.sampled_from(naming.COLLECTIONS),
    score=st.floats(-5, 5, allow_nan=False),
    uses=st.integers(0, 10_000),
    success_count=st.floats(0, 10_000, allow_nan=False),
    age_days=AGE,
    importance=st.none() | UNIT,
    confidence=st.none() | UNIT,
    relevance=st.none() | st.floats(-1, 2, allow_nan=False),
    collection_weight=st.floats(-2, 10, allow_nan=False),
)


@PROPS
@given(RANK_INPUTS)
def test_ranking_is_finite_non_negative_and_learned_is_a_probability(item: ranking.RankInput) -> None:
    learned = ranking.learned_score(item)
    assert 0.0 <= learned <= 1.0
    rank = ranking.final_rank(item)
    assert math.isfinite(rank) and rank >= 0.0
    if item.collection_weight <= 0:
        assert rank == 0.0


@PROPS
@given(RANK_INPUTS, st.floats(0, 1), st.floats(0, 1))
def test_more_relevant_never_ranks_lower(item: ranking.RankInput, a: float, b: float) -> None:
    low, high = sorted((a, b))
    from dataclasses import replace

    assert ranking.final_rank(replace(item, relevance=low)) <= ranking.final_rank(replace(item, relevance=high)) + 1e-12


@PROPS
@given(UNIT, UNIT)
def test_trust_is_monotone(a: float, b: float) -> None:
    low, high = sorted((a, b))
    assert ranking.trust(low) <= ranking.trust(high) + 1e-12


# -- normalization ----------------------------------------------------------------
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=30),
    st.sampled_from(["nan", "inf", "-1", "1e999", "true", "[]", "2025-02-30T99:99:99Z", "", "  "]),
)
METADATA = st.dictionaries(
    st.sampled_from(
        [
            "score",
            "uses",
            "success_count",
            "importance",
            "confidence",
            "created_at",
            "timestamp",
            "created_ts",
            "tags",
            "archived",
            "last_outcome",
            "outcome_history",
            "title",
            "project",
            "content",
        ]
    ),
    JUNK,
    max_size=15,
)


@PROPS
@given(
    st.sampled_from([*naming.COLLECTIONS, "", "unknown"]),
    st.none() | TEXT,
    METADATA,
    st.none() | st.floats(allow_nan=True),
    st.none() | st.floats(allow_nan=True),
)
def test_normalize_accepts_any_stored_metadata(
    collection: str,
    document: str | None,
    metadata: dict[str, object],
    similarity: float | None,
    final_rank: float | None,
) -> None:
    record = parse_record("working_" + "0" * 32, collection, document, metadata)
    memory = view(
        record,
        now=datetime(2026, 1, 1, tzinfo=UTC),
        similarity=similarity,
        final_rank_score=final_rank,
    )
    assert 0.0 <= memory.score <= 1.0 and memory.uses >= 0
    assert 0.0 <= memory.wilson_score <= 1.0 and 0.0 <= memory.learned_score <= 1.0
    assert isinstance(memory.content, str) and isinstance(memory.age, str)


# -- formatting and escaping ---------------------------------------------------------
MEMORIES = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.text(max_size=60) | st.just("memory_bank_" + "1" * 32),
            "collection": st.sampled_from(naming.COLLECTIONS),  # set by the memory service, never by callers
            "content": HOSTILE_TEXT,
            "age": st.sampled_from(
                ["now", "5 minutes ago", "2 days ago", "3 months ago", ""]
            ),  # computed by the service
            "uses": st.integers(0, 50),
            "wilson_score": UNIT,
            "importance": st.none() | UNIT,
            "metadata": st.fixed_dictionaries({}, optional={"title": HOSTILE_TEXT}),
        }
    ),
    max_size=12,
)


@PROPS
@given(MEMORIES, st.integers(300, formatting.MAX_OUTPUT_CHARS))
def test_known_context_keeps_its_structure_for_any_memory_content(
    memories: list[dict[str, object]], budget: int
) -> None:
    block = formatting.known_context(memories, budget=budget)
    if not memories:
        assert block == ""
        return
    assert len(block) <= max(budget, 400)
    assert block.count(formatting.CONTEXT_START) == 1 and block.count(formatting.CONTEXT_END) == 1
    assert block.startswith(formatting.CONTEXT_START + "\n") and block.endswith("\n" + formatting.CONTEXT_END)
    body = block.split("\n")[2:-1]
    assert body and all(line.startswith(("• ", "(")) for line in body), body
    assert not re.search(rf"<\s*/?\s*{formatting.SCORE_TAG}", block, flags=re.IGNORECASE)
    for tagged in re.findall(r"\[id:([^\]]*)\]", block):
        assert tagged == "..." or re.fullmatch(r"[A-Za-z0-9_.:-]*", tagged), tagged


@PROPS
@given(st.lists(HOSTILE_TEXT, max_size=20))
def test_the_scoring_prompt_lists_only_sanitised_ids(ids: list[str]) -> None:
    prompt = formatting.scoring_prompt(ids)
    assert prompt.count(f"<{formatting.SCORE_TAG}>") == 1 and prompt.count(f"</{formatting.SCORE_TAG}>") == 1
    assert prompt.startswith(f"<{formatting.SCORE_TAG}>") and prompt.endswith(f"</{formatting.SCORE_TAG}>")
    assert len(prompt.splitlines()) == 8


@PROPS
@given(HOSTILE_TEXT, st.integers(1, 2_000))
def test_neutralize_gives_one_safe_line(text: str, limit: int) -> None:
    line = inert_text.neutralize(text, limit)
    assert "\n" not in line and "\r" not in line and len(line) <= limit
    assert formatting.CONTEXT_END not in line and formatting.CONTEXT_START not in line
    assert not re.search(r"<\s*/?\s*mnemex", line, flags=re.IGNORECASE)


# -- lexical search ----------------------------------------------------------------------
DOCS = st.dictionaries(st.text(alphabet="abcdef0123456789", min_size=1, max_size=8), TEXT, max_size=25)


@PROPS
@given(
    DOCS, st.lists(st.text(alphabet="abcdef0123456789", min_size=1, max_size=8), max_size=10), TEXT, st.integers(0, 30)
)
def test_lexical_search_returns_only_live_documents(
    docs: dict[str, str], removed: list[str], query: str, k: int
) -> None:
    index = LexicalIndex()
    index.add_many(docs.items())
    for doc_id in removed:
        index.remove(doc_id)
    live = set(docs) - set(removed)
    assert set(index.ids()) == live
    hits = index.search(query, k)
    assert len(hits) <= k
    assert all(doc_id in live and score >= 0 and math.isfinite(score) for doc_id, score in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


# -- project ids -----------------------------------------------------------------------------
SCOPE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,127}$")


@PROPS
@given(st.none() | st.text(max_size=200) | st.text(alphabet="/.\\~-_ a\x00é", max_size=60))
def test_any_cwd_resolves_to_a_project_id_every_service_accepts(cwd: str | None) -> None:
    project = projects.resolve(cwd, Path("/nonexistent-mnemex-home"))
    assert SCOPE_PART.match(project), project
    assert re.fullmatch(r"[A-Za-z0-9_.@-]{1,128}", project), "the kg's scope rule"


@PROPS
@given(st.lists(st.text(alphabet="abcXYZ019-_ ", min_size=1, max_size=12), min_size=2, max_size=2, unique=True))
def test_distinct_directories_get_distinct_projects(names: list[str]) -> None:
    base = Path("/nonexistent-mnemex-projects")
    first, second = (projects.resolve(str(base / n), Path("/nonexistent-mnemex-home")) for n in names)
    assume(str((base / names[0]).resolve()) != str((base / names[1]).resolve()))
    assert first != second


# -- tool observations ---------------------------------------------------------------------------
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=12), c, max_size=4),
    max_leaves=15,
)


@PROPS
@given(
    st.sampled_from(
        [
            "Bash",
            "Edit",
            "MultiEdit",
            "Write",
            "NotebookEdit",
            "WebFetch",
            "WebSearch",
            "Read",
            "mcp__mnemex__search_memory",
            "Custom",
        ]
    )
    | TEXT,
    JSONISH,
    JSONISH,
    st.none() | TEXT,
)
def test_observe_accepts_any_tool_payload(
    tool: str, tool_input: object, tool_response: object, cwd: str | None
) -> None:
    observation = observe(tool, tool_input, tool_response, cwd)
    if observation is not None:
        assert isinstance(observation.text, str) and observation.text
        assert len(observation.text) <= MAX_OBSERVATION_CHARS + 600  # file paths are not cut


# -- the hooks' stdin adapter ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hook_modules() -> tuple[ModuleType, ModuleType]:
    sys.path.insert(0, str(HOOKS))
    try:
        import hook_events
        import hook_main
    finally:
        sys.path.remove(str(HOOKS))
    return hook_events, hook_main


@PROPS
@given(
    st.binary(max_size=500) | JSONISH.map(lambda v: __import__("json").dumps(v).encode()),
    st.sampled_from(["prompt", "stop", "session_start", "pre_compact", "post_tool_use", "bogus"]),
    st.sampled_from(["claude", "cursor"]),
)
def test_hook_stdin_adapter_is_total(
    hook_modules: tuple[ModuleType, ModuleType], raw: bytes, event: str, client: str
) -> None:
    hook_events, hook_main = hook_modules
    parsed = hook_events.parse(raw, event, client)
    if parsed is not None:
        body = hook_main.request_body(parsed)
        assert body is None or isinstance(body, dict)
        assert isinstance(hook_main.render(parsed, {"context": "x"}), str)


# Regression: git_root's Path.exists() on '<cwd>/.git' raised OSError(ENAMETOOLONG) for a component over
# 255 bytes, and every endpoint taking cwd answered 500.
@PROPS
@given(
    st.text(
        alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="/\x00"), min_size=1, max_size=40
    ).map(lambda part: part * (300 // len(part) + 1))
)
def test_a_cwd_with_an_over_long_component_resolves(component: str) -> None:
    project = projects.resolve(f"/srv/{component}/src", Path("/nonexistent-mnemex-home"))
    assert SCOPE_PART.match(project)
