"""Admin endpoints the CLI needs: show, projects, versions, export and import.

    GET  /api/memories/{id}?cwd=     one memory, normalized, all metadata
    GET  /api/projects               the current user's scopes with counts, and bindings
    GET  /api/versions               package and service versions (for ``mnemex doctor``)
    POST /api/export                 JSONL stream of every memory and knowledge graph
    POST /api/import?cwd=            JSONL body (a batch of lines) into memory and kg

The export format is JSONL, one object per line::

    {"type": "header", "format": "mnemex-export", "version": 1, "mnemex": "0.1.0", "exported_at": ...}
    {"type": "memory", "record": {<the memory service's Export record: scope, collection, id, content, metadata>}}
    {"type": "kg", "scope": {"user": ..., "project": ...}, "graph": {<kg Export JSON, or Roampal's layout>},
     "when": "empty"}   # optional: merge only into a scope whose graph is still empty
    {"type": "end", "memories": N, "graphs": M}

The ``end`` line lets a reader tell a complete export from a cut one. On
import, a record or graph without a scope goes to the caller's project
(``cwd``); the user is always the gateway's own. With ``keep_user`` a record
that names another user is rejected (counted as invalid) instead of adopted.
Export covers only the gateway's user.
Vectors are not exported: the memory service re-embeds on import.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

import grpc
from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import StreamingResponse

from gateway import convert
from gateway.deps import get_operations
from gateway.errors import InvalidInput, NotFound
from gateway.operations import Operations
from gateway.rpc import call
from kernel import __version__
from kernel import projects as project_ids
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

log = logging.getLogger("mnemex.gateway.admin")
FORMAT_NAME = "mnemex-export"
FORMAT_VERSION = 1
MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_REPORTED_ERRORS = 10
router = APIRouter(prefix="/api", tags=["admin"])

# Import bodies are batches of JSONL lines; the CLI sends about 1 MB per request.
IMPORT_BODY_LIMIT = 64 * 1024 * 1024
BODY_LIMITS = {"/api/import": IMPORT_BODY_LIMIT}
EXPORT_TIMEOUT = 600.0
_CWD = Query(default=None, max_length=4096)


@dataclass
class ImportTally:
    imported: int = 0
    skipped_existing: int = 0
    invalid: int = 0
    graphs: int = 0
    graphs_skipped: int = 0
    kg_nodes: int = 0
    kg_edges: int = 0
    errors: list[str] = field(default_factory=list)

    def reject(self, number: int, why: str) -> None:
        self.invalid += 1
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append(f"line {number}: {why}")


def scope_key(scope: Any) -> tuple[str, str] | None:
    if isinstance(scope, dict) and isinstance(scope.get("user"), str):
        return scope["user"], str(scope.get("project") or "")
    return None


class ForeignUser(ValueError):
    """A record kept its user, and that user is not this gateway's."""


def _scope(given: Any, default: dict[str, str], keep_user: bool) -> dict[str, str]:
    key = scope_key(given)
    if key is None:
        return dict(default)
    if keep_user and key[0] != default["user"]:
        raise ForeignUser(
            f"belongs to user {key[0]!r}; this gateway imports only into its own user {default['user']!r} "
            "(drop keep_user to import it as yours, or import it through that user's gateway)"
        )
    return {"user": default["user"], "project": key[1]}


def _header_version(obj: dict[str, Any]) -> int:
    try:
        return int(obj.get("version", 0) or 0)
    except (TypeError, ValueError):
        return FORMAT_VERSION + 1  # unreadable: treat as a format this build does not know


def classify_line(
    raw: bytes, number: int, default: dict[str, str], *, keep_user: bool, tally: ImportTally
) -> dict[str, Any] | None:
    """One JSONL line -> ``{"type": "memory", "record"}`` / ``{"type": "kg", "scope", "graph"}`` or None.

    Header and end lines and blank lines give None; malformed lines are counted
    in ``tally`` with a reason and give None, so one bad line never stops an import.
    """
    text = raw.strip()
    if not text:
        return None
    if len(text) > MAX_LINE_BYTES:
        tally.reject(number, f"longer than {MAX_LINE_BYTES:,} bytes")
        return None
    try:
        obj = json.loads(text)
    except ValueError as exc:
        tally.reject(number, f"not JSON ({exc})")
        return None
    if not isinstance(obj, dict):
        tally.reject(number, "not a JSON object")
        return None
    kind = obj.get("type", "memory")
    if kind == "header":
        if obj.get("format") != FORMAT_NAME or _header_version(obj) > FORMAT_VERSION:
            raise InvalidInput(f"line {number}: not a {FORMAT_NAME} v{FORMAT_VERSION} file (header {obj!r:.200})")
        return None
    if kind in ("end", "error"):
        return None
    try:
        return _classify_record(obj, kind, default, keep_user)
    except (ForeignUser, _Rejected) as exc:
        tally.reject(number, str(exc))
        return None


class _Rejected(ValueError):
    pass


