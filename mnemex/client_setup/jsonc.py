"""JSON with comments and trailing commas (JSONC, as OpenCode reads ``opencode.json``), parsed with positions.

:func:`blank_comments` replaces every ``//`` and ``/* */`` comment with
spaces (line breaks kept), so the result has the same length as the input and
every offset still points at the same character. :func:`parse_document`
reads that into a :class:`Node` tree: each value with its span, and each
object member or array item (:class:`Element`) with where it starts and the
comma after it. ``jsonc_edit`` uses the spans to change a file in place,
keeping the user's comments and layout.

A syntax error raises :class:`JsoncError` with the line and column (1-based)
of the offending character in the original text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from kernel.json_values import JSONArray, JSONObject, JSONValue

WHITESPACE = " \t\n\r\ufeff"

# A string literal (escapes included, unterminated to the end), or a comma with only white space before a closer.
_STRING_OR_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\])*"?|,(?=\s*[}\]])', re.DOTALL)
_DECODER = json.JSONDecoder()


class JsoncError(ValueError):
    """Not JSONC; ``line`` and ``column`` (1-based) locate the problem."""

    def __init__(self, message: str, text: str, position: int) -> None:
        self.message = message
        self.line = text.count("\n", 0, position) + 1
        self.column = position - (text.rfind("\n", 0, position) + 1) + 1
        super().__init__(f"line {self.line}, column {self.column}: {message}")


@dataclass
class Node:
    """One value: ``text[start:end]``; for an object or array, its members or items."""

    start: int
    end: int
    value: JSONValue
    elements: list[Element] = field(default_factory=list)

    @property
    def is_container(self) -> bool:
        return isinstance(self.value, (dict, list))


@dataclass
class Element:
    """An object member (``key`` set) or an array item; ``start`` is where its key (or value) begins."""

    start: int
    node: Node
    key: str | None = None
    comma: int | None = None  # offset of the comma after it, when there is one


def blank_comments(text: str) -> str:
    """``text`` with each comment replaced by spaces (line breaks kept): same length, same offsets."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            end = _string_end(text, i)
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            end = n if close < 0 else close + 2
        else:
            out.append(text[i])
            i += 1
            continue
        piece = text[i:end]
        out.append(piece if text[i] == '"' else re.sub(r"[^\r\n]", " ", piece))
        i = end
    return "".join(out)


def has_comments(text: str) -> bool:
    return blank_comments(text) != text


def strip_jsonc(text: str) -> tuple[str, bool]:
    """(plain JSON text for ``json.loads``, whether ``text`` had comments); offsets are kept."""
    plain = blank_comments(text)
    return _STRING_OR_TRAILING_COMMA.sub(lambda m: " " if m.group(0) == "," else m.group(0), plain), plain != text


def parse_document(text: str) -> Node:
    """The value ``text`` holds, with the span of every part. JsoncError when it is not JSONC."""
    return _Parser(text).document()


def line_start(text: str, position: int) -> int:
    return text.rfind("\n", 0, position) + 1


def _string_end(text: str, start: int) -> int:
    """Index just past the string literal opening at ``start`` (the end of text when unterminated)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.src = blank_comments(text)

    def fail(self, message: str, position: int) -> JsoncError:
        return JsoncError(message, self.text, position)

    def skip(self, i: int) -> int:
        while i < len(self.src) and self.src[i] in WHITESPACE:
            i += 1
        return i

    def document(self) -> Node:
        node = self.value(self.skip(0))
        end = self.skip(node.end)
        if end < len(self.src):
            raise self.fail("unexpected text after the end of the document", end)
        return node

    def value(self, i: int) -> Node:
        if i >= len(self.src):
            raise self.fail("unexpected end of file", i)
        if self.src[i] in "{[":
            return self.container(i)
        try:
            decoded: tuple[JSONValue, int] = _DECODER.raw_decode(self.src, i)
        except json.JSONDecodeError as exc:
            raise self.fail(exc.msg, exc.pos) from exc
        value, end = decoded
        return Node(i, end, value)

    def container(self, start: int) -> Node:
        is_object = self.src[start] == "{"
        close = "}" if is_object else "]"
        members: JSONObject = {}
        items: JSONArray = []
        node = Node(start, start, members if is_object else items)
        i = self.skip(start + 1)
        while True:
            if i < len(self.src) and self.src[i] == close:
                node.end = i + 1
                return node
            element = self.member(i) if is_object else Element(i, self.value(i))
            if element.key is not None:  # an object member; an array item has no key
                members[element.key] = element.node.value
            else:
                items.append(element.node.value)
            node.elements.append(element)
            i = self.skip(element.node.end)
            if i < len(self.src) and self.src[i] == ",":
                element.comma = i
                i = self.skip(i + 1)
            elif i >= len(self.src) or self.src[i] != close:
                raise self.fail(f"expected ',' or '{close}'", i)

    def member(self, i: int) -> Element:
        if i >= len(self.src) or self.src[i] != '"':
            raise self.fail("expected a key in double quotes", i)
        key = self.value(i)
        colon = self.skip(key.end)
        if colon >= len(self.src) or self.src[colon] != ":":
            raise self.fail("expected ':' after the key", colon)
        return Element(i, self.value(self.skip(colon + 1)), key=str(key.value))
