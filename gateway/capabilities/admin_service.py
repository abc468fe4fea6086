"""What the CLI's admin commands and the health check use: health, versions, projects, one memory, rules."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import grpc

from gateway.caller import Caller
from gateway.gateway_errors import NotFound
from gateway.replies.memory_replies import Memory
from gateway.replies.system_replies import Health, Projects, ScopeCounts, Versions
from gateway.rpc import Rpc
from gateway.rules import Rules, rules_from_proto
from kernel import __version__
from kernel import projects as project_ids
from kernel.config import Settings
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

Info = dict[str, str | int]  # what a backend reports about itself, or {"error": <gRPC code>}
PROBE_TIMEOUT = 2.0


class AdminService:
    def __init__(self, rpc: Rpc, settings: Settings) -> None:
        self.rpc = rpc
        self.settings = settings

    async def health(self) -> Health:
        return Health(await self.rpc.health())

    async def show_memory(self, caller: Caller, *, id: str) -> Memory:
        """One memory with every field; archived memories too (``archived: true``): search hides them, show does not."""
        request = mem_pb.GetRequest(scope=caller.scope, id=id)
        try:
            reply: mem_pb.GetResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Get, request)
        except NotFound:  # a malformed id keeps the memory service's 422 and its reason
            raise NotFound(
                f"no memory with id {id!r} in this project or your memory_bank: "
                "copy an id from an [id:...] tag or from `mnemex search`"
            ) from None
        return Memory.from_proto(reply.memory)

    async def projects(self, caller: Caller, *, cwd_given: bool) -> Projects:
        """This user's scopes with their counts, the project the request's cwd resolves to (``cwd_given``),
        and the bindings."""
        reply = await self.rpc.scopes()
        scopes = tuple(
            ScopeCounts(info.scope.user, info.scope.project, dict(info.counts))
            for info in reply.scopes
            if info.scope.user == caller.user
        )
        return Projects(
            user=caller.user,
            current=caller.project if cwd_given else None,
            projects=scopes,
            bindings=project_ids.load_bindings(self.settings.home),
        )

    async def versions(self) -> Versions:
        """The gateway's package version, what each backend reports about itself, and health.

        A backend that cannot answer gets ``{"error": "<gRPC code>"}`` (a probe's
        result, not a failure of this call): UNIMPLEMENTED means it runs an older
        mnemex, from before its Info RPC, which ``mnemex doctor`` tells apart.
        """

        async def embedding() -> Info:
            info = await self.rpc.embedding.info(timeout=PROBE_TIMEOUT)
            return {
                "version": info.version,
                "model_id": info.model_id,
                "dimension": info.dimension,
                "device": info.device,
                "backend": info.backend,
                "precision": info.precision,
            }

        async def memory() -> Info:
            info: mem_pb.InfoResponse = await self.rpc.call(
                self.rpc.memory_any().Info, mem_pb.InfoRequest(), PROBE_TIMEOUT
            )
            return {"version": info.version, "service": info.service}

        async def kg() -> Info:
            info: kg_pb.InfoResponse = await self.rpc.call(self.rpc.kg_any().Info, kg_pb.InfoRequest(), PROBE_TIMEOUT)
            return {"version": info.version, "service": info.service}

        async def ask(name: str, probe: Callable[[], Awaitable[Info]]) -> tuple[str, Info]:
            try:
                return name, await probe()
            except grpc.aio.AioRpcError as exc:
                return name, {"error": exc.code().name}

        backends = await asyncio.gather(ask("embedding", embedding), ask("memory", memory), ask("kg", kg))
        return Versions(gateway=__version__, backends=dict(backends), health=await self.health())

    async def rules(self, timeout: float | None = None) -> Rules:
        """The numbers the memory service learns by, as it is configured (for the MCP tool descriptions)."""
        reply: mem_pb.GetRulesResponse = await self.rpc.unary(
            "memory", self.rpc.memory_any().GetRules, mem_pb.GetRulesRequest(), timeout
        )
        return rules_from_proto(reply)