def _classify_record(obj: dict[str, Any], kind: Any, default: dict[str, str], keep_user: bool) -> dict[str, Any]:
    if kind == "kg":
        if not isinstance(obj.get("graph"), dict):
            raise _Rejected("kg line without a 'graph' object")
        return {
            "type": "kg",
            "scope": _scope(obj.get("scope"), default, keep_user),
            "graph": obj["graph"],
            "when": "empty" if obj.get("when") == "empty" else "always",
        }
    if kind != "memory":
        raise _Rejected(f"unknown line type {kind!r:.80}")
    record = obj.get("record", obj)
    if not isinstance(record, dict) or not isinstance(record.get("content"), str) or not record.get("collection"):
        raise _Rejected("memory record needs 'collection' and 'content'")
    record = {k: v for k, v in record.items() if k != "type"}
    record["scope"] = _scope(record.get("scope"), default, keep_user)
    return {"type": "memory", "record": record}


def _opts(ops: Operations, timeout: float | None = None) -> dict[str, Any]:
    return {"timeout": timeout or ops.backends.timeout, "metadata": ops.backends.metadata}


@router.get("/memories/{memory_id}")
async def show_memory(
    memory_id: str = Path(min_length=1, max_length=200),
    cwd: str | None = _CWD,
    ops: Operations = Depends(get_operations),
) -> dict[str, Any]:
    """Archived memories are shown too (with ``archived: true``): search hides them, show does not."""
    mem_scope, _ = ops.scopes(cwd)
    try:
        reply = await call("memory", ops.backends.memory.Get(
            mem_pb.GetRequest(scope=mem_scope, id=memory_id), **_opts(ops)
        ))
    except NotFound:  # a malformed id keeps the memory service's 422 and its reason
        raise NotFound(
            f"no memory with id {memory_id!r} in this project or your memory_bank: "
            "copy an id from an [id:...] tag or from `mnemex search`"
        ) from None
    return convert.memory_to_dict(reply.memory)


