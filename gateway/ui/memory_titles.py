"""A memory as people read it: a short title, a kind, its first useful sentence and its track record.

Derived when a page is drawn, from what the memory already holds, with no language model:

- ``title``: an exchange's question (the ``User:`` line), else the first sentence, clipped;
- ``gist``: the first useful sentence after that (an exchange's answer, skipping "Sure." and the like);
- ``kind``: from cues, first match wins: a failed track record → failed attempt; "fixed" / "the fix
  was" → bug fix; "we decided" / "let's use" → decision; a memory-bank line → preference when it
  says "prefer" / "always" / "never", else fact; then by what the memory is (book passage, tool run,
  lesson, conversation, note);
- ``outcome``: "worked twice, failed once", "not scored yet";
- ``scope``: the project it belongs to, or "every project" for a user-wide fact.

Pure functions over the viewer's memory JSON (``memory_replies.Memory.to_json``); deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kernel.json_values import int_at, object_at, str_at

TITLE_CHARS = 80
GIST_CHARS = 200
USER_MARK = "User:"
ANSWER_MARK = "Assistant:"
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
FILLER = re.compile(
    r"^(sure|ok(ay)?|yes|no|thanks|thank you|great|got it|done|of course|certainly|right|hi|hello"
    r"|great question|good question|you're welcome|let me (check|look|see)[^.]*)[.!,:]*$",
    re.IGNORECASE,
)
MARKUP_LEAD = re.compile(r"^\s*(#+|[-*>]|\d+[.)])\s+")
FAILED_COLLECTIONS = ("working", "history", "patterns")
BUG_FIX = re.compile(r"\b(fixed|fixes|the fix (was|is)|fix was|bug ?fix|resolved by|was caused by)\b", re.IGNORECASE)
DECISION = re.compile(
    r"\b(we decided|decided to|decision:|let's use|let us use|we'll use|we will use|going with|we chose|settled on)\b",
    re.IGNORECASE,
)
PREFERENCE = re.compile(r"\b(prefers?|preferred|likes?|always|never|dislikes?|wants?)\b", re.IGNORECASE)
KIND_BY_SHAPE = {"observation": "tool run", "takeaway": "lesson", "exchange": "conversation"}
COLLECTION_NAMES = {
    "working": "working memory",
    "history": "history",
    "patterns": "patterns",
    "memory_bank": "memory bank",
    "books": "books",
}
COUNT_WORDS = {1: "once", 2: "twice"}


@dataclass(frozen=True)
class MemoryLabel:
    title: str
    kind: str
    gist: str
    outcome: str
    scope: str
    collection: str

    @property
    def kind_class(self) -> str:
        """The kind as a CSS class suffix ("bug fix" -> "bug-fix")."""
        return self.kind.replace(" ", "-")


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"


def sentences(text: str) -> list[str]:
    """The text's sentences (or lines), markdown list and heading marks dropped, blanks and filler left out."""
    out = []
    for part in SENTENCE_END.split(text):
        part = MARKUP_LEAD.sub("", part).strip().strip("`").strip()
        if part and not part.startswith("```") and not FILLER.match(part):
            out.append(part)
    return out


def split_exchange(content: str) -> tuple[str, str]:
    """``("question", "answer")`` of a stored exchange; ``("", content)`` for any other text."""
    if not content.startswith(USER_MARK):
        return "", content
    question, found, answer = content[len(USER_MARK) :].partition("\n" + ANSWER_MARK)
    return question.strip(), answer.strip() if found else ""


def outcome_words(memory: Mapping[str, object]) -> str:
    """ "worked twice, failed once" from the memory's judged uses; "not scored yet" with none."""
    parts = []
    for key, word in (("worked_count", "worked"), ("partial_count", "partly worked"), ("failed_count", "failed")):
        n = int_at(memory, key)
        if n:
            parts.append(f"{word} {COUNT_WORDS.get(n, f'{n} times')}")
    return ", ".join(parts) if parts else "not scored yet"


def kind_of(memory: Mapping[str, object], text: str) -> str:
    collection = str_at(memory, "collection")
    metadata = object_at(memory, "metadata")
    if collection == "books":
        return "book passage"
    failed, worked = int_at(memory, "failed_count"), int_at(memory, "worked_count")
    if collection in FAILED_COLLECTIONS and failed > worked:
        return "failed attempt"
    if BUG_FIX.search(text):
        return "bug fix"
    if DECISION.search(text):
        return "decision"
    if collection == "memory_bank":
        return "preference" if PREFERENCE.search(text) else "fact"
    shape = metadata.get("type") if metadata.get("type") in KIND_BY_SHAPE else metadata.get("kind")
    return KIND_BY_SHAPE.get(str(shape), "note")


def label_of(memory: Mapping[str, object]) -> MemoryLabel:
    """The memory's title, kind, first useful sentence, track record and scope, for cards and lists."""
    content = str_at(memory, "content")
    question, answer = split_exchange(content)
    said = sentences(answer)
    if question:
        asked = sentences(question)
        title = asked[0] if asked else question
        gist = said[0] if said else ""
    else:
        title, gist = (said[0], said[1] if len(said) > 1 else "") if said else (content, "")
    project = str_at(memory, "project")
    return MemoryLabel(
        title=clip(title, TITLE_CHARS) or "(empty)",
        kind=kind_of(memory, content),
        gist=clip(gist, GIST_CHARS),
        outcome=outcome_words(memory),
        scope=project or "every project",
        collection=collection_name(str_at(memory, "collection")),
    )


def collection_name(collection: str) -> str:
    return COLLECTION_NAMES.get(collection, collection.replace("_", " "))


KEY_NAMES = {
    "session_id": "session",
    "stale_value_superseded_by": "value replaced by",
    "possibly_superseded_by": "may be replaced by",
    "client": "written by",
    "created_at": "created",
    "updated_at": "updated",
    "last_used": "last used",
}


def key_name(key: str) -> str:
    """A metadata key as words: ``"session_id"`` -> ``"session"``, ``"source_file"`` -> ``"source file"``."""
    return KEY_NAMES.get(key, key.replace("_", " ").strip())
