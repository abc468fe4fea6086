"""A write that hits a full disk says so, and where (issue 27, defect 11).

It used to reach a user as 503 "kg service unavailable ... start the stack with
`mnemex up`". The kg service runs on a 1 MB tmpfs that the test fills; mounting
needs root, so elsewhere the test is skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from gateway.gateway_errors import StorageProblem
from gateway.rpc import translate
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as pb_grpc
from tests.support.loop_thread import LoopThread


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(mount)]).returncode:
        pytest.skip("this machine does not allow mounting a tmpfs")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> None:
    with open(disk / "filler", "wb", buffering=0) as handle:
        for chunk in (65536, 512, 1):  # down to the last byte
            with contextlib.suppress(OSError):
                while True:
                    handle.write(b"\0" * chunk)
    with pytest.raises(OSError) as full:
        (disk / "probe").write_bytes(b"\0" * 4096)
    assert full.value.errno == errno.ENOSPC


def record(scope: common_pb.Scope, i: int) -> pb.RecordActionRequest:
    return pb.RecordActionRequest(
        scope=scope,
        context_type="coding",
        action="search_memory",
        collection="patterns",
        outcome=common_pb.OUTCOME_WORKED,
        doc_id=f"p{i}-" + "x" * 200,
    )


def test_a_write_on_a_full_disk_answers_disk_full_with_the_place(loop_thread: LoopThread, small_disk: Path) -> None:
    from services.kg.kg_servicer import create_server
    from services.kg.settings import KgSettings

    running = loop_thread.run(create_server(KgSettings(address="127.0.0.1:0", home=small_disk)))
    address = f"127.0.0.1:{running.port}"
    scope = common_pb.Scope(user="tester", project="full-disk")
    try:
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.KnowledgeGraphServiceStub(channel)
            stub.RecordAction(record(scope, 0), timeout=10)  # the journal exists and works
            fill(small_disk)
            with pytest.raises(grpc.RpcError) as refused:
                for i in range(1, 200):  # SQLite may still fit a row or two in pages it holds
                    stub.RecordAction(record(scope, i), timeout=10)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, refused.value.details()
        detail = refused.value.details() or ""
        assert detail.startswith("the disk is full") and str(small_disk) in detail

        async def through_the_gateway_mapping() -> None:
            async with grpc.aio.insecure_channel(address) as channel:
                aio_stub = pb_grpc.KnowledgeGraphServiceStub(channel)
                try:
                    await aio_stub.RecordAction(record(scope, 999), timeout=10)
                except grpc.aio.AioRpcError as exc:  # what the gateway's Rpc.unary does with it
                    raise translate("kg", exc) from None

        with pytest.raises(StorageProblem) as mapped:
            asyncio.run(through_the_gateway_mapping())
        assert mapped.value.http_status == 507
        assert "the disk is full" in mapped.value.message and "mnemex up" not in mapped.value.message
    finally:
        for filler in small_disk.glob("filler*"):  # room for the closing snapshot
            filler.unlink()
        loop_thread.run(running.stop(0))
