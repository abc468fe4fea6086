"""The committed gRPC stubs must equal a fresh generation from the .proto files."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_committed_stubs_match_fresh_generation(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_protos.py"), "--out", str(tmp_path)],
        check=True,
        cwd=ROOT,
    )
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*_pb2*.py*"))
    # pb2, pb2_grpc and the type stubs of both, for the three services and the shared types
    assert len(fresh) == 16, fresh
    stale = [str(rel) for rel in fresh if not filecmp.cmp(tmp_path / rel, ROOT / rel, shallow=False)]
    assert not stale, f"stubs differ from the .proto files; run `.venv/bin/python scripts/gen_protos.py`: {stale}"


def test_every_enum_starts_at_unspecified() -> None:
    from protos.mnemex.common.v1 import common_pb2
    from protos.mnemex.embedding.v1 import embedding_service_pb2
    from protos.mnemex.kg.v1 import kg_service_pb2
    from protos.mnemex.memory.v1 import memory_service_pb2

    for module in (common_pb2, embedding_service_pb2, memory_service_pb2, kg_service_pb2):
        for enum in module.DESCRIPTOR.enum_types_by_name.values():
            assert enum.values[0].number == 0
            assert enum.values[0].name.endswith("_UNSPECIFIED"), enum.full_name


def test_each_rpc_has_its_own_request_and_response() -> None:
    from protos.mnemex.embedding.v1 import embedding_service_pb2
    from protos.mnemex.kg.v1 import kg_service_pb2
    from protos.mnemex.memory.v1 import memory_service_pb2

    for module in (embedding_service_pb2, memory_service_pb2, kg_service_pb2):
        (service,) = module.DESCRIPTOR.services_by_name.values()
        assert service.full_name.startswith("mnemex.") and ".v1." in service.full_name
        for method in service.methods:
            assert method.input_type.name == f"{method.name}Request", method.full_name
            assert method.output_type.name == f"{method.name}Response", method.full_name


def test_shared_types_are_defined_once() -> None:
    """Scope and Outcome live in mnemex.common.v1; the services' protos import them."""
    from protos.mnemex.common.v1 import common_pb2
    from protos.mnemex.kg.v1 import kg_service_pb2
    from protos.mnemex.memory.v1 import memory_service_pb2

    assert set(common_pb2.DESCRIPTOR.message_types_by_name) == {"Scope"}
    assert set(common_pb2.DESCRIPTOR.enum_types_by_name) == {"Outcome"}
    for module in (memory_service_pb2, kg_service_pb2):
        assert "Scope" not in module.DESCRIPTOR.message_types_by_name, module.DESCRIPTOR.name
        assert "Outcome" not in module.DESCRIPTOR.enum_types_by_name, module.DESCRIPTOR.name
    score = memory_service_pb2.ScoreRequest.DESCRIPTOR.fields_by_name["outcome"]
    route = kg_service_pb2.RouteRequest.DESCRIPTOR.fields_by_name["scope"]
    assert score.enum_type is not None and score.enum_type.full_name == "mnemex.common.v1.Outcome"
    assert route.message_type is not None and route.message_type.full_name == "mnemex.common.v1.Scope"
