"""Intents of consolidations in progress, on disk, so a crash mid-consolidation is finished at the next start.

A consolidation writes its merged memory, then archives each source: several
writes, so a kill between them would leave the merged memory and a source both
active. Before the first write, ``begin`` records the intent durably (one small
JSON file per consolidation under ``<home>/memory/merges/``, the folder's name on
disk since the first release, written to a temporary file, fsynced and renamed);
``finish`` removes it once every source is archived. At start, ``pending`` lists
what a crash left, and the service completes each
(``usecases.consolidation.Consolidation.recover``): sources archived when the
merged memory was written, nothing to do when it was not.

Files are created 0600 in a 0700 folder: they name a user, a project and ids.
A crash while an intent is written leaves only a temporary file (the rename is
atomic), which ``pending`` ignores; an intent file that cannot be parsed is
removed by ``pending`` (its merged memory, if written, is still found by its consolidation key
when the client retries).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

SUFFIX = ".json"


@dataclass(frozen=True)
class ConsolidationIntent:
    user: str
    project: str
    merged_id: str
    source_ids: tuple[str, ...]


class ConsolidationJournal:
    def __init__(self, folder: Path) -> None:
        self._folder = folder

    def _path(self, merged_id: str) -> Path:
        return self._folder / f"{merged_id}{SUFFIX}"

    def begin(self, intent: ConsolidationIntent) -> None:
        """Record ``intent`` durably (returns after the file and its folder entry are on disk)."""
        self._folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        document = {
            "user": intent.user,
            "project": intent.project,
            "merged_id": intent.merged_id,
            "source_ids": list(intent.source_ids),
        }
        handle, temporary = tempfile.mkstemp(prefix=".merge-", dir=self._folder)  # created 0600
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(document, out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self._path(intent.merged_id))
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        self._sync_folder()

    def finish(self, merged_id: str) -> None:
        """Forget the intent of ``merged_id`` (the merge is complete, or was never written)."""
        self._path(merged_id).unlink(missing_ok=True)

    def pending(self) -> list[ConsolidationIntent]:
        """Intents left by merges that did not finish; unreadable files are removed."""
        if not self._folder.is_dir():
            return []
        found = []
        for path in sorted(self._folder.glob(f"*{SUFFIX}")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                found.append(
                    ConsolidationIntent(
                        str(data["user"]),
                        str(data["project"]),
                        str(data["merged_id"]),
                        tuple(str(i) for i in data["source_ids"]),
                    )
                )
            except (OSError, ValueError, KeyError, TypeError):
                path.unlink(missing_ok=True)
        return found

    def _sync_folder(self) -> None:
        try:
            descriptor = os.open(self._folder, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
