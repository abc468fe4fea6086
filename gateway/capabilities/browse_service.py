"""The viewer's reads and its restore: the memory service's viewer RPCs (ListScopes, Overview, Browse, Get,
OutcomeLog, ListTurns, ListSessions, Restore) and the kg's Export, each for one ``Caller``.

Replies are the typed protos (a restored memory: ``memory_replies.Memory``); ``gateway.ui.data.ViewerData`` shapes
them for the pages.
"""

from __future__ import annotations

from collections.abc import Sequence

from gateway.caller import Caller
from gateway.replies.memory_replies import Memory
from gateway.rpc import Rpc
from kernel.config import Settings
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb


class BrowseService:
    def __init__(self, rpc: Rpc, settings: Settings) -> None:
        self.rpc = rpc
        self.settings = settings

    async def scopes(self) -> mem_pb.ListScopesResponse:
        """Every scope with its counts, from every shard (the viewer keeps its own user's)."""
        return await self.rpc.scopes()

    async def overview(self, caller: Caller) -> mem_pb.OverviewResponse:
        request = mem_pb.OverviewRequest(scope=caller.scope)
        reply: mem_pb.OverviewResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Overview, request)
        return reply

    async def browse(
        self,
        caller: Caller,
        *,
        collections: Sequence[str],
        tag: str,
        sort: str,
        limit: int,
        offset: int,
        archived: str,
        kind: str,
        session_id: str = "",
        ids: Sequence[str] = (),
    ) -> mem_pb.BrowseResponse:
        request = mem_pb.BrowseRequest(
            scope=caller.scope,
            collections=collections,
            tag=tag,
            sort=sort,
            limit=limit,
            offset=offset,
            archived=archived,
            kind=kind,
            session_id=session_id,
            ids=ids,
        )
        reply: mem_pb.BrowseResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Browse, request)
        return reply

    async def get(self, caller: Caller, memory_id: str) -> mem_pb.Memory:
        """One memory, archived or not; ``NotFound`` when the scope has none with that id."""
        request = mem_pb.GetRequest(scope=caller.scope, id=memory_id)
        reply: mem_pb.GetResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Get, request)
        return reply.memory

    async def outcome_log(self, caller: Caller, memory_id: str) -> mem_pb.OutcomeLogResponse:
        request = mem_pb.OutcomeLogRequest(scope=caller.scope, memory_id=memory_id)
        reply: mem_pb.OutcomeLogResponse = await self.rpc.unary(
            "memory", self.rpc.memory(caller.user).OutcomeLog, request
        )
        return reply

    async def turns(
        self, caller: Caller, *, memory_id: str = "", session_id: str = "", limit: int
    ) -> mem_pb.ListTurnsResponse:
        request = mem_pb.ListTurnsRequest(scope=caller.scope, memory_id=memory_id, session_id=session_id, limit=limit)
        reply: mem_pb.ListTurnsResponse = await self.rpc.unary(
            "memory", self.rpc.memory(caller.user).ListTurns, request
        )
        return reply

    async def sessions(self, caller: Caller, *, limit: int) -> mem_pb.ListSessionsResponse:
        request = mem_pb.ListSessionsRequest(scope=caller.scope, limit=limit)
        reply: mem_pb.ListSessionsResponse = await self.rpc.unary(
            "memory", self.rpc.memory(caller.user).ListSessions, request
        )
        return reply

    async def restore(self, caller: Caller, memory_id: str) -> Memory:
        request = mem_pb.RestoreRequest(scope=caller.scope, id=memory_id)
        reply: mem_pb.RestoreResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Restore, request)
        return Memory.from_proto(reply.memory)

    async def kg_export(self, caller: Caller) -> kg_pb.ExportResponse:
        request = kg_pb.ExportRequest(scope=caller.scope)
        reply: kg_pb.ExportResponse = await self.rpc.unary("kg", self.rpc.kg(caller.user).Export, request)
        return reply
