"""Reading an injected KNOWN CONTEXT block as text: its sections, its lines, what each line says about a fix.

Nothing here knows memory ids or the gateway's data structures: a section is
found by its heading's words, a fix by its signature fragment, a verdict by the
words that follow the fragment. That is all a model reading the block has too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WORKED = "worked"
FAILED = "failed"
SUCCESS_CUES = ("worked", "fixed", "passes", "succeeded", "resolved", "solved", "is gone")
FAILURE_CUES = ("failed", "did not help", "didn't help", "did not work", "no effect", "made no difference")
VERDICT_WINDOW = 80  # characters after a signature that may carry its verdict
ID_TAG = re.compile(r"\[id:([A-Za-z0-9_.:-]+)\]")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Line:
    text: str
    heading: str  # the last non-item line above it ('' at the top)
    index: int  # position among the item lines of the block

    @property
    def memory_id(self) -> str:
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


def verdict_after(text: str, start: int, stop: int) -> str:
    """worked / failed from the first cue in text[start:stop], '' when none."""
    window = text[start:stop].lower()
    best = ("", len(window) + 1)
    for cue in SUCCESS_CUES:
        at = window.find(cue)
        if 0 <= at < best[1]:
            best = (WORKED, at)
    for cue in FAILURE_CUES:
        at = window.find(cue)
        if 0 <= at < best[1]:
            best = (FAILED, at)
    return best[0]


def fix_verdicts(line: Line, signatures: dict[str, str]) -> dict[str, str]:
    """fix key -> worked / failed / '' for each fix whose signature the line contains.

    Each fix takes the first verdict word after its signature, up to the next
    signature: the words next to a fix are the most specific evidence. A fix
    with no such word takes the verdict of the heading it sits under ("What
    worked before ...", "What failed before ..."), if any.
    """
    text = line.text
    found = sorted((text.find(sig), key, sig) for key, sig in signatures.items() if sig and sig in text)
    out: dict[str, str] = {}
    for i, (at, key, sig) in enumerate(found):
        stop = found[i + 1][0] if i + 1 < len(found) else len(text)
        stop = min(stop, at + len(sig) + VERDICT_WINDOW)
        out[key] = verdict_after(text, at + len(sig), stop) or line.section
    return out


def mentions(line: Line, fragment: str) -> bool:
    return bool(fragment) and fragment in line.text


def tokens(block: str) -> float:
    """The block's cost in tokens, estimated as characters / 4."""
    return len(block) / 4
