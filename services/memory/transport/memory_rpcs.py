"""The RPCs that read and write single memories: Store, Get, List, Update, Archive, Restore.

Translation only: each RPC checks its scope, calls one use case and converts the reply.
"""

from __future__ import annotations

from kernel.grpc_hosting import RpcContext
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from services.memory.transport import memory_protos as protos
from services.memory.usecases.memory_reads import MemoryReads
from services.memory.usecases.memory_restore import MemoryRestore
from services.memory.usecases.memory_writes import MemoryWrites
from services.memory.usecases.request_scopes import RequestScopes
from services.memory.usecases.turn_recording import check_session_id


class MemoryRpcs:
    def __init__(self, scopes: RequestScopes, writes: MemoryWrites, reads: MemoryReads, restore: MemoryRestore) -> None:
        self._scopes = scopes
        self._writes = writes
        self._reads = reads
        self._restore = restore

    async def Store(self, request: pb.StoreRequest, context: RpcContext) -> pb.StoreResponse:
        result = await self._writes.store(
            protos.scope(self._scopes, request.scope),
            collection=request.collection,
            content=request.content,
            vector=request.vector,
            tags=list(request.tags),
            importance=request.importance if request.HasField("importance") else None,
            confidence=request.confidence if request.HasField("confidence") else None,
            metadata_json=request.metadata_json,
            initial_outcome=protos.outcome(request.initial_outcome, "initial_outcome"),
            allow_duplicate=request.allow_duplicate,
            session_id=check_session_id(request.session_id),
            user_wide=request.user_wide,
        )
        return pb.StoreResponse(
            memory=protos.memory(result.memory),
            deduplicated=result.deduplicated,
            superseded_ids=list(result.superseded),
        )

    async def Get(self, request: pb.GetRequest, context: RpcContext) -> pb.GetResponse:
        found = await self._reads.get(protos.scope(self._scopes, request.scope), request.id)
        return pb.GetResponse(memory=protos.memory(found))

    async def List(self, request: pb.ListRequest, context: RpcContext) -> pb.ListResponse:
        items, total = await self._reads.list_memories(
            protos.scope(self._scopes, request.scope),
            request.collection,
            limit=request.limit,
            offset=request.offset,
            include_archived=request.include_archived,
            sort_by=protos.sort_by(request.sort_by),
        )
        return pb.ListResponse(memories=[protos.memory(m) for m in items], total=total)

    async def Update(self, request: pb.UpdateRequest, context: RpcContext) -> pb.UpdateResponse:
        memory = await self._writes.update(
            protos.scope(self._scopes, request.scope),
            request.id,
            content=request.content if request.HasField("content") else None,
            tags=list(request.tags),
            replace_tags=request.replace_tags,
            importance=request.importance if request.HasField("importance") else None,
            confidence=request.confidence if request.HasField("confidence") else None,
        )
        return pb.UpdateResponse(memory=protos.memory(memory))

    async def Archive(self, request: pb.ArchiveRequest, context: RpcContext) -> pb.ArchiveResponse:
        memory = await self._writes.archive(protos.scope(self._scopes, request.scope), request.id, request.reason)
        return pb.ArchiveResponse(memory=protos.memory(memory))

    async def Restore(self, request: pb.RestoreRequest, context: RpcContext) -> pb.RestoreResponse:
        memory = await self._restore.restore(protos.scope(self._scopes, request.scope), request.id)
        return pb.RestoreResponse(memory=protos.memory(memory))
