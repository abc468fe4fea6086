"""Every call to a backend goes through ``Rpc`` (``gateway/rpc.py``), checked over the source with ``ast``.

Outside ``gateway/rpc.py``, no module of the gateway or the ``mnemex`` shell:
- calls a method of a backend's gRPC stub (``rpc.kg(user).Recall(request, ...)``), or refers to
  one for any other use than handing it to a call method of ``Rpc`` (``rpc.unary("memory",
  rpc.memory(user).Search, request)``; a ``functools.partial`` of it is a call made elsewhere);
- builds a backend's stub (``MemoryServiceStub(channel)``);
- passes gRPC call metadata (``metadata=`` beside ``timeout=``, ``wait_for_ready=``...), reads
  ``Rpc``'s ``metadata``, or makes some with ``client_metadata``.

So the auth metadata, the deadlines and the error translation are ``Rpc``'s alone. The stub
methods are the RPCs of the three services' protos, read from their descriptors; the call
methods of ``Rpc`` are those with a ``MultiCallable`` parameter. The checker takes source
text, so the ``*_reports_*`` tests at the end feed it small modules made to break each rule:
a checker that cannot fail fails there.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from gateway.rpc import Rpc
from protos.mnemex.embedding.v1 import embedding_service_pb2 as embedding_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("gateway", "mnemex")
RPC_MODULE = "gateway/rpc.py"
SERVICES = [
    service for module in (mem_pb, kg_pb, embedding_pb) for service in module.DESCRIPTOR.services_by_name.values()
]
STUB_METHODS = frozenset(method.name for service in SERVICES for method in service.methods)
STUB_CLASSES = frozenset(f"{service.name}{suffix}" for service in SERVICES for suffix in ("Stub", "AsyncStub"))
CALL_OPTIONS = frozenset({"timeout", "wait_for_ready", "credentials", "compression"})  # a gRPC call's keywords
RPC_HOLDERS = frozenset({"rpc", "_rpc"})


def rpc_call_methods() -> frozenset[str]:
    """The methods of ``Rpc`` that take a stub method (a parameter annotated ``...MultiCallable...``)."""
    found = set()
    for name, member in inspect.getmembers(Rpc, inspect.isfunction):
        parameters = inspect.signature(member).parameters.values()
        if any("MultiCallable" in str(p.annotation) for p in parameters):
            found.add(name)
    return frozenset(found)


RPC_CALLS = rpc_call_methods()


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _is_rpc(node: ast.expr) -> bool:
    """``rpc`` or ``self.rpc`` / ``x._rpc``: what holds an ``Rpc`` by this codebase's names."""
    return (isinstance(node, ast.Name) and node.id in RPC_HOLDERS) or (
        isinstance(node, ast.Attribute) and node.attr in RPC_HOLDERS
    )


def _auth_metadata(node: ast.expr) -> bool:
    """The value reads Rpc's metadata or makes call metadata."""
    for part in ast.walk(node):
        if isinstance(part, ast.Attribute) and part.attr == "metadata" and _is_rpc(part.value):
            return True
        if isinstance(part, ast.Call) and _callee(part) == "client_metadata":
            return True
    return False


def stub_violations(source: str) -> list[str]:
    """``line N: ...`` for every backend call in ``source`` that does not go through ``Rpc``."""
    tree = ast.parse(source)
    handed: set[int] = set()  # stub methods given to a call method of Rpc
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RPC_CALLS:
            handed |= {id(arg) for arg in [*node.args, *(k.value for k in node.keywords)]}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in STUB_METHODS and id(node) not in handed:
            found.append(f"line {node.lineno}: stub method {node.attr} used outside Rpc")
        elif isinstance(node, ast.Attribute) and node.attr == "metadata" and _is_rpc(node.value):
            found.append(f"line {node.lineno}: reads Rpc's auth metadata")
        elif isinstance(node, ast.Call):
            if _callee(node) in STUB_CLASSES:
                found.append(f"line {node.lineno}: builds {_callee(node)} outside Rpc")
            if _callee(node) == "client_metadata":
                found.append(f"line {node.lineno}: makes call metadata outside Rpc")
            keywords = {k.arg: k.value for k in node.keywords if k.arg}
            metadata = keywords.get("metadata")
            if metadata is not None and (CALL_OPTIONS & set(keywords) or _auth_metadata(metadata)):
                found.append(f"line {node.lineno}: passes gRPC metadata= outside Rpc")
    return sorted(set(found), key=lambda line: int(line.split(":")[0].split()[1]))


