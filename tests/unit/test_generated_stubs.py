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
    assert len(fresh) == 9, fresh  # pb2, pb2_grpc and pyi for each of the three services
    stale = [str(rel) for rel in fresh if not filecmp.cmp(tmp_path / rel, ROOT / rel, shallow=False)]
    assert not stale, f"stubs differ from the .proto files; run `.venv/bin/python scripts/gen_protos.py`: {stale}"


def test_every_enum_starts_at_unspecified() -> None:
    from protos.mnemex.embedding.v1 import embedding_service_pb2
    from protos.mnemex.kg.v1 import kg_service_pb2
    from protos.mnemex.memory.v1 import memory_service_pb2

    for module in (embedding_service_pb2, memory_service_pb2, kg_service_pb2):
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
