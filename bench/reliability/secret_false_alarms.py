"""Reliability part: redaction leaves real text that holds no secret unchanged (issue 36).

The texts were written by people outside this project, or are the ordinary texts the secrets corpora keep
beside their forms: SeaMonkey bug reports (summary and description, ``shared/data/duplicate-reports``), the
turns of the LoCoMo conversations (``shared/data/locomo``), the repository's own Markdown files, and the
ordinary texts of every corpus that is not held out (``tests/support/secrets_*.py``). ``failed`` counts the
texts ``redact`` changes; none of them holds a secret, so 0 is the only good value. Run as a module it prints
the changed spans (``python -m bench.reliability.secret_false_alarms``). A source that is missing (the shared
data lives beside the repository, not in it) is skipped with a note.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from bench.reliability import Row
from kernel.json_values import as_list, as_object, objects_at, str_at
from kernel.privacy import redact, strip_private
from kernel.redaction.recogniser import MARKER_PREFIX

_REPO = Path(__file__).resolve().parents[2]
_SHARED_DATA = _REPO.parent / "shared" / "data"
# (module, name of its list of ordinary texts): the corpora used to tune, never the one held out.
_CORPORA = [
    ("tests.support.secrets_corpus", "ORDINARY"),
    ("tests.support.secrets_heldout", "HELDOUT_ORDINARY"),
    ("tests.support.secrets_fresh", "FRESH_ORDINARY"),
    ("tests.support.secrets_final", "FINAL_ORDINARY"),
    ("tests.support.secrets_blind4", "BLIND4_ORDINARY"),
    ("tests.support.secrets_blind5", "BLIND5_ORDINARY"),
    ("tests.support.secrets_blind6", "BLIND6_ORDINARY"),
    ("tests.support.secrets_blind7", "BLIND7_ORDINARY"),
    ("tests.support.secrets_blind9", "BLIND9_ORDINARY"),
    ("tests.support.secrets_blind10", "BLIND10_ORDINARY"),
    ("tests.support.secrets_blind11", "BLIND11_ORDINARY"),
    ("tests.support.secrets_blind12", "BLIND12_ORDINARY"),
    ("tests.support.secrets_blind13", "BLIND13_ORDINARY"),
    ("tests.support.secrets_blind14", "BLIND14_ORDINARY"),
]
_MARKER = re.compile(re.escape(MARKER_PREFIX) + r"[^\]]*\]")


def _bug_reports(data: Path) -> Iterator[str]:
    reports = as_object(json.loads((data / "duplicate-reports" / "seamonkey.json").read_text(encoding="utf-8")))
    for report in as_object(reports.get("reports")).values():
        fields = as_object(report)
        yield str_at(fields, "summary")
        yield str_at(fields, "description")


def _conversation_turns(data: Path) -> Iterator[str]:
    for sample in as_list(json.loads((data / "locomo" / "locomo-dev.json").read_text(encoding="utf-8"))):
        conversation = as_object(as_object(sample).get("conversation"))
        for key in conversation:
            if key.startswith("session_") and not key.endswith("date_time"):
                for turn in objects_at(conversation, key):
                    yield str_at(turn, "text")


def _markdown(repo: Path) -> Iterator[str]:
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=repo, capture_output=True, text=True, check=True)
    for name in listed.stdout.split():
        yield (repo / name).read_text(encoding="utf-8")


def _corpus_ordinary() -> Iterator[str]:
    for module, name in _CORPORA:
        texts = getattr(importlib.import_module(module), name)
        yield from (text for text in texts if isinstance(text, str))


def sources(data: Path = _SHARED_DATA, repo: Path = _REPO) -> dict[str, list[str]]:
    """Each source's texts, by name; a source whose files are missing is left out."""
    out: dict[str, list[str]] = {}
    readers = {
        "seamonkey bug reports": lambda: _bug_reports(data),
        "locomo turns": lambda: _conversation_turns(data),
        "repository markdown": lambda: _markdown(repo),
        "corpora ordinary texts": _corpus_ordinary,
    }
    for name, read in readers.items():
        try:
            out[name] = [text for text in read() if text]
        except (OSError, subprocess.CalledProcessError):
            continue
    return out


def changed_spans(text: str) -> list[tuple[str, str]]:
    """(what ``redact`` replaced, the marker it wrote instead), for each change it made to ``text``.

    ``<private>`` blocks are dropped first: dropping them is by design (the docs that describe the feature
    show the tag), so only what the secret recognisers change is counted."""
    kept = strip_private(text)
    out = redact(kept)
    if out == kept:
        return []
    markers = _MARKER.findall(out)
    if not markers:
        return [(kept, out)] if out != kept else []
    between = _MARKER.split(out)
    found = re.fullmatch("(.*?)".join(re.escape(part) for part in between), kept, re.DOTALL)
    if found is None:
        return [(kept, out)]
    return [(b, a) for b, a in zip(found.groups(), markers, strict=True) if b != a]


def run(workdir: Path) -> list[Row]:
    """One row per source: ``tried`` texts, ``failed`` the ones ``redact`` changed."""
    del workdir  # nothing is written: redaction is a pure function
    rows = []
    for name, texts in sources().items():
        changed = sum(1 for text in texts if changed_spans(text))
        rows.append(Row("secrets", f"false alarms: {name}", len(texts), changed, note="texts redaction changed"))
    return rows


def main() -> None:
    shown = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for name, texts in sources().items():
        changed = [text for text in texts if changed_spans(text)]
        print(f"{name}: {len(changed)} of {len(texts)} texts changed")
        for text in changed[:shown]:
            for before, after in changed_spans(text):
                at = text.find(before)
                context = text[max(0, at - 40) : at + len(before) + 20]
                print(f"  {before[:120]!r} -> {after[:60]!r}   in ...{context[:200]!r}...")


if __name__ == "__main__":
    main()
