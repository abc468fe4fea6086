"""The kg's domain modules import neither grpc, chromadb nor fastapi; only
server.py and client.py translate to and from gRPC."""

from __future__ import annotations

import ast
from pathlib import Path

KG = Path(__file__).parents[3] / "services" / "kg"
TRANSPORT = {"server.py", "client.py", "__main__.py"}
FORBIDDEN = ("grpc", "chromadb", "fastapi", "protos")


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_domain_modules_do_not_import_transport_or_storage_libraries() -> None:
    domain = [p for p in KG.glob("*.py") if p.name not in TRANSPORT]
    assert len(domain) >= 10
    for path in domain:
        bad = {m for m in imported_modules(path) if m.split(".")[0] in FORBIDDEN}
        assert not bad, f"{path.name} imports {bad}"


def test_modules_stay_small() -> None:
    for path in KG.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) < 500, path.name
