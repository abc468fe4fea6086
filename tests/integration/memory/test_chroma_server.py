"""MNEMEX_CHROMA_URL: the memory service against a real `chroma run` server (HttpClient)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import grpc
import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from tests.support.loop_thread import LoopThread

pytestmark = pytest.mark.slow


def test_store_search_and_restart_through_a_chroma_server(
    tmp_path: Path, loop_thread: LoopThread, embedding_addr: str
) -> None:
    from services.memory.composition import create_server
    from services.memory.settings import MemorySettings

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    chroma = Path(sys.executable).parent / "chroma"
    proc = subprocess.Popen(
        [str(chroma), "run", "--path", str(tmp_path / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1)
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "chroma run did not start"
                time.sleep(0.2)
        settings = MemorySettings(
            address="127.0.0.1:0",
            home=tmp_path / "home",
            default_user="tester",
            chroma_url=f"http://127.0.0.1:{port}",
            embedding_addr=embedding_addr,
            maintenance_interval_s=0,
        )
        scope = common_pb.Scope(user="tester", project="remote")
        for attempt in range(2):  # the second service instance finds the first one's data on the server
            server = loop_thread.run(create_server(settings))
            grpc_port = server.port
            try:
                with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as chan:
                    stub = pb_grpc.MemoryServiceStub(chan)
                    if attempt == 0:
                        stub.Store(
                            pb.StoreRequest(scope=scope, collection="memory_bank", content="User deploys with Nomad"),
                            timeout=30,
                        )
                    found = stub.Search(
                        pb.SearchRequest(scope=scope, query="how does the user deploy?", limit=1), timeout=30
                    )
                    assert [m.content for m in found.memories] == ["User deploys with Nomad"]
            finally:
                loop_thread.run(server.stop(0))
        assert not (tmp_path / "home" / "chroma").exists()  # nothing embedded locally
    finally:
        proc.terminate()
        proc.wait(10)
