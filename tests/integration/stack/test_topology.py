"""A scaled-out mnemex on loopback, as separate processes.

A `chroma run` server; two embedding replicas, reached round-robin as one
``ipv4:`` address list; two memory shards (``MNEMEX_SHARD=0/2`` and ``1/2``)
storing in that one Chroma server; one kg; and two gateways that route each
user to the shard that owns them (``MNEMEX_MEMORY_SHARDS``) and map per-user
tokens to users (``MNEMEX_USER_TOKENS``).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from gateway.user_tokens import digest
from kernel.embedding_client import EmbeddingClient
from kernel.grpc_channel import channel
from kernel.json_values import JSONObject, parse_object
from kernel.sharding import shard_of
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as mem_grpc
from tests.support.json_read import json_list, json_str
from tests.support.stack import ROOT, free_port, stop_all

pytestmark = pytest.mark.slow

SERVICE_TOKEN = "topology-service-token-0123456789"


def two_users_on_two_shards() -> tuple[str, str]:
    first = "alice"
    for candidate in ("bob", "carol", "dave", "erin", "frank", "grace"):
        if shard_of(candidate, 2) != shard_of(first, 2):
            return first, candidate
    raise AssertionError("no second user on the other shard")


ALICE, BOB = two_users_on_two_shards()
TOKENS = {ALICE: "alice-token-" + "a" * 32, BOB: "bob-token-" + "b" * 32}


@dataclass
class Topology:
    root: Path
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)

    def spawn(self, name: str, command: list[str], **env: str) -> None:
        log = open(self.root / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        full_env = {**os.environ, "PYTHONUNBUFFERED": "1", "MNEMEX_TOKEN": SERVICE_TOKEN, **env}
        self.procs[name] = subprocess.Popen(command, env=full_env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)

    def log_tail(self, name: str) -> str:
        path = self.root / f"{name}.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def gateway(self, name: str) -> str:
        return f"http://127.0.0.1:{self.ports[name]}"

    def stop(self) -> None:
        stop_all(self.procs.values())


def request(url: str, path: str, body: Mapping[str, object] | None, token: str) -> tuple[int, JSONObject]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url + path,
        data=data,
        method="GET" if body is None else "POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as reply:
            return reply.status, parse_object(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, parse_object(exc.read() or b"{}")


def healthy(url: str) -> bool:
    return request(url, "/api/health", None, "")[0] == 200


def wait_until(check: Callable[[], object], what: str, topology: Topology, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, proc in topology.procs.items():
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}: {topology.log_tail(name)}")
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{what} not ready after {timeout:.0f} s")


@pytest.fixture(scope="module")
def topology(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Topology]:
    root = tmp_path_factory.mktemp("topology")
    top = Topology(root)
    names = ("chroma", "embedding0", "embedding1", "memory0", "memory1", "kg", "gatewayA", "gatewayB")
    top.ports = {name: free_port() for name in names}
    tokens_file = root / "user_tokens"
    tokens_file.write_text("".join(f"{user} {digest(token)}\n" for user, token in TOKENS.items()))
    embedding = "ipv4:" + ",".join(f"127.0.0.1:{top.ports[f'embedding{i}']}" for i in range(2))
    shards = ",".join(f"127.0.0.1:{top.ports[f'memory{i}']}" for i in range(2))
    chroma_url = f"http://127.0.0.1:{top.ports['chroma']}"
    common = {"MNEMEX_EMBEDDING_ADDR": embedding, "MNEMEX_KG_ADDR": f"127.0.0.1:{top.ports['kg']}"}
    try:
        top.spawn(
            "chroma",
            [
                str(Path(sys.executable).parent / "chroma"),
                *("run", "--path", str(root / "chroma"), "--host", "127.0.0.1", "--port", str(top.ports["chroma"])),
            ],
        )
        for i in range(2):
            top.spawn(
                f"embedding{i}",
                [sys.executable, "-m", "services.embedding"],
                MNEMEX_HOME=str(root / f"embedding{i}"),
                MNEMEX_EMBEDDING_ADDR=f"127.0.0.1:{top.ports[f'embedding{i}']}",
            )
        wait_until(
            lambda: urllib.request.urlopen(f"{chroma_url}/api/v2/heartbeat", timeout=1).status == 200, "chroma", top
        )
        for i in range(2):
            top.spawn(
                f"memory{i}",
                [sys.executable, "-m", "services.memory"],
                **common,
                MNEMEX_HOME=str(root / f"memory{i}"),
                MNEMEX_MEMORY_ADDR=f"127.0.0.1:{top.ports[f'memory{i}']}",
                MNEMEX_CHROMA_URL=chroma_url,
                MNEMEX_SHARD=f"{i}/2",
                MNEMEX_MEMORY_MAINTENANCE_INTERVAL_S="0",
            )
        top.spawn("kg", [sys.executable, "-m", "services.kg"], **common, MNEMEX_HOME=str(root / "kg"))
        for name in ("gatewayA", "gatewayB"):
            top.spawn(
                name,
                [sys.executable, "-m", "gateway"],
                **common,
                MNEMEX_HOME=str(root / name),
                MNEMEX_USER="operator",
                MNEMEX_GATEWAY_ADDR=f"127.0.0.1:{top.ports[name]}",
                MNEMEX_MEMORY_SHARDS=shards,
                MNEMEX_USER_TOKENS=str(tokens_file),
            )
        for name in ("gatewayA", "gatewayB"):
            wait_until(functools.partial(healthy, top.gateway(name)), name, top)
        yield top
    finally:
        top.stop()


def project(topology: Topology, name: str) -> str:
    path = topology.root / "projects" / name
    (path / ".git").mkdir(parents=True, exist_ok=True)
    return str(path)


def test_health_reports_both_memory_shards(topology: Topology) -> None:
    status, health = request(topology.gateway("gatewayA"), "/api/health", None, "")
    assert status == 200
    text = json.dumps(health)
    assert "memory[1]" in text and '"DOWN"' not in text


def test_a_memory_written_through_one_gateway_is_found_through_the_other(topology: Topology) -> None:
    cwd = project(topology, "payments")
    fact = "The payments service retries card captures three times with jittered backoff."
    status, added = request(
        topology.gateway("gatewayA"), "/api/memory-bank/add", {"content": fact, "cwd": cwd}, TOKENS[ALICE]
    )
    assert status == 200, added
    status, found = request(
        topology.gateway("gatewayB"),
        "/api/search",
        {"query": "how are card captures retried?", "cwd": cwd, "collections": ["memory_bank"]},
        TOKENS[ALICE],
    )
    assert status == 200, found
    assert [json_str(m, "content") for m in json_list(found, "memories")][:1] == [fact]


def test_each_user_lives_on_the_shard_that_owns_them(topology: Topology) -> None:
    for user in (ALICE, BOB):
        request(
            topology.gateway("gatewayA"),
            "/api/memory-bank/add",
            {"content": f"{user} prefers tabs over spaces", "cwd": project(topology, "style")},
            TOKENS[user],
        )
    for index in range(2):
        with grpc.insecure_channel(f"127.0.0.1:{topology.ports[f'memory{index}']}") as chan:
            stub = mem_grpc.MemoryServiceStub(chan)
            metadata = (("authorization", f"Bearer {SERVICE_TOKEN}"),)
            listed = stub.ListScopes(mem_pb.ListScopesRequest(), timeout=30, metadata=metadata)
            users = {info.scope.user for info in listed.scopes}
            assert users == {u for u in (ALICE, BOB) if shard_of(u, 2) == index}, (index, users)
            stranger = next(u for u in (ALICE, BOB) if shard_of(u, 2) != index)
            with pytest.raises(grpc.RpcError) as refused:
                stub.Search(
                    mem_pb.SearchRequest(scope=common_pb.Scope(user=stranger, project="style"), query="tabs", limit=1),
                    timeout=30,
                    metadata=metadata,
                )
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert f"shard {shard_of(stranger, 2)} of 2" in (refused.value.details() or "")


def test_one_users_token_cannot_read_or_score_anothers_memories(topology: Topology) -> None:
    cwd = project(topology, "secrets")
    gateway = topology.gateway("gatewayA")
    fact = "The staging database password rotates every Monday at 09:00."
    status, added = request(gateway, "/api/memory-bank/add", {"content": fact, "cwd": cwd}, TOKENS[ALICE])
    assert status == 200, added
    memory_id = json_str(added, "memory", "id")
    status, found = request(gateway, "/api/search", {"query": "staging database password", "cwd": cwd}, TOKENS[BOB])
    assert status == 200 and fact not in json.dumps(found)
    status, _ = request(gateway, f"/api/memories/{memory_id}?cwd={cwd}", None, TOKENS[BOB])
    assert status == 404
    _, before = request(gateway, f"/api/memories/{memory_id}?cwd={cwd}", None, TOKENS[ALICE])
    request(
        gateway,
        "/api/record-outcome",
        {"cwd": cwd, "outcome": "failed", "memory_scores": {memory_id: "failed"}},
        TOKENS[BOB],
    )
    status, after = request(gateway, f"/api/memories/{memory_id}?cwd={cwd}", None, TOKENS[ALICE])
    assert status == 200 and after == before  # bob's score reached nothing of alice's
    status, refused = request(gateway, "/api/search", {"query": "password", "cwd": cwd}, "not-a-token")
    assert status == 401 and "token" in json_str(refused, "error")


# Long enough (256 tokens) that each replica is busy encoding most of the time, so the kill
# lands on calls in flight.
LONG_TEXT = " ".join(f"why did card capture {n} fail after the retry with jitter" for n in range(32))


def embed_directly(address: str, stop: threading.Event, failures: list[str], done: list[int]) -> None:
    """Six concurrent callers through the kernel's channel (round-robin, retry policy) until ``stop``."""

    async def run() -> None:
        client = EmbeddingClient(channel(address), token=SERVICE_TOKEN, timeout=20)

        async def caller() -> None:
            while not stop.is_set():
                try:
                    await client.embed([LONG_TEXT])
                    done.append(1)
                except grpc.aio.AioRpcError as exc:
                    failures.append(f"{exc.code().name}: {exc.details()}")

        await asyncio.gather(*(caller() for _ in range(6)))

    asyncio.run(run())


