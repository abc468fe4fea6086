"""Operations the CLI's admin commands use: show one memory, list projects, versions, rules.

A mixin of ``Operations`` (it relies on ``scopes``, ``_opts``, ``settings``
and ``health`` there), like ``LibraryOperations``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc

from gateway import convert
from gateway.errors import NotFound
from gateway.rpc import call
from gateway.rules import Rules, rules_from_proto
from kernel import __version__
from kernel import projects as project_ids
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

if TYPE_CHECKING:
    from gateway.backends import Backends
    from kernel.config import Settings

JSON = dict[str, Any]
PROBE_TIMEOUT = 2.0


class AdminOperations:
    if TYPE_CHECKING:  # provided by Operations
        backends: Backends
        settings: Settings

        @property
        def user(self) -> str: ...

        def scopes(self, cwd: str | None) -> tuple[common_pb.Scope, common_pb.Scope]: ...
        def project(self, cwd: str | None) -> str: ...
        def _opts(self, timeout: float | None = None) -> dict[str, Any]: ...
        async def health(self) -> JSON: ...

    async def show_memory(self, *, cwd: str | None, id: str) -> JSON:
        """One memory with every field; archived memories too (``archived: true``): search hides them, show does not."""
        request = mem_pb.GetRequest(scope=self.scopes(cwd)[0], id=id)
        try:
            reply = await call("memory", self.backends.memory.Get(request, **self._opts()))
        except NotFound:  # a malformed id keeps the memory service's 422 and its reason
            raise NotFound(
                f"no memory with id {id!r} in this project or your memory_bank: "
                "copy an id from an [id:...] tag or from `mnemex search`"
            ) from None
        return convert.memory_to_dict(reply.memory)

    async def projects(self, *, cwd: str | None) -> JSON:
        """This user's scopes with their counts, the project ``cwd`` resolves to, and the bindings."""
        reply = await call("memory", self.backends.memory.ListScopes(mem_pb.ListScopesRequest(), **self._opts()))
        user = self.user
        scopes = [
            {"user": info.scope.user, "project": info.scope.project, "counts": dict(info.counts)}
            for info in reply.scopes
            if info.scope.user == user
        ]
        return {
            "user": user,
            "current": self.project(cwd) if cwd else None,
            "projects": scopes,
            "bindings": project_ids.load_bindings(self.settings.home),
        }

    async def versions(self) -> JSON:
        """The gateway's package version, what each backend reports about itself, and health.

        A backend that cannot answer gets ``{"error": "<gRPC code>"}`` (a probe's
        result, not a failure of this call): UNIMPLEMENTED means it runs an older
        mnemex, from before its Info RPC, which ``mnemex doctor`` tells apart.
        """
        metadata = self.backends.metadata

        async def embedding() -> JSON:
            info = await self.backends.embedding.info(timeout=PROBE_TIMEOUT)
            return {
                "version": info.version,
                "model_id": info.model_id,
                "dimension": info.dimension,
                "device": info.device,
                "backend": info.backend,
                "precision": info.precision,
            }

        async def memory() -> JSON:
            info = await self.backends.memory.Info(mem_pb.InfoRequest(), timeout=PROBE_TIMEOUT, metadata=metadata)
            return {"version": info.version, "service": info.service}

        async def kg() -> JSON:
            info = await self.backends.kg.Info(kg_pb.InfoRequest(), timeout=PROBE_TIMEOUT, metadata=metadata)
            return {"version": info.version, "service": info.service}

        async def ask(name: str, probe: Callable[[], Awaitable[JSON]]) -> tuple[str, JSON]:
            try:
                return name, await probe()
            except grpc.aio.AioRpcError as exc:
                return name, {"error": exc.code().name}

        out: JSON = {"gateway": {"version": __version__}}
        out.update(await asyncio.gather(ask("embedding", embedding), ask("memory", memory), ask("kg", kg)))
        out.update(await self.health())
        return out

    async def rules(self, timeout: float | None = None) -> Rules:
        """The numbers the memory service learns by, as it is configured (for the MCP tool descriptions)."""
        reply = await call("memory", self.backends.memory.GetRules(mem_pb.GetRulesRequest(), **self._opts(timeout)))
        return rules_from_proto(reply)
