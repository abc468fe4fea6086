"""Change a JSON or JSONC file's text so it holds a new value, touching only what differs.

:func:`patch` compares the parsed file with the wanted value and edits the
text in place: a changed value has its span replaced, a member or item that
went is cut out with its comma, and new ones are appended before the closing
bracket in the file's own indentation. Everything else, comments and layout
included, stays byte for byte, so ``init`` then ``uninit`` gives back the
file as it was, and a user's ``// notes`` survive both.

The result is parsed again and compared with the wanted value; when they
differ (a layout this module does not handle), :class:`EditFailed` is raised
and the caller decides what to do rather than write a wrong file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from kernel.json_values import JSONObject, JSONValue
from mnemex.client_setup.jsonc import WHITESPACE, Element, JsoncError, Node, blank_comments, line_start, parse_document


class EditFailed(ValueError):
    """The text could not be edited into the wanted value."""


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str


def patch(text: str, wanted: JSONObject) -> str:
    """``text`` edited so that it parses to ``wanted``, with the rest of it kept."""
    root = parse_document(text)
    editor = _Editor(text)
    editor.container(root, wanted)
    result = text
    # From the end backwards; at one offset a cut goes before an insertion, so the inserted text is kept.
    for edit in sorted(editor.edits, key=lambda e: (e.start, e.end), reverse=True):
        result = result[: edit.start] + edit.text + result[edit.end :]
    try:
        same = parse_document(result).value == wanted
    except JsoncError:
        same = False
    if not same:
        raise EditFailed("the edited text does not hold the wanted value")
    return result


class _Editor:
    def __init__(self, text: str) -> None:
        self.text = text
        self.src = blank_comments(text)
        self.unit = _indent_unit(text)
        self.edits: list[_Edit] = []

    def indent_at(self, position: int) -> str:
        start = line_start(self.text, position)
        line = self.text[start:position]
        return line if not line.strip() else line[: len(line) - len(line.lstrip())]

    def render(self, value: JSONValue, indent: str) -> str:
        return json.dumps(value, indent=self.unit, ensure_ascii=False).replace("\n", "\n" + indent)

    def container(self, node: Node, wanted: JSONValue) -> None:
        old = node.value
        gone: list[Element]
        added: list[tuple[str | None, JSONValue]]
        if isinstance(old, dict) and isinstance(wanted, dict):
            last = {el.key: el for el in node.elements}  # the last of duplicate keys is the one that counts
            gone = [el for el in node.elements if el.key not in wanted]
            for key, value in wanted.items():
                if key in old and old[key] != value:
                    self.value(last[key].node, value)
            added = [(key, value) for key, value in wanted.items() if key not in old]
        elif isinstance(old, list) and isinstance(wanted, list):
            gone, j = [], 0
            for el in node.elements:  # keep the items that still come in order, append the rest
                if j < len(wanted) and el.node.value == wanted[j]:
                    j += 1
                else:
                    gone.append(el)
            added = [(None, value) for value in wanted[j:]]
        else:
            self.replace(node, wanted)
            return
        if gone:
            self.cut(node, gone, added=bool(added))
        if added:
            self.append(node, [el for el in node.elements if el not in gone], added)

    def value(self, node: Node, wanted: JSONValue) -> None:
        if node.is_container and type(node.value) is type(wanted):
            self.container(node, wanted)
        else:
            self.replace(node, wanted)

    def replace(self, node: Node, wanted: JSONValue) -> None:
        self.edits.append(_Edit(node.start, node.end, self.render(wanted, self.indent_at(node.start))))

    def cut(self, node: Node, gone: list[Element], *, added: bool) -> None:
        """Remove the ``gone`` elements of ``node``, each run of them with its commas and its own lines."""
        elements = node.elements
        inner = slice(node.start + 1, node.end - 1)
        if len(gone) == len(elements) and not added and self.text[inner] == self.src[inner]:
            self.edits.append(_Edit(node.start + 1, node.end - 1, ""))  # nothing left, no comment: "{}"
            return
        index = 0
        while index < len(elements):
            if elements[index] not in gone:
                index += 1
                continue
            last = index
            while last + 1 < len(elements) and elements[last + 1] in gone:
                last += 1
            self.cut_run(elements, index, last, added=added)
            index = last + 1

    def cut_run(self, elements: list[Element], first: int, last: int, *, added: bool) -> None:
        begin, end_el = elements[first], elements[last]
        before = elements[first - 1] if first else None
        if end_el.comma is None and before is not None and before.comma is not None and not added:
            # The run ends the container: the comma before it goes, unless a comment sits in between.
            between = slice(before.comma, begin.start)
            if self.text[between] == self.src[between]:
                self.edits.append(_Edit(before.comma, end_el.node.end, ""))
                return
            self.edits.append(_Edit(before.comma, before.comma + 1, ""))
        start = begin.start
        own_line = not self.src[line_start(self.src, start) : start].strip(WHITESPACE)
        if own_line:
            start = line_start(self.src, start)
        elif (
            last == len(elements) - 1
            and before is not None
            and before.comma is not None
            and not self.text[before.comma + 1 : start].strip(WHITESPACE)
        ):
            start = before.comma + 1  # what is appended after that comma brings its own space
        end = end_el.comma + 1 if end_el.comma is not None else end_el.node.end
        while end < len(self.text) and self.text[end] in " \t":
            end += 1
        if own_line and self.text.startswith("//", end):
            newline = self.text.find("\n", end)
            end = newline if newline >= 0 else len(self.text)
        if own_line and self.text.startswith("\r\n", end):
            end += 2
        elif own_line and self.text.startswith("\n", end):
            end += 1
        self.edits.append(_Edit(start, end, ""))

    def append(self, node: Node, kept: list[Element], items: list[tuple[str | None, JSONValue]]) -> None:
        trailing = bool(node.elements) and node.elements[-1].comma is not None
        close = node.end - 1
        if not kept:
            own = self.indent_at(node.start)
            child = own + self.unit
            body = self.join(items, child, trailing)
            if self.text.count("\n", node.start, close) == 0:
                self.edits.append(_Edit(node.start + 1, node.start + 1, f"\n{child}{body}\n{own}"))
            elif not self.src[line_start(self.src, close) : close].strip(WHITESPACE):
                self.edits.append(_Edit(line_start(self.src, close), line_start(self.src, close), f"{child}{body}\n"))
            else:
                self.edits.append(_Edit(close, close, f"\n{child}{body}\n{own}"))
            return
        anchor = kept[-1]
        after = anchor.comma + 1 if anchor.comma is not None else anchor.node.end
        line_end = self.src.find("\n", after)
        rest = self.text[after : line_end if line_end >= 0 else len(self.text)].strip()
        multiline = self.text.count("\n", anchor.node.end, close) > 0 and (not rest or rest.startswith("//"))
        indent = self.indent_at(anchor.start)
        comma = "" if anchor.comma is not None else ","
        if multiline:
            if comma:
                self.edits.append(_Edit(anchor.node.end, anchor.node.end, ","))
            self.edits.append(_Edit(line_end + 1, line_end + 1, f"{indent}{self.join(items, indent, trailing)}\n"))
        else:
            self.edits.append(_Edit(after, after, f"{comma} {self.join(items, indent, trailing, inline=True)}"))

    def join(
        self, items: list[tuple[str | None, JSONValue]], indent: str, trailing: bool, *, inline: bool = False
    ) -> str:
        parts = []
        for key, value in items:
            rendered = json.dumps(value, ensure_ascii=False) if inline else self.render(value, indent)
            parts.append(rendered if key is None else f"{json.dumps(key, ensure_ascii=False)}: {rendered}")
        return (", " if inline else ",\n" + indent).join(parts) + ("," if trailing else "")


def _indent_unit(text: str) -> str:
    """The file's indentation step (the first indented line's), two spaces when it has none."""
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            return line[: len(line) - len(stripped)]
    return "  "
