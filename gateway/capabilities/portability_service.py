"""Export and import of a user's memories and knowledge graphs (format: ``gateway.export_format``).

Export covers only the caller's user, and vectors stay behind:
the file is model-independent and the memory service re-embeds on import.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import grpc

from gateway.caller import Caller
from gateway.export_format import FORMAT_NAME, FORMAT_VERSION, ImportTally, classify_line, encode_line, scope_key
from gateway.gateway_errors import InvalidInput
from gateway.rpc import Rpc, translate
from kernel import __version__
from kernel.config import Settings
from kernel.json_values import JSONObject, JSONValue, object_at, str_at
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

log = logging.getLogger("mnemex.gateway.portability")

EXPORT_TIMEOUT = 600.0
KG_EXPORT_TIMEOUT = 60.0
KG_IMPORT_TIMEOUT = 120.0


class PortabilityService:
    def __init__(self, rpc: Rpc, settings: Settings) -> None:
        self.rpc = rpc
        self.settings = settings

    async def export(self, caller: Caller) -> AsyncIterator[bytes]:
        """JSONL lines of every memory of the caller's user (all projects and the memory_bank), then each
        project's graph. A memory service that is down fails here, before the first line; a failure later
        ends the lines with an ``error`` line instead of ``end``."""
        listed = await self.rpc.scopes()
        return self._export_lines(caller.user, listed)

    async def _export_lines(self, user: str, listed: mem_pb.ListScopesResponse) -> AsyncIterator[bytes]:
        memories = graphs = 0
        scopes = {(i.scope.user, i.scope.project) for i in listed.scopes if i.scope.user == user}
        yield encode_line(
            {
                "type": "header",
                "format": FORMAT_NAME,
                "version": FORMAT_VERSION,
                "mnemex": __version__,
                "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
            }
        )
        try:
            # Only this gateway's user: another user's memories are not ours to hand out.
            stream = self.rpc.stream(
                self.rpc.memory(user).Export, mem_pb.ExportRequest(scope=common_pb.Scope(user=user)), EXPORT_TIMEOUT
            )
            async for item in stream:
                record: JSONObject = json.loads(item.record_json)  # the memory service writes an object
                record.pop("embedding", None)
                record.pop("dim", None)
                key = scope_key(record.get("scope"))
                if key is None or key[0] != user:
                    continue
                scopes.add(key)
                memories += 1
                yield encode_line({"type": "memory", "record": record})
        except grpc.aio.AioRpcError as exc:
            yield encode_line({"type": "error", "error": f"export stopped: {translate('memory', exc).message}"})
            return
        for owner, project in sorted(scopes):
            if not project:  # the user-wide memory_bank scope has no graph of its own
                continue
            try:
                request = kg_pb.ExportRequest(scope=common_pb.Scope(user=owner, project=project))
                reply: kg_pb.ExportResponse = await self.rpc.call(self.rpc.kg(owner).Export, request, KG_EXPORT_TIMEOUT)
            except grpc.aio.AioRpcError as exc:
                log.warning("kg export of %s/%s failed: %s", owner, project, exc.code().name)
                continue
            graph: JSONValue = json.loads(reply.graph_json or "{}")
            if graph:
                graphs += 1
                yield encode_line({"type": "kg", "scope": {"user": owner, "project": project}, "graph": graph})
        yield encode_line({"type": "end", "memories": memories, "graphs": graphs})

    async def import_lines(
        self, caller: Caller, *, lines: AsyncIterator[bytes], keep_user: bool = False
    ) -> ImportTally:
        """Import a batch of JSONL lines into the caller's project (records and graphs without a scope).
        Ids already present are skipped, so re-running duplicates nothing."""
        if keep_user and caller.remote:
            raise InvalidInput("keep_user writes records under other users: only the operator's MNEMEX_TOKEN may")
        default = {"user": caller.user, "project": caller.project}
        tally = ImportTally()
        graphs: list[JSONObject] = []
        stopped: list[InvalidInput] = []

        async def memory_requests() -> AsyncIterator[mem_pb.ImportRequest]:
            # An exception raised in here would cancel the gRPC call (and surface as a 500):
            # remember it, end the stream cleanly, and report it once the call is done.
            number = 0
            try:
                async for raw in lines:
                    number += 1
                    line = classify_line(raw, number, default, keep_user=keep_user, tally=tally)
                    if line is None:
                        continue
                    if line["type"] == "kg":
                        graphs.append(line)
                    else:
                        yield mem_pb.ImportRequest(record_json=json.dumps(line["record"], ensure_ascii=False))
            except InvalidInput as exc:
                stopped.append(exc)

        requests = memory_requests()
        first = await anext(requests, None)
        if first is None:
            # Nothing for the memory service. (grpc.aio raises CancelledError, not an
            # RpcError, for a stream that ends before a dead server is noticed.)
            reply = mem_pb.ImportResponse()
        else:
            reply = await self.rpc.send_stream(
                "memory", self.rpc.memory_import().Import, _prepend(first, requests), EXPORT_TIMEOUT
            )
        if stopped:
            done = f" ({reply.imported} records before it were imported)" if reply.imported else ""
            raise InvalidInput(f"{stopped[0]}{done}")
        tally.imported += reply.imported
        tally.skipped_existing += reply.skipped_existing
        tally.invalid += reply.invalid
        for graph in graphs:
            named = object_at(graph, "scope")  # export_format._scope: both always strings
            scope = common_pb.Scope(user=str_at(named, "user"), project=str_at(named, "project"))
            if await self._graph_already_there(scope, graph):
                tally.graphs_skipped += 1
                continue
            request = kg_pb.ImportRequest(scope=scope, graph_json=json.dumps(graph["graph"], ensure_ascii=False))
            kg_reply: kg_pb.ImportResponse = await self.rpc.unary(
                "kg", self.rpc.kg_import().Import, request, KG_IMPORT_TIMEOUT
            )
            tally.graphs += 1
            tally.kg_nodes += kg_reply.nodes
            tally.kg_edges += kg_reply.edges
        return tally

    async def _graph_already_there(self, scope: common_pb.Scope, graph: JSONObject) -> bool:
        """kg.Import merges (counts add up), so a replayed file must not be merged twice.

        A mnemex export graph is skipped when the scope already holds exactly it.
        A graph marked ``"when": "empty"`` (Roampal's, whose layout differs from what
        Export returns) is merged only into a scope whose graph is still empty.
        """
        if graph.get("when") == "empty":
            stats: kg_pb.StatsResponse = await self.rpc.unary(
                "kg", self.rpc.kg(scope.user).Stats, kg_pb.StatsRequest(scope=scope)
            )
            return any(int(v) for v in stats.counts.values())
        current: kg_pb.ExportResponse = await self.rpc.unary(
            "kg", self.rpc.kg(scope.user).Export, kg_pb.ExportRequest(scope=scope), KG_EXPORT_TIMEOUT
        )
        return bool(current.graph_json) and json.loads(current.graph_json) == graph["graph"]


async def _prepend(
    first: mem_pb.ImportRequest, rest: AsyncIterator[mem_pb.ImportRequest]
) -> AsyncIterator[mem_pb.ImportRequest]:
    yield first
    async for item in rest:
        yield item