def checked_sources() -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for folder in CHECKED
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.relative_to(ROOT).as_posix() != RPC_MODULE
    }


def test_every_backend_call_goes_through_rpc() -> None:
    found = {name: v for name, text in checked_sources().items() if (v := stub_violations(text))}
    assert found == {}


def test_the_checker_knows_the_stubs_and_rpcs_call_methods() -> None:
    # Guards against a checker that sees nothing: a renamed proto package or Rpc method would empty these.
    assert {"Search", "PrepareContext", "Recall", "EpisodeLessons", "RecordTurn", "Embed"} <= STUB_METHODS
    assert {"MemoryServiceStub", "KnowledgeGraphServiceStub", "EmbeddingServiceStub"} <= STUB_CLASSES
    assert {"unary", "call", "stream", "send_stream", "fan_out"} <= RPC_CALLS
    assert (ROOT / RPC_MODULE).exists()


def test_the_prompt_path_modules_speak_no_grpc() -> None:
    """They reach the backends through the protocols of gateway/backends.py, so unit tests run them on fakes."""
    for name in ("prompt_context", "lessons", "teaching", "problem_vector", "backends"):
        tree = ast.parse((ROOT / "gateway" / f"{name}.py").read_text(encoding="utf-8"))
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not {m for m in imported if m == "grpc" or m.startswith(("grpc.", "gateway.rpc"))}, name


# -- the checker itself can fail -------------------------------------------------------------
ALLOWED = """
async def search(rpc, scope, request):
    reply = await rpc.unary("memory", rpc.memory(scope.user).Search, request)
    stub = rpc.kg(scope.user)
    await rpc.call(stub.Recall, request, 0.3, reconnect=True)
    store(memory_id, metadata={"kind": "exchange"})  # a memory's metadata, not a call's
    return reply
"""


def test_the_checker_passes_calls_through_rpc() -> None:
    assert stub_violations(ALLOWED) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "async def f(rpc, request):\n    return await rpc.kg('u').Recall(request, timeout=1.0)\n",
            ["line 2: stub method Recall used outside Rpc"],
        ),
        (
            "async def f(rpc, request):\n"
            "    md = rpc.metadata\n"
            "    return await rpc.memory('u').Get(request, timeout=1.0, metadata=md)\n",
            [
                "line 2: reads Rpc's auth metadata",
                "line 3: passes gRPC metadata= outside Rpc",
                "line 3: stub method Get used outside Rpc",
            ],
        ),
        (
            "import functools\n"
            "def f(self, request):\n"
            "    return functools.partial(self.rpc.kg('u').Recall, request, metadata=self.rpc.metadata)\n",
            [
                "line 3: passes gRPC metadata= outside Rpc",
                "line 3: reads Rpc's auth metadata",
                "line 3: stub method Recall used outside Rpc",
            ],
        ),
        (
            "def f(channel):\n    return MemoryServiceStub(channel)\n",
            ["line 2: builds MemoryServiceStub outside Rpc"],
        ),
        (
            "async def f(call, request, token):\n"
            "    return await call(request, timeout=1.0, metadata=client_metadata(token))\n",
            ["line 2: makes call metadata outside Rpc", "line 2: passes gRPC metadata= outside Rpc"],
        ),
    ],
    ids=["stub-call", "metadata-keyword", "partial-of-a-stub", "stub-built", "own-metadata"],
)
def test_the_checker_reports_a_raw_stub_use(source: str, expected: list[str]) -> None:
    assert sorted(stub_violations(source)) == sorted(expected)
