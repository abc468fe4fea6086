"""Calls to a sharded memory or kg service, each sent to the shard that owns its user.

``routed(stubs)`` returns the one stub itself when there is one shard (no cost
on a laptop), else a ``ShardRouter`` that answers the same attribute calls as
a generated stub: ``router.PrepareContext(request, timeout=..., metadata=...)``
picks ``stubs[shard_of(user, len(stubs))]`` (``kernel.sharding``), where the
user is the request's scope's, and returns that stub's call unchanged (unary
or server-streaming alike).

- ``ListScopes`` asks every shard and merges the answers.
- Calls that carry no user (``Info``, ``GetRules``, ``ExtractConcepts``) go to
  shard 0: every shard answers them the same.
- Client-streaming calls (``Import``) cannot be routed by their first message
  without reading it; they are refused with a message that says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from gateway.errors import InvalidInput
from kernel.sharding import shard_of

StubT = TypeVar("StubT")

UNSCOPED = frozenset({"Info", "GetRules", "ExtractConcepts"})
FAN_OUT = frozenset({"ListScopes"})
CLIENT_STREAMING = frozenset({"Import"})


class ShardingUnsupported(InvalidInput):
    """The call cannot be routed to one shard (the edges answer it as invalid input, with this message)."""


def user_of(method: str, request: Any) -> str:
    """The user whose shard must answer ``request``."""
    if method == "Backfill":  # a batch of items, each with its scope; the gateway sends one user's per call
        items = list(request.exchanges) or list(request.observations)
        return str(items[0].scope.user) if items else ""
    if method == "IngestBookStream":
        return str(request.book.scope.user)
    return str(request.scope.user)


class ShardRouter:
    """Looks like a generated stub; routes every call by its request's user (see the module doc)."""

    def __init__(self, service: str, stubs: Sequence[Any]) -> None:
        if len(stubs) < 2:
            raise ValueError("a router needs at least two shards; use the stub itself for one")
        self.service = service
        self.stubs = list(stubs)

    def shard_for(self, user: str) -> Any:
        return self.stubs[shard_of(user, len(self.stubs))]

    def __getattr__(self, method: str) -> Callable[..., Any]:
        if method.startswith("_"):
            raise AttributeError(method)
        if method in CLIENT_STREAMING:
            raise ShardingUnsupported(
                f"{method} streams records of possibly several users and cannot go to one {self.service} shard; "
                f"run it against each shard's own stack, or with a single {self.service} service"
            )
        if method in FAN_OUT:
            return lambda request, **kwargs: self._gather(method, request, kwargs)
        if method in UNSCOPED:
            return cast(Callable[..., Any], getattr(self.stubs[0], method))

        def call(request: Any, **kwargs: Any) -> Any:
            return getattr(self.shard_for(user_of(method, request)), method)(request, **kwargs)

        return call

    async def _gather(self, method: str, request: Any, kwargs: dict[str, Any]) -> Any:
        replies = await asyncio.gather(*(getattr(stub, method)(request, **kwargs) for stub in self.stubs))
        merged = type(replies[0])()
        for reply in replies:
            merged.MergeFrom(reply)  # repeated fields concatenate: every shard's scopes
        return merged


def routed(service: str, stubs: Sequence[StubT]) -> StubT:
    """The stub itself for one shard, else a router typed as the stub it stands in for."""
    if len(stubs) == 1:
        return stubs[0]
    return cast(StubT, ShardRouter(service, stubs))
