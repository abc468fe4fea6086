"""The telling error line of a tool's output, and its normalised signature.

``error_line(output)`` picks the line that names what went wrong (the last
"SomeError: ..." line of a traceback, or a line starting "error:",
"fatal:", "npm ERR!", ...). ``signature(line)`` strips what changes from one
occurrence of a problem to the next (paths, line numbers, quoted and dotted
names, hex ids, numbers), so "ModuleNotFoundError: No module named
'billing.tax'" in one project and "... named 'shop.vat'" in another share a
signature while a different failure does not. Plain module.
"""

from __future__ import annotations

import re

MAX_LINE_CHARS = 200
MAX_SIGNATURE_CHARS = 120

# A Python-style exception line ("pkg.module.SomeError: text" or just "SomeError").
# pytest prefixes the lines of a failure with "E   " ("E   AssertionError: ...").
_PYTEST_E = re.compile(r"^\s*E\s{2,}")
_EXCEPTION = re.compile(r"^\s*(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning))\b(:.*)?$")
_ERROR_PREFIX = re.compile(
    r"^\s*(?:error(?:\[\w+\])?|fatal|panic|npm err!|err!|e\s|failed|failure|exception|traceback \(most)\b[:!]?",
    re.IGNORECASE,
)
_ERROR_WORD = re.compile(r"\b(?:error|failed|fatal|denied|refused|not found|cannot|could not|unable)\b", re.IGNORECASE)

_QUOTED = re.compile(r"(?<!\w)(['\"`])[^'\"`\n]{1,200}\1")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\w.~-]*[/\\])+[\w.-]+")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_HEX = re.compile(r"\b(?:0x)?[0-9a-f]{7,}\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![A-Za-z_\d])\d+(?:\.\d+)*")  # "31.02s" -> "<n>s"; "float32" stays
_LINE_REF = re.compile(r"\bline\s+\d+\b|:\d+(?::\d+)?\b", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_PLACEHOLDER = re.compile(r"<(?:n|name|path|url|id)>\w*")
_WORD = re.compile(r"[a-z][a-z'-]+")
_GENERIC_WORDS = frozenset(
    "failed failure failures fail fails error errors fatal exit exited status code in during at on the a an of "
    "with and or to for build test tests passed skipped warning warnings total run ran see above below".split()
)
MIN_TELLING_WORDS = 2


def error_line(output: str) -> str:
    """The line of ``output`` that best names the error ('' when none does)."""
    lines = [_PYTEST_E.sub("", line).strip() for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        if _EXCEPTION.match(line):
            return line[:MAX_LINE_CHARS]
    for line in reversed(lines):
        if _ERROR_PREFIX.match(line) and not line.lower().startswith("traceback"):
            return line[:MAX_LINE_CHARS]
    for line in reversed(lines):
        if _ERROR_WORD.search(line):
            return line[:MAX_LINE_CHARS]
    return ""


def signature(line: str) -> str:
    """What recurs of an error line, in lower case.

    "No module named 'a.b' (app/x.py:12)" -> "no module named <name> (<path>)".
    """
    text = line.strip()
    if not text:
        return ""
    found = _EXCEPTION.match(text)
    if found:  # drop the module prefix of the exception class
        text = found.group(1) + (found.group(2) or "")
    text = _URL.sub("<url>", text)
    text = _QUOTED.sub("<name>", text)
    text = _LINE_REF.sub("", text)
    text = _PATH.sub("<path>", text)
    text = _DOTTED.sub("<name>", text)
    text = _HEX.sub("<id>", text)
    text = _NUMBER.sub("<n>", text)
    text = _SPACES.sub(" ", text).strip().lower()[:MAX_SIGNATURE_CHARS]
    return text if telling(text) else ""


def telling(normalised: str) -> bool:
    """Whether a normalised error line names a particular failure: at least ``MIN_TELLING_WORDS``
    words beside placeholders and the words every failure report uses. A bare test tally
    ("<n> failed in <n>s") or "error during build" would make every failing run of that tool
    look like one problem."""
    words = [w for w in _WORD.findall(_PLACEHOLDER.sub(" ", normalised)) if w not in _GENERIC_WORDS]
    return len(words) >= MIN_TELLING_WORDS


def of_output(output: str) -> tuple[str, str]:
    """(error line, its signature) of a tool's output."""
    line = error_line(output)
    return line, signature(line)
