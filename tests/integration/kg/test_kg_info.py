"""The kg service's Info RPC over a real loopback server."""

from __future__ import annotations

from kernel import __version__
from protos.mnemex.kg.v1 import kg_service_pb2 as pb
from protos.mnemex.kg.v1.kg_service_pb2_grpc import KnowledgeGraphServiceStub


def test_info_names_the_service_and_its_version(stub: KnowledgeGraphServiceStub) -> None:
    info = stub.Info(pb.InfoRequest(), timeout=10)
    assert (info.service, info.version) == ("kg", __version__)
