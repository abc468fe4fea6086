"""Which files ``mnemex ingest`` sends, and why others are skipped (pure, no network).

A path argument is a file or a directory (walked recursively, hidden entries
skipped). Each file becomes an ``IngestItem``: either ready to send, with
its title and content hash, or skipped with a reason (unsupported type,
over 10 MB, empty, unreadable). Titles are the file name without its
suffix; when two files in one run share a name, the later ones use their
path relative to the argument, so no book silently replaces another.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".pdf")
MAX_BOOK_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True)
class IngestItem:
    path: Path
    title: str
    size: int
    sha256: str = ""
    skip_reason: str = ""

    @property
    def ready(self) -> bool:
        return not self.skip_reason


def walk(root: Path) -> Iterator[Path]:
    """Files under ``root`` in a stable order, without hidden files or directories."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath) / name


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def classify(path: Path, title: str) -> IngestItem:
    try:
        size = path.stat().st_size
    except OSError as exc:
        return IngestItem(path, title, 0, skip_reason=f"cannot read: {exc.strerror}")
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        kind = suffix or "no extension"
        return IngestItem(path, title, size, skip_reason=f"unsupported type ({kind}); use .txt, .md or .pdf")
    if size > MAX_BOOK_BYTES:
        return IngestItem(
            path,
            title,
            size,
            skip_reason=f"too large ({size / 1_048_576:.1f} MB > 10 MB); split it into smaller files",
        )
    if size == 0:
        return IngestItem(path, title, size, skip_reason="empty file")
    try:
        digest = file_sha256(path)
    except OSError as exc:
        return IngestItem(path, title, size, skip_reason=f"cannot read: {exc.strerror}")
    return IngestItem(path, title, size, sha256=digest)


def collect(arguments: Iterable[Path], title: str | None = None) -> list[IngestItem]:
    """Every file named or found under ``arguments``; ``title`` overrides a single file's."""
    items: list[IngestItem] = []
    seen_titles: set[str] = set()
    seen_paths: set[Path] = set()
    for argument in arguments:
        if argument.is_dir():
            found = [(p, p.relative_to(argument).with_suffix("").as_posix()) for p in walk(argument)]
        else:
            found = [(argument, argument.with_suffix("").as_posix())]
        for path, relative in found:
            resolved = path.resolve()
            if resolved in seen_paths:
                continue
            seen_paths.add(resolved)
            name = title or path.stem
            if name in seen_titles:
                name = relative
            seen_titles.add(name)
            if not path.exists():
                items.append(IngestItem(path, name, 0, skip_reason="no such file"))
            else:
                items.append(classify(path, name))
    return items
