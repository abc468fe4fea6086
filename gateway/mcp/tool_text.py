"""The text the assistant reads from each tool result, and error texts.

Result lines use the shared one-line format (``kernel.display``). Memory
content is untrusted, so it goes through ``gateway.inert_text.neutralize``
first: a stored memory can never forge a scoring tag or an [id:...] tag in
a tool result. Plain module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gateway.gateway_errors import BackendUnavailable, GatewayError, InvalidInput, NotFound
from gateway.inert_text import neutralize
from kernel import display

LIST_CONTENT_CHARS = 1_500
FULL_CONTENT_CHARS = 20_000
MAX_GRAPH_LINES = 60
# Their ids are not memory ids: the kg's message says where to find them (list_problems).
PROBLEM_TOOLS = ("merge_problems", "unmerge_problems")


def _safe(memory: Mapping[str, Any], limit: int) -> dict[str, Any]:
    return {**memory, "content": neutralize(str(memory.get("content", "")), limit)}


def memory_lines(memories: Sequence[Mapping[str, Any]], limit: int = LIST_CONTENT_CHARS) -> list[str]:
    return [display.memory_line(_safe(m, limit), i) for i, m in enumerate(memories, 1)]


def search_text(
    memories: Sequence[Mapping[str, Any]],
    *,
    query: str | None,
    days_back: int | None,
    memory_id: str | None,
    relevant: int | None = None,
) -> str:
    """The search result as the assistant reads it. ``relevant``: the search judged relevance to the
    query (``MemoryService.search``), so the header counts relevant memories and none means none is."""
    if memory_id:
        if not memories:
            return f"No memory with id {memory_id}."
        memory = memories[0]
        lines = memory_lines([memory], FULL_CONTENT_CHARS)
        extra = []
        if memory.get("tags"):
            extra.append("tags: " + ", ".join(map(str, memory["tags"])))
        if memory.get("created_at"):
            extra.append(f"created: {memory['created_at']}")
        if memory.get("last_outcome"):
            extra.append(f"last outcome: {memory['last_outcome']}")
        if memory.get("archived"):
            extra.append("archived: yes")
        return "\n".join(lines + extra)
    what = []
    if query:
        what.append(f"query {neutralize(query, 120)!r}")
    if days_back:
        what.append(f"last {days_back} day{'s' if days_back != 1 else ''}")
    scope = " and ".join(what) or "this search"
    if not memories and relevant is not None:
        return (
            f"No memory is relevant to {scope}: nothing stored is close to it in meaning or shares its rarer "
            "words. Try other words or leave out collections; if the user expects you to remember this, "
            "say you have no record of it."
        )
    if not memories:
        return (
            f"No memories match {scope}. Try other words, a larger days_back, or leave out collections; "
            "if the user expects you to remember this, say you have no record of it."
        )
    kind = "relevant " if relevant is not None else ""
    head = f"{len(memories)} {kind}memor{'y' if len(memories) == 1 else 'ies'} for {scope}:"
    return "\n".join([head, *memory_lines(memories)])


def saved_text(verb: str, result: Mapping[str, Any]) -> str:
    memory = result.get("memory") or {}
    line = memory_lines([memory])[0] if memory else ""
    if result.get("deduplicated"):
        return f"A near-duplicate already existed, so it was refreshed instead of adding a copy:\n{line}"
    superseded = [str(i) for i in result.get("superseded") or []]
    if superseded:
        return (
            f"{verb}:\n{line}\nIt gives a new value for what {', '.join(superseded)} stated, so "
            f"{'that fact was' if len(superseded) == 1 else 'those facts were'} archived (superseded). If both "
            f'should stand, call consolidate_memories(undo="{memory.get("id", "?")}").'
        )
    return f"{verb}:\n{line}"


def archived_text(result: Mapping[str, Any]) -> str:
    memory = result.get("memory") or {}
    return (
        f"Archived [id:{memory.get('id', '?')}]: it no longer appears in context or search. "
        "If it was replaced by a corrected fact, make sure that fact is stored (add_to_memory_bank)."
    )


def _transition(item: Mapping[str, Any]) -> str:
    kind = item.get("transition") or ""
    if kind == "deleted":
        return " -> deleted"
    if kind in ("promoted", "demoted"):
        where = item.get("collection_after") or "?"
        new_id = f", now [id:{item['new_id']}]" if item.get("new_id") and item.get("new_id") != item.get("id") else ""
        return f" -> {kind} to {where}{new_id}"
    return ""


def score_text(result: Mapping[str, Any]) -> str:
    scored = list(result.get("scored") or [])
    lines = [f"Scored {len(scored)} memor{'y' if len(scored) == 1 else 'ies'}."]
    for item in scored:
        lines.append(
            f"- [id:{item.get('id')}] {item.get('outcome', '?')}: "
            f"{display.number(item.get('score_before'))} -> {display.number(item.get('score_after'))}"
            f"{_transition(item)}"
        )
    missing = list(result.get("not_found") or [])
    if missing:
        lines.append(
            "Not found (ignored): "
            + ", ".join(missing)
            + ". Use ids exactly as shown in [id:...] tags; deleted memories cannot be scored."
        )
    if not scored and not missing:
        lines.append(
            "Nothing needed scoring: the last finished exchange is scored already or had no memories "
            "(a score never applies to the answer in progress)."
        )
    lines.append("Now answer the user.")
    return "\n".join(lines)


def takeaway_text(result: Mapping[str, Any]) -> str:
    memory = result.get("memory") or {}
    return (
        f"Recorded in working memory [id:{memory.get('id', '?')}] with score {display.number(memory.get('score'))}. "
        "It will be promoted if later scores show it helps."
    )


def graph_text(result: Mapping[str, Any]) -> str:
    nodes = list(result.get("nodes") or [])
    edges = list(result.get("edges") or [])
    if not nodes and not edges and not result.get("routing"):
        return "The knowledge graph has nothing for this yet; it grows as memories are stored and scored."
    lines = [f"{len(nodes)} nodes, {len(edges)} edges."]
    for node in nodes[:MAX_GRAPH_LINES]:
        label = neutralize(str(node.get("label") or node.get("id", "")), 120)
        lines.append(f"- {node.get('kind', '?')}: {label} (weight {display.number(node.get('weight'))})")
    for edge in edges[:MAX_GRAPH_LINES]:
        lines.append(
            f"- {neutralize(str(edge.get('source')), 80)} --{edge.get('relation', '?')}--> "
            f"{neutralize(str(edge.get('target')), 80)} ({display.number(edge.get('weight'))})"
        )
    routing = result.get("routing") or {}
    if routing:
        lines.append("Routing: " + neutralize(str(routing), 2_000))
    return "\n".join(lines)


def error_text(tool: str, exc: BaseException) -> str:
    """What went wrong and what the assistant should do next."""
    if isinstance(exc, InvalidInput):
        return f"{tool}: invalid input: {exc.message}. Fix the arguments and call {tool} again."
    if isinstance(exc, NotFound) and tool in PROBLEM_TOOLS:
        return f"{tool}: {exc.message}."
    if isinstance(exc, NotFound):
        return (
            f"{tool}: {exc.message}. Copy the id exactly from an [id:...] tag, or find it with "
            "search_memory(query=...); it may have been deleted or archived."
        )
    if isinstance(exc, BackendUnavailable):
        return (
            f"{tool}: {exc.message}. Memory is unavailable right now: carry on without it and do not retry "
            "in a loop. If it persists, tell the user to run `mnemex status` (or `mnemex up`)."
        )
    if isinstance(exc, GatewayError):
        return f"{tool}: {exc.message}"
    return (
        f"{tool} failed unexpectedly ({type(exc).__name__}). Carry on without memory for this step; "
        "the details are in the mnemex server log."
    )


def invalid_arguments_text(tool: str, errors: Sequence[Mapping[str, Any]]) -> str:
    problems = []
    for error in errors[:10]:
        where = ".".join(str(part) for part in error.get("loc", ())) or "arguments"
        problems.append(f"{where}: {error.get('msg', 'invalid')}")
    return (
        f"{tool}: invalid arguments: "
        + "; ".join(problems)
        + f". Fix them and call {tool} again (the tool's input schema lists every parameter and its limits)."
    )
