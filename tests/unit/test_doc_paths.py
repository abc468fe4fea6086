"""The reference documents name only files, modules and make targets the repository holds.

Read from ARCHITECTURE.md, README.md and docs/*.md (BENCHMARKS.md and RELIABILITY.md are records of
measurements, not references):

- a code span or a fenced block's word that is a path into the repository (its first folder is one of the
  repository's own, ``gateway/rpc.py``) must exist;
- a Python module named by a shorter path or its bare file name (``domain/ranking.py``, ``batcher.py``)
  must be the end of some file's path in the repository;
- a relative Markdown link (``[viewer](docs/VIEWER.md)``) must point at a file, from the document's folder;
- ``make X`` in a code span or at the start of a fenced line must name a target of the Makefile.

Other paths (a client's files, the data home's layout, an example in prose) are not the repository's, so
they are not checked. The checkers take text, so the ``*_reports_*`` tests at the end feed them small
documents made to break each rule: a checker that cannot fail fails there.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ("ARCHITECTURE.md", "README.md", *sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("docs/*.md")))
REPO_FOLDERS = (
    "gateway",
    "services",
    "kernel",
    "hooks",
    "mnemex",
    "tests",
    "bench",
    "scripts",
    "protos",
    "deploy",
    "docs",
)
SKIPPED_FOLDERS = frozenset({".git", ".venv", "node_modules", "__pycache__", "build", ".mypy_cache", ".ruff_cache"})

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
PATH_WORD = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_./-]*")
MAKE = re.compile(r"^make ([a-z][a-z0-9-]*)")
MAKE_TARGET = re.compile(r"^([a-z][a-z0-9-]*):", re.MULTILINE)


@functools.cache
def repository_files(root: Path = ROOT) -> frozenset[str]:
    """Every file of the repository, as a path relative to the root (virtualenvs, caches and packages aside)."""
    found: set[str] = set()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [s for s in subfolders if s not in SKIPPED_FOLDERS]
        base = Path(folder).relative_to(root)
        found.update((base / name).as_posix() for name in files)
    return frozenset(found)


def _words(text: str) -> Iterable[str]:
    """The code spans of the prose, and each word of the fenced blocks."""
    for block in FENCE.findall(text):
        yield from PATH_WORD.findall(block)
    prose = FENCE.sub("", text)
    for span in CODE_SPAN.findall(prose):
        yield span.strip()


def _missing_path(word: str, files: frozenset[str], root: Path) -> bool:
    """``word`` names a repository path that is not there (False for what is not a repository path)."""
    if not PATH_WORD.fullmatch(word) or word.startswith(("./", "../")):
        return False
    path = word.rstrip("/")
    first = path.split("/", 1)[0]
    if "/" in word and first in REPO_FOLDERS:
        return not (root / path).exists()
    if path.endswith(".py"):
        return not any(f == path or f.endswith("/" + path) for f in files)
    return False


def _make_targets(makefile_text: str) -> frozenset[str]:
    return frozenset(MAKE_TARGET.findall(makefile_text))


def doc_problems(text: str, doc_folder: Path, files: frozenset[str], targets: frozenset[str], root: Path) -> list[str]:
    """One line per path, link or make target in ``text`` that the repository does not hold."""
    problems: list[str] = []
    for word in dict.fromkeys(_words(text)):
        if _missing_path(word, files, root):
            problems.append(f"no such file: {word}")
    for block in FENCE.findall(text):
        for line in block.splitlines():
            make = MAKE.match(line.strip())
            if make and make.group(1) not in targets:
                problems.append(f"no make target: {make.group(1)}")
    for span in CODE_SPAN.findall(FENCE.sub("", text)):
        make = MAKE.match(span.strip())
        if make and make.group(1) not in targets:
            problems.append(f"no make target: {make.group(1)}")
    for target in LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:", "#")):
            continue
        relative = target.split("#", 1)[0]
        if relative and not (doc_folder / relative).exists():
            problems.append(f"broken link: {target}")
    return problems


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_document_names_only_what_the_repository_holds(document: str) -> None:
    path = ROOT / document
    targets = _make_targets((ROOT / "Makefile").read_text(encoding="utf-8"))
    problems = doc_problems(path.read_text(encoding="utf-8"), path.parent, repository_files(), targets, ROOT)
    assert problems == [], f"{document}: " + "; ".join(problems)


# -- the checker itself can fail ---------------------------------------------------------------
def _tree(tmp_path: Path) -> tuple[frozenset[str], frozenset[str]]:
    for name in ("gateway/rpc.py", "services/memory/domain/ranking.py", "docs/VIEWER.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    return repository_files(tmp_path), _make_targets("up: install\n\t.venv/bin/mnemex up\ntest-fast:\n\tpytest\n")


def test_what_exists_passes(tmp_path: Path) -> None:
    files, targets = _tree(tmp_path)
    text = (
        "`gateway/rpc.py` and `domain/ranking.py`, `ranking.py`, `gateway/`, [viewer](docs/VIEWER.md#pages);\n"
        "a client's `~/.claude/settings.json`, the home's `memory/state.db`, `/api/hooks/stop`, `make test-fast`\n"
        "```\nmake up\ntransport/x.txt\n```\n"
    )
    assert doc_problems(text, tmp_path, files, targets, tmp_path) == []


def test_the_checker_reports_a_missing_repository_path(tmp_path: Path) -> None:
    files, targets = _tree(tmp_path)
    text = "`gateway/replies.py` and `services/memory/storage/`\n"
    assert doc_problems(text, tmp_path, files, targets, tmp_path) == [
        "no such file: gateway/replies.py",
        "no such file: services/memory/storage/",
    ]


def test_the_checker_reports_a_module_no_file_ends_with(tmp_path: Path) -> None:
    files, targets = _tree(tmp_path)
    text = "`domain/rank_parts.py` and `grpc_service.py`\n```\n└─ storage/merge_journal.py → ranking.py\n```\n"
    assert doc_problems(text, tmp_path, files, targets, tmp_path) == [
        "no such file: storage/merge_journal.py",
        "no such file: domain/rank_parts.py",
        "no such file: grpc_service.py",
    ]


def test_the_checker_reports_a_broken_link_and_a_missing_make_target(tmp_path: Path) -> None:
    files, targets = _tree(tmp_path)
    text = "[deploy](docs/DEPLOY.md), `make check`\n```bash\nmake lint   # the gate\n```\n"
    assert doc_problems(text, tmp_path, files, targets, tmp_path) == [
        "no make target: lint",
        "no make target: check",
        "broken link: docs/DEPLOY.md",
    ]
