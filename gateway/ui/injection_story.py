"""Why a turn got the memories it got, in one sentence each: what the session page says.

- ``why_shown(prompt, memory, choice)``: "Shown because it matched 'alembic heads' and worked twice.";
- ``relevance_of(choice)``: the one relevance number a line shows (similarity to the prompt, the
  number the floor is compared with);
- ``floor_of(choices)``: the relevance floor in force for the prompt, read from a line it left out
  ("below relevance floor (0.10 < 0.32)"), else worked out from the best match the way
  ``context_selection.SelectionRules`` does (``FLOOR``, ``RELATIVE_FLOOR``);
- ``left_out_reason(choice, titles)``: why a search result was not injected, in words, naming the
  line it copies by its title instead of its id.

Pure functions over a turn's choices, typed (``kernel.context_choice.ContextChoice``, as the preview's reply holds
them) or as the turn record keeps them (their JSON, ``viewer_sessions.ViewerSessions.session``), and its memories' JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from gateway.ui.memory_titles import outcome_words
from kernel.context_choice import ContextChoice

FLOOR = 0.15  # as services/memory/domain/context_selection.SelectionRules: absolute floor ...
RELATIVE_FLOOR = 0.4  # ... and the share of the best match's similarity
MIN_WORD = 3
MAX_MATCHED = 4
STOP_WORDS = frozenset(
    "the and for with that this from what where when which how why who are was were has have had not but you your "
    "our can could would should will does did its it's into onto about there their them then than just also any "
    "all some more most use used using get got make made like want need know see let".split()
)
CUT = re.compile(r"\((-?[0-9.]+) < (-?[0-9.]+)\)")
WORD = re.compile(r"[A-Za-z][\w'-]*")


def words(text: str) -> list[str]:
    """Content words, lower case, first occurrence order."""
    seen: dict[str, None] = {}
    for w in WORD.findall(text.lower()):
        w = w.strip("'-_")
        if len(w) >= MIN_WORD and w not in STOP_WORDS:
            seen.setdefault(w, None)
    return list(seen)


def matched_words(prompt: str, content: str) -> list[str]:
    """The prompt's content words that the memory also holds, in the prompt's order (at most four)."""
    held = set(words(content))
    return [w for w in words(prompt) if w in held][:MAX_MATCHED]


def as_choice(choice: ContextChoice | Mapping[str, object]) -> ContextChoice:
    """A choice as the turn record keeps it (its JSON), typed; a typed one as it is."""
    return choice if isinstance(choice, ContextChoice) else ContextChoice.from_json(choice)


def relevance_of(choice: ContextChoice | Mapping[str, object] | None) -> float | None:
    if not choice:
        return None
    return as_choice(choice).relevance or None


def why_shown(
    prompt: str, memory: Mapping[str, object] | None, choice: ContextChoice | Mapping[str, object] | None
) -> str:
    """One plain sentence: what tied the memory to the prompt, and its track record."""
    if memory is None:
        return "Shown then; the memory is no longer stored."
    chosen = as_choice(choice) if choice else None
    matched = matched_words(prompt, str(memory.get("content") or ""))
    if matched:
        because = "it matched " + " ".join(f"'{w}'" for w in matched)
    elif chosen is not None and chosen.parts is not None and chosen.parts.kg_linked:
        because = "the knowledge graph tied it to what the prompt names"
    else:
        because = "it is close in meaning to the prompt"
    record = outcome_words(memory)
    said = f"Shown because {because}" + (f" and {record}" if record != "not scored yet" else ", not scored yet")
    merged = len(chosen.merged_ids) if chosen is not None else 0
    if merged:
        said += f"; {merged} cop{'y' if merged == 1 else 'ies'} of it folded in"
    return said + "."


def floor_of(choices: Sequence[ContextChoice | Mapping[str, object]]) -> float | None:
    """The relevance floor in force for this prompt; None when no result carried a similarity."""
    typed = [as_choice(c) for c in choices]
    for choice in typed:
        found = CUT.search(choice.reason)
        if found:
            return float(found.group(2))
    best = max((r for r in (relevance_of(c) for c in typed) if r is not None), default=None)
    return None if best is None else round(max(FLOOR, RELATIVE_FLOOR * best), 2)


def left_out_reason(choice: ContextChoice | Mapping[str, object], titles: Mapping[str, str]) -> str:
    """Why a result was left out, in words; a copy names the line it copies by its title."""
    chosen = as_choice(choice)
    reason = chosen.reason
    twin = next(iter(chosen.merged_ids), "")
    if reason.startswith("below relevance floor"):
        found = CUT.search(reason)
        return f"below the relevance floor ({found.group(1)} < {found.group(2)})" if found else "below the floor"
    if reason == "current session":
        return "from this same session: the assistant already had it in context"
    if reason.startswith("duplicate"):
        named = f"“{titles[twin]}”" if twin in titles else "a line already shown"
        return f"says the same as {named}"
    if reason.startswith("fact of project"):
        return f"a fact of another project ({reason.removeprefix('fact of project').strip()})"
    if reason.startswith("states a superseded value"):
        return "states a value a newer fact replaced"
    if reason.startswith("over the limit"):
        return f"{reason}: lower ranked than the lines shown"
    return reason or "left out"
