"""Reading an injected KNOWN CONTEXT block as text: its sections and its item lines.

A section is found by its heading's words, the block's structure; what a line
says about a fix is recognise.py's business. A line's id tag is read only to
answer the scoring prompt, which asks for scores by id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WORKED = "worked"
FAILED = "failed"
ID_TAG = re.compile(r"\[id:([A-Za-z0-9_.:-]+)\]")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Line:
    text: str
    heading: str  # the last non-item line above it ('' at the top)
    index: int  # position among the item lines of the block

    @property
    def memory_id(self) -> str:
        """The id the scoring prompt asks about (never used to tell what the line says)."""
        found = ID_TAG.search(self.text)
        return found.group(1) if found else ""

    @property
    def section(self) -> str:
        """worked / failed when the heading says so ("What worked before ...", "What failed before ..."), else ''."""
        heading = self.heading.lower()
        if "failed before" in heading or "what failed" in heading:
            return FAILED
        if "worked before" in heading or "what worked" in heading:
            return WORKED
        return ""

    @property
    def from_another_project(self) -> bool:
        """The heading says the lessons under it come from another project."""
        return "another project" in self.heading.lower()


def normalise(text: str) -> str:
    return _SPACES.sub(" ", text.replace(" / ", " ")).strip().lower()


def lines(block: str) -> list[Line]:
    """The item lines ("• ...") of a block with the heading each sits under."""
    out: list[Line] = []
    heading = ""
    for raw in block.splitlines():
        text = raw.strip()
        if not text:
            continue
        if text.startswith(("•", "- ", "* ")):
            out.append(Line(text, heading, len(out)))
        else:
            heading = text
    return out


def section_lines(block: str, section: str) -> list[Line]:
    return [line for line in lines(block) if line.section == section]


def tokens(block: str) -> float:
    """The block's cost in tokens, estimated as characters / 4."""
    return len(block) / 4
