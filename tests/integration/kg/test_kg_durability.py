"""`python -m services.kg` as a real process: acknowledged learning survives
`kill -9`, and SIGTERM shuts it down cleanly."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as pb_grpc
from tests.support.grpc_token import home_channel

ROOT = Path(__file__).parents[3]
SCOPE = common_pb.Scope(user="tester", project="durable")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_kg(home: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MNEMEX_HOME": str(home), "MNEMEX_KG_ADDR": f"127.0.0.1:{port}"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "services.kg"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 20
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                if (
                    health.Check(health_pb2.HealthCheckRequest(), timeout=0.5).status
                    == health_pb2.HealthCheckResponse.SERVING
                ):
                    return proc
            except grpc.RpcError as err:
                if proc.poll() is not None:
                    raise RuntimeError(
                        f"kg service exited: {proc.stderr.read().decode() if proc.stderr else ''}"
                    ) from err
                time.sleep(0.05)
    proc.kill()
    raise TimeoutError("kg service did not become healthy in 20 s")


@pytest.fixture()
def kg_process(tmp_path: Path) -> Iterator[tuple[Path, int, list[subprocess.Popen[bytes]]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield tmp_path / "home", free_port(), procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        if proc.stderr:
            proc.stderr.close()


def test_learning_survives_kill_9(kg_process: tuple[Path, int, list[subprocess.Popen[bytes]]]) -> None:
    home, port, procs = kg_process
    procs.append(start_kg(home, port))
    with home_channel(f"127.0.0.1:{port}", home) as channel:
        stub = pb_grpc.KnowledgeGraphServiceStub(channel)
        for _ in range(5):
            stub.RecordOutcome(
                pb.RecordOutcomeRequest(
                    scope=SCOPE,
                    concepts=["terraform"],
                    collections=["books"],
                    doc_ids=["book_1"],
                    outcome=common_pb.OUTCOME_WORKED,
                ),
                timeout=5,
            )
        stub.IndexFact(pb.IndexFactRequest(scope=SCOPE, fact_id="mb_1", text="Prod runs on Kubernetes."), timeout=5)
        before = stub.Route(pb.RouteRequest(scope=SCOPE, concepts=["terraform"]), timeout=5)
    assert before.recommended == ["books"]
    procs[0].send_signal(signal.SIGKILL)
    procs[0].wait(10)
    procs.append(start_kg(home, port))
    with home_channel(f"127.0.0.1:{port}", home) as channel:
        stub = pb_grpc.KnowledgeGraphServiceStub(channel)
        after = stub.Route(pb.RouteRequest(scope=SCOPE, concepts=["terraform"]), timeout=5)
        facts = stub.FactsForEntities(pb.FactsForEntitiesRequest(scope=SCOPE, entities=["Kubernetes"]), timeout=5)
    assert after == before
    assert [f.fact_id for f in facts.facts] == ["mb_1"]


def test_sigterm_stops_cleanly_and_keeps_state(kg_process: tuple[Path, int, list[subprocess.Popen[bytes]]]) -> None:
    home, port, procs = kg_process
    procs.append(start_kg(home, port))
    with home_channel(f"127.0.0.1:{port}", home) as channel:
        stub = pb_grpc.KnowledgeGraphServiceStub(channel)
        stub.RecordOutcome(
            pb.RecordOutcomeRequest(
                scope=SCOPE,
                concepts=["helm"],
                collections=["patterns"],
                doc_ids=["p1"],
                outcome=common_pb.OUTCOME_WORKED,
            ),
            timeout=5,
        )
    procs[0].send_signal(signal.SIGTERM)
    assert procs[0].wait(15) == 0
    procs.append(start_kg(home, port))
    with home_channel(f"127.0.0.1:{port}", home) as channel:
        stub = pb_grpc.KnowledgeGraphServiceStub(channel)
        assert stub.Route(pb.RouteRequest(scope=SCOPE, concepts=["helm"]), timeout=5).recommended == ["patterns"]
