"""The one implementation behind REST routes, MCP tools and the CLI.

Every method is async, keyword-only, takes ``cwd`` (the project scope is
``mnemex.projects.resolve(cwd, settings.home)``; the user is
``settings.user``) and returns plain JSON-able dicts. Errors are
``gateway.errors`` exceptions. (Skeleton: bodies are being filled in.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gateway.backends import Backends
from mnemex.config import Settings

JSON = dict[str, Any]


class Operations:
    def __init__(self, backends: Backends, settings: Settings) -> None:
        self.backends = backends
        self.settings = settings

    async def get_context(self, *, session_id: str, prompt: str, cwd: str | None, limit: int = 5) -> JSON:
        """{"context", "memories", "scoring_required", "scoring_ids", "scoring_prompt"}."""
        raise NotImplementedError

    async def search(
        self,
        *,
        cwd: str | None,
        query: str | None = None,
        days_back: int | None = None,
        id: str | None = None,
        collections: Sequence[str] | None = None,
        limit: int = 10,
        sort_by: str = "relevance",
        metadata: dict[str, Any] | None = None,
        session_id: str = "",
    ) -> JSON:
        raise NotImplementedError

    async def add_memory_bank(
        self, *, cwd: str | None, content: str, tags: Sequence[str] = (), importance: float = 0.7, confidence: float = 0.7
    ) -> JSON:
        raise NotImplementedError

    async def update_memory(
        self,
        *,
        cwd: str | None,
        id: str,
        content: str | None = None,
        tags: Sequence[str] | None = None,
        importance: float | None = None,
        confidence: float | None = None,
    ) -> JSON:
        raise NotImplementedError

    async def archive_memory(self, *, cwd: str | None, id: str, reason: str = "") -> JSON:
        raise NotImplementedError

    async def score(
        self,
        *,
        cwd: str | None,
        session_id: str,
        outcome: str,
        memory_scores: dict[str, str] | None = None,
        related: Sequence[str] | None = None,
    ) -> JSON:
        raise NotImplementedError

    async def record_takeaway(
        self, *, cwd: str | None, session_id: str, key_takeaway: str, initial_score: str | None = None
    ) -> JSON:
        raise NotImplementedError

    async def insights(self, *, cwd: str | None, session_id: str, query: str) -> JSON:
        raise NotImplementedError

    async def stop(self, *, cwd: str | None, session_id: str, assistant_text: str) -> JSON:
        raise NotImplementedError

    async def kg_graph(self, *, cwd: str | None, entities: Sequence[str] | None = None, limit: int = 50) -> JSON:
        raise NotImplementedError

    async def ingest_book(self, *, cwd: str | None, title: str, filename: str, data: bytes, source: str = "") -> JSON:
        raise NotImplementedError

    async def list_books(self, *, cwd: str | None) -> JSON:
        raise NotImplementedError

    async def remove_book(self, *, cwd: str | None, title: str) -> JSON:
        raise NotImplementedError

    async def stats(self, *, cwd: str | None) -> JSON:
        raise NotImplementedError

    async def health(self) -> JSON:
        raise NotImplementedError
