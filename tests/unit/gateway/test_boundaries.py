"""The gateway imports no torch/chromadb; its domain modules import no grpc/fastapi."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PLAIN_MODULES = ["formatting", "observations", "validation", "errors", "convert"]
HEAVY = ("torch", "chromadb", "sentence_transformers", "transformers", "onnxruntime")


def test_importing_the_gateway_app_loads_no_model_or_vector_store() -> None:
    code = (
        "import sys, gateway.app, gateway.__main__; "
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


@pytest.mark.parametrize("name", PLAIN_MODULES)
def test_domain_modules_import_no_grpc_fastapi_or_chromadb(name: str) -> None:
    tree = ast.parse((ROOT / "gateway" / f"{name}.py").read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert not imported & {"grpc", "fastapi", "starlette", "chromadb", "torch"}


def test_hook_scripts_use_only_the_standard_library() -> None:
    allowed_local = {"hook_main", "hook_client", "hook_events", "hook_json"}
    stdlib = set(sys.stdlib_module_names)
    for path in (ROOT / "hooks").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module.split(".")[0]]
            for module in names:
                assert module in stdlib or module in allowed_local or module == "__future__", (path.name, module)


def test_python_m_gateway_refuses_a_public_bind_without_a_token(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "MNEMEX_HOME": str(tmp_path),
        "MNEMEX_USER": "t",
        "MNEMEX_GATEWAY_ADDR": "0.0.0.0:0",
    }
    result = subprocess.run(
        [sys.executable, "-m", "gateway"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "MNEMEX_TOKEN" in result.stderr and "refusing" in result.stderr
