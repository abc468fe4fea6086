"""Access: loopback by default, a token required beyond it, and enforced when set.

- Every default address is loopback, and the running processes listen only there.
- Each of the four refuses to bind 0.0.0.0 / :: without MNEMEX_TOKEN, saying why.
- With a token: HTTP without (or with a wrong) bearer gets 401 on every route
  but the health probe, gRPC without metadata gets UNAUTHENTICATED on every
  service; with the token both succeed, end to end through the hooks and MCP.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
from google.protobuf.message import Message

from kernel.config import DEFAULT_PORTS, Settings, is_loopback, split_host_port
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.embedding.v1 import embedding_service_pb2 as emb_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb
from services.embedding.model import Encoder
from tests.reliability import inproc
from tests.support.hookrun import claude_session_start, hook_env, run_hook
from tests.support.loop_thread import LoopThread
from tests.support.procstack import listening_addresses
from tests.support.stack import SERVICE_MODULES, Stack, free_port

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "rel-" + "k3y" * 12


def test_every_default_address_is_loopback() -> None:
    settings = Settings.from_env({"MNEMEX_HOME": "/tmp/x", "MNEMEX_USER": "u"})
    for name in ("gateway", "embedding", "memory", "kg"):
        host, _ = split_host_port(settings.addr_of(name), name)
        assert is_loopback(host) and host == "127.0.0.1", (name, settings.addr_of(name))
    from services.embedding.settings import EmbeddingSettings
    from services.kg.settings import KgSettings
    from services.memory.settings import MemorySettings

    env = {"MNEMEX_HOME": "/tmp/x", "MNEMEX_USER": "u"}
    for addr in (
        EmbeddingSettings.from_env(env).address,
        MemorySettings.from_env(env).address,
        KgSettings.from_env(env).address,
    ):
        assert split_host_port(addr, "addr")[0] == "127.0.0.1", addr
    assert set(DEFAULT_PORTS) == {"embedding", "memory", "kg"}
    hook_source = (ROOT / "hooks" / "hook_client.py").read_text()
    assert 'DEFAULT_URL = "http://127.0.0.1:' in hook_source


def test_running_processes_listen_on_loopback_only(procs: Stack) -> None:
    for name, proc in procs.procs.items():
        listening = listening_addresses(proc.pid)
        assert listening, f"{name} (pid {proc.pid}) listens nowhere?"
        outside = [(ip, port) for ip, port in listening if not _loopback(ip)]
        assert not outside, f"{name} listens beyond loopback: {outside}"


def _loopback(ip: str) -> bool:
    import ipaddress

    address = ipaddress.ip_address(ip)
    mapped = getattr(address, "ipv4_mapped", None)
    return bool((mapped or address).is_loopback)


# -- refusing to bind beyond loopback without a token -----------------------------
@dataclass(frozen=True)
class Refusal:
    """How one service started with a non-loopback address and no token ended."""

    code: int | None
    output: str  # stdout and stderr
    seconds: float
    home_touched: bool


@pytest.fixture(scope="module")
def refusals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Refusal]:
    """Start all four with 0.0.0.0 addresses and no token, concurrently (the model load dominates)."""
    home = tmp_path_factory.mktemp("refuse-home")
    env = {k: v for k, v in os.environ.items() if k != "MNEMEX_TOKEN"}
    env.update(
        MNEMEX_HOME=str(home / "data"),
        MNEMEX_USER="tester",
        PYTHONUNBUFFERED="1",
        MNEMEX_GATEWAY_ADDR=f"0.0.0.0:{free_port()}",
        MNEMEX_EMBEDDING_ADDR=f"0.0.0.0:{free_port()}",
        MNEMEX_MEMORY_ADDR=f"[::]:{free_port()}",
        MNEMEX_KG_ADDR=f"0.0.0.0:{free_port()}",
    )
    started = time.monotonic()
    running = {
        name: subprocess.Popen(
            [sys.executable, "-m", module], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for name, module in SERVICE_MODULES.items()
    }
    results: dict[str, Refusal] = {}
    for name, proc in running.items():
        try:
            out, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        results[name] = Refusal(
            code=proc.returncode,
            output=out + err,
            seconds=time.monotonic() - started,
            home_touched=(home / "data").exists() and any((home / "data").iterdir()),
        )
    return results


@pytest.mark.parametrize("name", list(SERVICE_MODULES))
def test_binding_beyond_loopback_without_a_token_is_refused_with_the_reason(
    name: str, refusals: dict[str, Refusal]
) -> None:
    result = refusals[name]
    assert result.code not in (0, None), result
    assert "MNEMEX_TOKEN" in result.output and "refusing" in result.output, result.output[-800:]


@pytest.mark.parametrize(
    "name",
    [
        "gateway",
        "kg",
        "memory",
        "embedding",
    ],
)
def test_refusal_is_one_clear_line_before_any_work(name: str, refusals: dict[str, Refusal]) -> None:
    result = refusals[name]
    assert "Traceback" not in result.output, result.output[-800:]
    assert result.code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) <= 3, lines


# -- token enforcement ----------------------------------------------------------
@dataclass(frozen=True)
class TokenStack:
    home: Path
    url: str  # the gateway
    embedding: str  # each backend's address
    memory: str
    kg: str

    def address(self, service: str) -> str:
        return {"embedding": self.embedding, "memory": self.memory, "kg": self.kg}[service]


@pytest.fixture(scope="module")
def token_stack(
    loop_thread: LoopThread, encoder: Encoder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TokenStack]:
    """embedding, memory, kg and a gateway, all requiring TOKEN, in-process on loopback."""
    from services.embedding.embedding_servicer import create_server as create_embedding
    from services.embedding.settings import EmbeddingSettings
    from services.kg.kg_servicer import create_server as create_kg
    from services.kg.settings import KgSettings
    from services.memory.composition import create_server as create_memory
    from services.memory.settings import MemorySettings

    home = tmp_path_factory.mktemp("token-home")
    emb = loop_thread.run(
        create_embedding(
            EmbeddingSettings(address="127.0.0.1:0", model_path=None, device="cpu", backend="auto", token=TOKEN),
            encoder=encoder,
        )
    )
    embedding = f"127.0.0.1:{emb.port}"
    mem_server = loop_thread.run(
        create_memory(
            MemorySettings(
                address="127.0.0.1:0",
                home=home,
                default_user="tester",
                embedding_addr=embedding,
                token=TOKEN,
                maintenance_interval_s=0,
            )
        )
    )
    mem_port = mem_server.port
    kg = loop_thread.run(create_kg(KgSettings(address="127.0.0.1:0", home=home, token=TOKEN)))
    settings = inproc.settings_for(home, "tester", embedding, f"127.0.0.1:{mem_port}", f"127.0.0.1:{kg.port}", TOKEN)
    stop_gateway, url = loop_thread.run(inproc.serve_gateway(settings))
    yield TokenStack(home, url, embedding, f"127.0.0.1:{mem_port}", f"127.0.0.1:{kg.port}")
    loop_thread.run(stop_gateway())
    loop_thread.run(kg.stop(0))
    loop_thread.run(mem_server.stop(0))
    loop_thread.run(emb.stop(0))


PROTECTED_ROUTES = [
    ("POST", "/api/hooks/get-context", {"prompt": "hi", "session_id": "s"}),
    ("POST", "/api/hooks/stop", {"assistant_text": "done", "session_id": "s"}),
    ("POST", "/api/hooks/session-start", {"session_id": "s"}),
    ("POST", "/api/hooks/pre-compact", {"session_id": "s"}),
    ("POST", "/api/hooks/turn-start", {"prompt": "hi", "session_id": "s"}),
    ("POST", "/api/hooks/post-tool-use", {"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    ("POST", "/api/record-outcome", {"outcome": "worked"}),
    ("POST", "/api/search", {"query": "x"}),
    ("POST", "/api/memory-bank/add", {"content": "x"}),
    ("POST", "/api/memory-bank/update", {"id": "memory_bank_" + "0" * 32, "content": "y"}),
    ("POST", "/api/memory-bank/archive", {"id": "memory_bank_" + "0" * 32}),
    ("POST", "/api/ingest", {"title": "t", "text": "x"}),
    (
        "POST",
        "/api/backfill",
        {"exchanges": [{"source_id": "s", "client": "claude", "started_at": "2025-01-01T00:00:00Z"}]},
    ),
    ("GET", "/api/books", None),
    ("POST", "/api/books/remove", {"title": "t"}),
    ("GET", "/api/stats", None),
    ("GET", "/api/kg", None),
    ("GET", "/api/problems", None),
    ("POST", "/api/problems/merge", {"keep": "p1", "merge": "p2"}),
    ("POST", "/api/problems/unmerge", {"merge_id": "m1"}),
    ("GET", "/api/projects", None),
    ("GET", "/api/versions", None),
    ("GET", "/api/memories/memory_bank_" + "0" * 32, None),
    ("POST", "/api/export", None),
    ("POST", "/api/import", None),
    ("GET", "/openapi.json", None),
    ("GET", "/docs", None),
    ("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
]


def _send(client: httpx.Client, method: str, path: str, body: object, headers: dict[str, str]) -> httpx.Response:
    if method == "GET":
        return client.get(path, headers=headers)
    return client.post(path, json=body, headers={"Accept": "application/json, text/event-stream", **headers})


@pytest.mark.parametrize(("method", "path", "body"), PROTECTED_ROUTES, ids=[f"{m} {p}" for m, p, _ in PROTECTED_ROUTES])
def test_http_without_the_right_token_is_rejected(
    method: str, path: str, body: object, token_stack: TokenStack
) -> None:
    with httpx.Client(base_url=token_stack.url, timeout=30) as client:
        for headers in (
            {},
            {"Authorization": "Bearer wrong"},
            {"Authorization": f"Basic {TOKEN}"},
            {"Authorization": f"Bearer {TOKEN}x"},
            {"X-Mnemex-Token": TOKEN},
        ):
            reply = _send(client, method, path, body, headers)
            assert reply.status_code == 401, (headers, reply.status_code, reply.text[:200])
            assert "MNEMEX_TOKEN" in reply.text


def test_http_routes_list_matches_the_app(token_stack: TokenStack) -> None:
    """The table above covers every route the gateway serves (so new routes get an auth check)."""
    from gateway.app import create_app

    app = create_app(inproc.settings_for(Path("/tmp/unused"), "u", "127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"))
    served = {getattr(route, "path", "") for route in app.routes} - {"", "/docs/oauth2-redirect", "/redoc"}
    listed = {
        path if not path.startswith("/api/memories/") else "/api/memories/{memory_id}"
        for _, path, _ in PROTECTED_ROUTES
    }
    listed |= {path.replace(UI_MEMORY, "{memory_id}") for _, path in UI_ROUTES}
    # Open: the health probe, the viewer's sign-in form, its vendored scripts and styles (no user data).
    assert served - listed <= {"/api/health", "/ui/login", "/ui/static"}, served - listed


UI_MEMORY = "memory_bank_" + "0" * 15
UI_ROUTES = [
    ("GET", "/ui"),
    ("GET", "/ui/memories"),
    ("GET", f"/ui/memories/{UI_MEMORY}"),
    ("POST", f"/ui/memories/{UI_MEMORY}/edit"),
    ("POST", f"/ui/memories/{UI_MEMORY}/archive"),
    ("POST", f"/ui/memories/{UI_MEMORY}/restore"),
    ("GET", "/ui/sessions"),
    ("GET", "/ui/session?id=s"),
    ("GET", "/ui/graph"),
    ("GET", "/ui/books"),
    ("POST", "/ui/books/upload"),
    ("POST", "/ui/books/remove"),
    ("POST", "/ui/logout"),
]


@pytest.mark.parametrize(("method", "path"), UI_ROUTES, ids=[f"{m} {p}" for m, p in UI_ROUTES])
def test_the_viewer_without_the_token_sends_a_browser_to_sign_in(
    method: str, path: str, token_stack: TokenStack
) -> None:
    with httpx.Client(base_url=token_stack.url, timeout=30) as client:
        for cookies in ({}, {"mnemex_ui": "forged"}, {"mnemex_ui": TOKEN}):
            client.cookies.clear()
            client.cookies.update(cookies)
            reply = client.request(method, path, headers={"Authorization": "Bearer wrong"} if not cookies else {})
            if method == "GET":
                assert reply.status_code == 303 and reply.headers["location"].startswith("/ui/login?next="), reply.text
            else:
                assert reply.status_code in (401, 403), (reply.status_code, reply.text[:200])


def test_the_viewer_signs_in_with_the_token_in_a_cookie_and_checks_csrf(token_stack: TokenStack) -> None:
    with httpx.Client(base_url=token_stack.url, timeout=30) as client:
        form = client.get("/ui/login", params={"next": "/ui/books"})
        assert form.status_code == 200 and TOKEN not in form.text
        csrf = client.cookies["mnemex_csrf"]
        assert 'name="csrf" value="' + csrf + '"' in form.text
        wrong = client.post("/ui/login", data={"token": TOKEN + "x", "csrf": csrf, "next": "/ui/books"})
        assert wrong.status_code == 401 and "mnemex_ui" not in client.cookies
        no_csrf = client.post("/ui/login", data={"token": TOKEN, "csrf": "", "next": "/ui/books"})
        assert no_csrf.status_code == 403
        offsite = client.post("/ui/login", data={"token": TOKEN, "csrf": csrf, "next": "https://evil.example/x"})
        assert offsite.status_code == 303 and offsite.headers["location"] == "/ui"
        cookie = offsite.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/ui" in cookie and TOKEN not in cookie
        assert client.get("/ui/books").status_code == 200
        assert client.get("/api/books").status_code == 401  # the cookie opens the viewer, not the API
        archive = f"/ui/memories/{UI_MEMORY}/archive"
        assert client.post(archive).status_code == 403  # no CSRF header
        assert client.post(archive, headers={"X-CSRF-Token": "x" * 43}).status_code == 403
        foreign = client.post(archive, headers={"X-CSRF-Token": csrf, "Origin": "http://evil.example"})
        assert foreign.status_code == 403
        missing = client.post(archive, headers={"X-CSRF-Token": csrf})
        assert missing.status_code == 404  # past every guard: the memory does not exist
        assert client.post("/ui/logout", data={"csrf": csrf}).status_code == 303
        assert client.get("/ui/books").status_code == 303


def test_http_with_the_token_succeeds_and_health_stays_open(token_stack: TokenStack) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=token_stack.url, timeout=60) as client:
        assert client.get("/api/health").status_code == 200
        added = client.post(
            "/api/memory-bank/add",
            headers=auth,
            json={"content": "The release checklist lives in docs/RELEASING.md", "cwd": "/srv/app"},
        )
        assert added.status_code == 200, added.text
        fact = added.json()["memory"]["id"]
        context = client.post(
            "/api/hooks/get-context",
            headers=auth,
            json={"prompt": "where is the release checklist?", "session_id": "tok", "cwd": "/srv/app"},
        )
        assert context.status_code == 200 and f"[id:{fact}]" in context.json()["context"]
        assert context.json()["degraded"] == []


def test_hooks_send_the_token(token_stack: TokenStack, tmp_path: Path) -> None:
    port = int(token_stack.url.rsplit(":", 1)[1])
    payload = claude_session_start("tok-hook", "/srv/app", source="compact")  # its output reaches the model
    with_token = run_hook("session_start", payload, hook_env(tmp_path / "a", port, token=TOKEN))
    without = run_hook("session_start", payload, hook_env(tmp_path / "b", port))
    assert with_token.returncode == 0 and "compacted" in with_token.stdout
    assert without.returncode == 0 and without.stdout == ""


GRPC_PROBES: dict[str, tuple[str, Message, type[Message]]] = {
    "embedding": ("/mnemex.embedding.v1.EmbeddingService/Info", emb_pb.InfoRequest(), emb_pb.InfoResponse),
    "memory": ("/mnemex.memory.v1.MemoryService/ListScopes", mem_pb.ListScopesRequest(), mem_pb.ListScopesResponse),
    "kg": (
        "/mnemex.kg.v1.KnowledgeGraphService/Stats",
        kg_pb.StatsRequest(scope=common_pb.Scope(user="tester", project="p")),
        kg_pb.StatsResponse,
    ),
}


@pytest.mark.parametrize("service", list(GRPC_PROBES))
def test_grpc_requires_the_token_but_health_stays_open(service: str, token_stack: TokenStack) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    path, request, reply_class = GRPC_PROBES[service]
    with grpc.insecure_channel(token_stack.address(service)) as channel:
        rpc: grpc.UnaryUnaryMultiCallable[Message, Message] = channel.unary_unary(
            path, request_serializer=lambda m: m.SerializeToString(), response_deserializer=reply_class.FromString
        )
        for metadata in (
            (),
            (("authorization", "Bearer wrong"),),
            (("authorization", TOKEN),),
            (("x-token", f"Bearer {TOKEN}"),),
        ):
            with pytest.raises(grpc.RpcError) as denied:
                rpc(request, metadata=metadata, timeout=30)
            assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED, metadata
            assert "MNEMEX_TOKEN" in (denied.value.details() or "")
        assert isinstance(rpc(request, metadata=(("authorization", f"Bearer {TOKEN}"),), timeout=30), reply_class)
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert health.status == health_pb2.HealthCheckResponse.SERVING


def test_a_user_token_signs_the_viewer_in_as_that_user_only(
    token_stack: TokenStack, loop_thread: LoopThread, tmp_path: Path
) -> None:
    """A per-user token signs the viewer in as that user: it sees her memories; the shared token sees its own."""
    import dataclasses

    from gateway.user_tokens import add_token

    tokens = tmp_path / "tokens"
    alice = add_token(tokens, "alice")
    settings = inproc.settings_for(
        token_stack.home, "tester", token_stack.embedding, token_stack.memory, token_stack.kg, TOKEN
    )
    settings = dataclasses.replace(settings, user_tokens_file=tokens)
    stop, url = loop_thread.run(inproc.serve_gateway(settings))
    try:
        auth = {"Authorization": f"Bearer {alice}"}
        with httpx.Client(base_url=url, timeout=60) as client:
            added = client.post(
                "/api/memory-bank/add", headers=auth, json={"content": "Alice keeps her notes in Obsidian"}
            )
            assert added.status_code == 200, added.text
            assert client.get("/ui/memories").status_code == 303  # not signed in
            form = client.get("/ui/login")
            csrf = client.cookies["mnemex_csrf"]
            assert form.status_code == 200
            signed = client.post("/ui/login", data={"token": alice, "csrf": csrf, "next": "/ui/memories"})
            assert signed.status_code == 303 and alice not in signed.headers["set-cookie"]
            page = client.get("/ui/memories", params={"collection": "memory_bank"})
            assert page.status_code == 200 and "Alice keeps her notes in Obsidian" in page.text
        with httpx.Client(base_url=url, timeout=60) as operator:
            operator.get("/ui/login")
            csrf = operator.cookies["mnemex_csrf"]
            operator.post("/ui/login", data={"token": TOKEN, "csrf": csrf})
            page = operator.get("/ui/memories", params={"collection": "memory_bank"})
            assert page.status_code == 200 and "Obsidian" not in page.text  # the shared token acts as tester
    finally:
        loop_thread.run(stop())