@router.get("/projects")
async def list_projects(cwd: str | None = _CWD, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    reply = await call("memory", ops.backends.memory.ListScopes(mem_pb.ListScopesRequest(), **_opts(ops)))
    user = ops.settings.user
    scopes = [
        {"user": info.scope.user, "project": info.scope.project, "counts": dict(info.counts)}
        for info in reply.scopes
        if info.scope.user == user
    ]
    return {
        "user": user,
        "current": project_ids.resolve(cwd, ops.settings.home) if cwd else None,
        "projects": scopes,
        "bindings": project_ids.load_bindings(ops.settings.home),
    }


@router.get("/versions")
async def versions(ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    """The gateway's package version and what each backend reports about itself.

    A backend that cannot answer gets ``{"error": "<gRPC code>"}``; UNIMPLEMENTED
    means it runs an older mnemex, from before its Info RPC.
    """
    metadata = ops.backends.metadata

    async def embedding() -> dict[str, Any]:
        info = await ops.backends.embedding.info(timeout=2.0)
        return {
            "version": info.version,
            "model_id": info.model_id,
            "dimension": info.dimension,
            "device": info.device,
            "backend": info.backend,
            "precision": info.precision,
        }

    async def memory() -> dict[str, Any]:
        info = await ops.backends.memory.Info(mem_pb.InfoRequest(), timeout=2.0, metadata=metadata)
        return {"version": info.version, "service": info.service}

    async def kg() -> dict[str, Any]:
        info = await ops.backends.kg.Info(kg_pb.InfoRequest(), timeout=2.0, metadata=metadata)
        return {"version": info.version, "service": info.service}

    async def ask(name: str, probe: Callable[[], Awaitable[dict[str, Any]]]) -> tuple[str, dict[str, Any]]:
        try:
            return name, await probe()
        except grpc.aio.AioRpcError as exc:
            return name, {"error": exc.code().name}

    out: dict[str, Any] = {"gateway": {"version": __version__}}
    out.update(await asyncio.gather(ask("embedding", embedding), ask("memory", memory), ask("kg", kg)))
    out.update(await ops.health())
    return out


async def _export_lines(ops: Operations) -> AsyncIterator[bytes]:
    memories = graphs = 0
    scopes: set[tuple[str, str]] = set()
    yield _line(
        {
            "type": "header",
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "mnemex": __version__,
            "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
    )
    try:
        user = ops.settings.user
        listed = await ops.backends.memory.ListScopes(mem_pb.ListScopesRequest(), **_opts(ops))
        scopes |= {(i.scope.user, i.scope.project) for i in listed.scopes if i.scope.user == user}
        # Only this gateway's user: another user's memories are not ours to hand out.
        stream = ops.backends.memory.Export(
            mem_pb.ExportRequest(scope=common_pb.Scope(user=user)), **_opts(ops, EXPORT_TIMEOUT)
        )
        async for item in stream:
            record = json.loads(item.record_json)
            # Vectors stay behind: the file is model-independent and import re-embeds the content.
            record.pop("embedding", None)
            record.pop("dim", None)
            key = scope_key(record.get("scope"))
            if key is None or key[0] != user:
                continue
            scopes.add(key)
            memories += 1
            yield _line({"type": "memory", "record": record})
        for owner, project in sorted(scopes):
            if not project:  # the user-wide memory_bank scope has no graph of its own
                continue
            try:
                reply = await ops.backends.kg.Export(
                    kg_pb.ExportRequest(scope=common_pb.Scope(user=owner, project=project)), **_opts(ops, 60.0)
                )
            except grpc.aio.AioRpcError as exc:
                log.warning("kg export of %s/%s failed: %s", owner, project, exc.code().name)
                continue
            graph = json.loads(reply.graph_json or "{}")
            if graph:
                graphs += 1
                yield _line({"type": "kg", "scope": {"user": owner, "project": project}, "graph": graph})
    except grpc.aio.AioRpcError as exc:
        yield _line({"type": "error", "error": f"export stopped: {exc.code().name}: {exc.details()}"})
        return
    yield _line({"type": "end", "memories": memories, "graphs": graphs})


def _line(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


@router.post("/export")
async def export(ops: Operations = Depends(get_operations)) -> StreamingResponse:
    """Every memory of this gateway's user (all projects and the memory_bank), then each project's graph."""
    await call("memory", ops.backends.memory.ListScopes(mem_pb.ListScopesRequest(), **_opts(ops)))  # fail fast
    return StreamingResponse(_export_lines(ops), media_type="application/x-ndjson")


async def _body_lines(request: Request) -> AsyncIterator[bytes]:
    buffer = b""
    async for chunk in request.stream():
        buffer += chunk
        if len(buffer) > MAX_LINE_BYTES and b"\n" not in buffer:
            raise InvalidInput(f"a JSONL line is longer than {MAX_LINE_BYTES:,} bytes; split the record")
        *complete, buffer = buffer.split(b"\n")
        for line in complete:
            yield line
    if buffer:
        yield buffer


async def _graph_already_there(ops: Operations, scope: common_pb.Scope, graph: dict[str, Any]) -> bool:
    """kg.Import merges (counts add up), so a replayed file must not be merged twice.

    A mnemex export graph is skipped when the scope already holds exactly it.
    A graph marked ``"when": "empty"`` (Roampal's, whose layout differs from what
    Export returns) is merged only into a scope whose graph is still empty.
    """
    if graph.get("when") == "empty":
        stats = await call("kg", ops.backends.kg.Stats(kg_pb.StatsRequest(scope=scope), **_opts(ops)))
        return any(int(v) for v in stats.counts.values())
    current = await call("kg", ops.backends.kg.Export(kg_pb.ExportRequest(scope=scope), **_opts(ops, 60.0)))
    return bool(current.graph_json) and json.loads(current.graph_json) == graph["graph"]


@router.post("/import")
async def import_lines(
    request: Request,
    cwd: str | None = _CWD,
    keep_user: bool = Query(default=False, description="refuse records that name another user instead of adopting them as yours"),
    ops: Operations = Depends(get_operations),
) -> dict[str, Any]:
    """Import a batch of JSONL lines. Ids already present are skipped, so re-running duplicates nothing."""
    mem_scope, _ = ops.scopes(cwd)
    default = {"user": mem_scope.user, "project": mem_scope.project}
    tally = ImportTally()
    graphs: list[dict[str, Any]] = []
    stopped: list[InvalidInput] = []

    async def memory_requests() -> AsyncIterator[mem_pb.ImportRequest]:
        # An exception raised in here would cancel the gRPC call (and surface as a 500):
        # remember it, end the stream cleanly, and report it once the call is done.
        number = 0
        try:
            async for raw in _body_lines(request):
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

    reply = await call("memory", ops.backends.memory.Import(memory_requests(), **_opts(ops, EXPORT_TIMEOUT)))
    if stopped:
        done = f" ({reply.imported} records before it were imported)" if reply.imported else ""
        raise InvalidInput(f"{stopped[0]}{done}")
    tally.imported += reply.imported
    tally.skipped_existing += reply.skipped_existing
    tally.invalid += reply.invalid
    for graph in graphs:
        scope = common_pb.Scope(user=graph["scope"]["user"], project=graph["scope"]["project"])
        if await _graph_already_there(ops, scope, graph):
            tally.graphs_skipped += 1
            continue
        request_pb = kg_pb.ImportRequest(scope=scope, graph_json=json.dumps(graph["graph"], ensure_ascii=False))
        kg_reply = await call("kg", ops.backends.kg.Import(request_pb, **_opts(ops, 120.0)))
        tally.graphs += 1
        tally.kg_nodes += kg_reply.nodes
        tally.kg_edges += kg_reply.edges
    return asdict(tally)


__all__ = ["BODY_LIMITS", "FORMAT_NAME", "FORMAT_VERSION", "classify_line", "router"]
