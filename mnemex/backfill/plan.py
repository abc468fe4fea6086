"""Which exchanges a run sends (``--since``, ``--project``) and how they are grouped into requests."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from mnemex.backfill.exchange import Exchange

MAX_BATCH_EXCHANGES = 256  # the gateway's limit per request
MAX_BATCH_BYTES = 1_500_000  # under the gateway's default 2 MB request body limit


def _normal(path: str) -> str:
    return os.path.normcase(os.path.normpath(path))


def is_inside(cwd: str, project: str) -> bool:
    """``cwd`` is ``project`` or below it (compared as paths, so the folder need not exist any more)."""
    if not cwd:
        return False
    inner, outer = _normal(cwd), _normal(project)
    try:
        return os.path.commonpath([inner, outer]) == outer
    except ValueError:  # different drives, or a relative path
        return False


@dataclass(frozen=True)
class Filters:
    since: date | None = None
    project: Path | None = None

    def signature(self) -> str:
        """``""`` without filters; otherwise what the checkpoint records the progress under."""
        parts = []
        if self.since:
            parts.append(f"since={self.since.isoformat()}")
        if self.project:
            parts.append(f"project={self.project}")
        return ";".join(parts)

    def accepts(self, exchange: Exchange) -> bool:
        if self.since and exchange["started_at"][:10] < self.since.isoformat():
            return False
        return not (self.project and not is_inside(exchange["cwd"], str(self.project)))


def encoded_size(exchange: Exchange) -> int:
    return len(json.dumps(exchange, ensure_ascii=False).encode("utf-8"))


@dataclass
class Batch:
    """Exchanges for one request, each with the source key and reading index it came from."""

    exchanges: list[Exchange] = field(default_factory=list)
    origins: list[tuple[str, int]] = field(default_factory=list)
    bytes: int = 0

    def fits(self, size: int) -> bool:
        """Whether an exchange of ``size`` encoded bytes still fits (a first one always does)."""
        return not self.exchanges or (
            len(self.exchanges) < MAX_BATCH_EXCHANGES and self.bytes + size <= MAX_BATCH_BYTES
        )

    def add(self, exchange: Exchange, key: str, index: int, size: int) -> None:
        self.exchanges.append(exchange)
        self.origins.append((key, index))
        self.bytes += size

    @property
    def full(self) -> bool:
        return len(self.exchanges) >= MAX_BATCH_EXCHANGES

    def keys(self) -> set[str]:
        return {key for key, _ in self.origins}
