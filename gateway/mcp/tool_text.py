"""The text the assistant reads from each tool result, and error texts.

Result lines use the shared one-line format (``kernel.display``). Memory
content is untrusted, so it goes through ``gateway.inert_text.neutralize``
first: a stored memory can never forge a scoring tag or an [id:...] tag in
a tool result. Plain module.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_core import ErrorDetails

from gateway.gateway_errors import BackendUnavailable, GatewayError, InvalidInput, NotFound
from gateway.inert_text import neutralize
from gateway.replies.kg_replies import KgGraph
from gateway.replies.memory_replies import Memory, MemoryChange, SearchHit, StoredFact
from gateway.replies.reply_json import JsonObject
from gateway.replies.score_replies import ScoredMemory, ScoreReply
from kernel import display

LIST_CONTENT_CHARS = 1_500
FULL_CONTENT_CHARS = 20_000
MAX_GRAPH_LINES = 60
# Their ids are not memory ids: the kg's message says where to find them (list_problems).
PROBLEM_TOOLS = ("merge_problems", "unmerge_problems")


def _safe(memory: Memory | SearchHit, limit: int) -> JsonObject:
    """The shared one-line format reads the memory's JSON (``kernel.display`` serves the CLI too)."""
    shown = memory.to_json()
    content = memory.memory.content if isinstance(memory, SearchHit) else memory.content
    return {**shown, "content": neutralize(content, limit)}


def memory_lines(memories: Sequence[Memory | SearchHit], limit: int = LIST_CONTENT_CHARS) -> list[str]:
    return [display.memory_line(_safe(m, limit), i) for i, m in enumerate(memories, 1)]


def search_text(
    hits: Sequence[SearchHit],
    *,
    query: str | None,
    days_back: int | None,
    memory_id: str | None,
    relevant: int | None = None,
) -> str:
    """The search result as the assistant reads it. ``relevant``: the search judged relevance to the
    query (``MemoriesService.search``), so the header counts relevant memories and none means none is."""
    if memory_id:
        if not hits:
            return f"No memory with id {memory_id}."
        lines = memory_lines([hits[0]], FULL_CONTENT_CHARS)
        memory = hits[0].memory
        extra = []
        if memory.tags:
            extra.append("tags: " + ", ".join(memory.tags))
        if memory.created_at:
            extra.append(f"created: {memory.created_at}")
        if memory.last_outcome:
            extra.append(f"last outcome: {memory.last_outcome}")
        if memory.archived:
            extra.append("archived: yes")
        return "\n".join(lines + extra)
    what = []
    if query:
        what.append(f"query {neutralize(query, 120)!r}")
    if days_back:
        what.append(f"last {days_back} day{'s' if days_back != 1 else ''}")
    scope = " and ".join(what) or "this search"
    if not hits and relevant is not None:
        return (
            f"No memory is relevant to {scope}: nothing stored is close to it in meaning or shares its rarer "
            "words. Try other words or leave out collections; if the user expects you to remember this, "
            "say you have no record of it."
        )
    if not hits:
        return (
            f"No memories match {scope}. Try other words, a larger days_back, or leave out collections; "
            "if the user expects you to remember this, say you have no record of it."
        )
    kind = "relevant " if relevant is not None else ""
    head = f"{len(hits)} {kind}memor{'y' if len(hits) == 1 else 'ies'} for {scope}:"
    return "\n".join([head, *memory_lines(hits)])


def saved_text(verb: str, result: StoredFact | MemoryChange) -> str:
    memory = result.memory
    line = memory_lines([memory])[0]
    if result.deduplicated:
        return f"A near-duplicate already existed, so it was refreshed instead of adding a copy:\n{line}"
    superseded = list(result.superseded) if isinstance(result, StoredFact) else []
    if superseded:
        return (
            f"{verb}:\n{line}\nIt gives a new value for what {', '.join(superseded)} stated, so "
            f"{'that fact was' if len(superseded) == 1 else 'those facts were'} archived (superseded). If both "
            f'should stand, call consolidate_memories(undo="{memory.id}").'
        )
    return f"{verb}:\n{line}"


def archived_text(result: MemoryChange) -> str:
    return (
        f"Archived [id:{result.memory.id}]: it no longer appears in context or search. "
        "If it was replaced by a corrected fact, make sure that fact is stored (add_to_memory_bank)."
    )


def _transition(item: ScoredMemory) -> str:
    kind = item.transition
    if kind == "deleted":
        return " -> deleted"
    if kind in ("promoted", "demoted"):
        where = item.collection_after or "?"
        new_id = f", now [id:{item.new_id}]" if item.new_id and item.new_id != item.id else ""
        return f" -> {kind} to {where}{new_id}"
    return ""


def score_text(result: ScoreReply) -> str:
    scored = result.scored
    lines = [f"Scored {len(scored)} memor{'y' if len(scored) == 1 else 'ies'}."]
    for item in scored:
        lines.append(
            f"- [id:{item.id}] {item.outcome or '?'}: "
            f"{display.number(item.score_before)} -> {display.number(item.score_after)}"
            f"{_transition(item)}"
        )
    missing = list(result.not_found)
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


def takeaway_text(result: MemoryChange) -> str:
    memory = result.memory
    return (
        f"Recorded in working memory [id:{memory.id}] with score {display.number(memory.score)}. "
        "It will be promoted if later scores show it helps."
    )


def graph_text(result: KgGraph) -> str:
    nodes, edges = result.nodes, result.edges
    if not nodes and not edges and not result.routing:
        return "The knowledge graph has nothing for this yet; it grows as memories are stored and scored."
    lines = [f"{len(nodes)} nodes, {len(edges)} edges."]
    for node in nodes[:MAX_GRAPH_LINES]:
        label = neutralize(node.label or node.id, 120)
        lines.append(f"- {node.kind}: {label} (weight {display.number(node.weight)})")
    for edge in edges[:MAX_GRAPH_LINES]:
        lines.append(
            f"- {neutralize(edge.source, 80)} --{edge.relation}--> "
            f"{neutralize(edge.target, 80)} ({display.number(edge.weight)})"
        )
    routing = dict(result.routing)
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


def invalid_arguments_text(tool: str, errors: Sequence[ErrorDetails]) -> str:
    problems = []
    for error in errors[:10]:
        where = ".".join(str(part) for part in error.get("loc", ())) or "arguments"
        problems.append(f"{where}: {error.get('msg', 'invalid')}")
    return (
        f"{tool}: invalid arguments: "
        + "; ".join(problems)
        + f". Fix them and call {tool} again (the tool's input schema lists every parameter and its limits)."
    )
