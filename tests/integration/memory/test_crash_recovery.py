"""kill -9 the memory service while writes stream in: no acknowledged write is lost or duplicated."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import grpc
import numpy as np
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.memory.domain.arrays import Vector
from tests.support.grpc_token import home_channel

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
WRITERS = 4
KILL_AFTER_ACKS = 120


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(home: Path, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "MNEMEX_HOME": str(home),
        "MNEMEX_MEMORY_ADDR": f"127.0.0.1:{port}",
        "MNEMEX_MEMORY_MAINTENANCE_INTERVAL_S": "0",
        "MNEMEX_EMBEDDING_ADDR": "127.0.0.1:9",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "services.memory"], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
        health = health_pb2_grpc.HealthStub(chan)
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                assert proc.stderr is not None  # started with stderr=PIPE
                raise AssertionError(f"memory service exited: {proc.stderr.read().decode()[-2000:]}")
            try:
                if health.Check(health_pb2.HealthCheckRequest(service=""), timeout=1).status == 1:
                    return proc
            except grpc.RpcError:
                time.sleep(0.1)
    proc.kill()
    raise AssertionError("memory service did not become healthy within 60 s")


def unit_vector(rng: np.random.Generator) -> bytes:
    v = rng.standard_normal(384).astype("<f4")
    scaled: Vector = v / np.linalg.norm(v)
    return scaled.astype("<f4").tobytes()


def test_kill_9_mid_stream_loses_and_duplicates_no_acknowledged_write(tmp_path: Path) -> None:
    home, port = tmp_path / "home", free_port()
    scope = common_pb.Scope(user="crash", project="test")
    proc = start(home, port)
    acked: dict[str, str] = {}  # content -> id
    lock = threading.Lock()
    stop = threading.Event()

    def writer(n: int) -> None:
        rng = np.random.default_rng(n)
        with home_channel(f"127.0.0.1:{port}", home) as chan:
            client = pb_grpc.MemoryServiceStub(chan)
            while not stop.is_set():
                content = f"crash note {n} {uuid.uuid4().hex}"
                try:
                    reply = client.Store(
                        pb.StoreRequest(scope=scope, collection="working", content=content, vector=unit_vector(rng)),
                        timeout=10,
                    )
                except grpc.RpcError:
                    return  # the server died under us: this write was never acknowledged
                with lock:
                    acked[content] = reply.memory.id

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    try:
        for t in threads:
            t.start()
        while len(acked) < KILL_AFTER_ACKS:
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)  # mid-stream: writers are still sending
        proc.wait(10)
        stop.set()
        for t in threads:
            t.join(15)
        assert len(acked) >= KILL_AFTER_ACKS
        proc = start(home, port)
        with home_channel(f"127.0.0.1:{port}", home) as chan:
            client = pb_grpc.MemoryServiceStub(chan)
            records = [r.record_json for r in client.Export(pb.ExportRequest(scope=scope), timeout=60)]
        import json

        stored = [json.loads(r) for r in records]
        contents = Counter(r["content"] for r in stored)
        ids = {r["content"]: r["id"] for r in stored}
        missing = [c for c in acked if contents[c] == 0]
        duplicated = [c for c, n in contents.items() if n > 1]
        assert not missing, f"{len(missing)} acknowledged writes lost"
        assert not duplicated, f"{len(duplicated)} writes stored twice"
        assert all(ids[c] == i for c, i in acked.items())
    finally:
        stop.set()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
