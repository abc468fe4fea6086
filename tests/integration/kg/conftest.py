"""A real kg gRPC server on 127.0.0.1:<ephemeral>, shared by the module.

Tests keep apart by using their own scope (project = the test's name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as pb_grpc
from tests.support.loop_thread import LoopThread


@pytest.fixture(scope="module")
def kg_server(loop_thread: LoopThread, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    from services.kg.kg_servicer import create_server
    from services.kg.settings import KgSettings

    home = tmp_path_factory.mktemp("kg-home")
    settings = KgSettings(address="127.0.0.1:0", home=home)
    running = loop_thread.run(create_server(settings))
    yield f"127.0.0.1:{running.port}", home
    loop_thread.run(running.stop(0))


@pytest.fixture()
def stub(kg_server: tuple[str, Path]) -> Iterator[pb_grpc.KnowledgeGraphServiceStub]:
    with grpc.insecure_channel(kg_server[0]) as channel:
        yield pb_grpc.KnowledgeGraphServiceStub(channel)


@pytest.fixture()
def scope(request: pytest.FixtureRequest) -> common_pb.Scope:
    name = re.sub(r"[^A-Za-z0-9_.@-]+", "-", request.node.name)[-100:]
    return common_pb.Scope(user="tester", project=name)