def test_killing_an_embedding_replica_under_load_fails_no_request(topology: Topology) -> None:
    cwd = project(topology, "payments")
    outcomes: list[int] = []
    failures: list[str] = []
    embedded: list[int] = []
    stop = threading.Event()

    def load(gateway: str) -> None:
        number = 0
        while not stop.is_set():
            number += 1
            status, _ = request(
                topology.gateway(gateway),
                "/api/search",
                {"query": f"attempt {number}: {LONG_TEXT}", "cwd": cwd, "limit": 3},
                TOKENS[ALICE],
            )
            outcomes.append(status)

    address = "ipv4:" + ",".join(f"127.0.0.1:{topology.ports[f'embedding{i}']}" for i in range(2))
    workers = [threading.Thread(target=load, args=(g,)) for g in ("gatewayA", "gatewayB") * 2]
    workers.append(threading.Thread(target=embed_directly, args=(address, stop, failures, embedded)))
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + 60
    while (not outcomes or not embedded) and time.monotonic() < deadline:  # both kinds of load are running
        time.sleep(0.1)
    time.sleep(1.0)
    before_kill = (len(outcomes), len(embedded))
    topology.procs["embedding1"].send_signal(signal.SIGKILL)
    time.sleep(4.0)
    stop.set()
    for worker in workers:
        worker.join(60)
    assert topology.procs["embedding1"].wait(5) == -signal.SIGKILL
    assert min(before_kill) > 0 and len(outcomes) > before_kill[0] and len(embedded) > before_kill[1]
    assert failures == []  # calls in flight on the killed replica were retried on the other one
    assert [s for s in outcomes if s != 200] == []
