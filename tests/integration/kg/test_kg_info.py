"""The kg service's Info RPC over a real loopback server."""

from __future__ import annotations

from kernel import __version__
from protos.mnemex.kg.v1 import kg_service_pb2 as pb


def test_info_names_the_service_and_its_version(stub) -> None:  # type: ignore[no-untyped-def]
    info = stub.Info(pb.InfoRequest(), timeout=10)
    assert (info.service, info.version) == ("kg", __version__)
