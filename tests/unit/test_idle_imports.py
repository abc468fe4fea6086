"""What the long-lived processes keep out of memory until they need it (issue 19: idle footprint).

Each check imports a process's modules in a fresh interpreter and lists the heavy
packages that came in; bench/bench_idle.py measures what this saves.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def loaded(modules: list[str], watch: list[str]) -> list[str]:
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(','.join(m for m in {watch!r} if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return [m for m in result.stdout.strip().split(",") if m]


def test_the_foreground_supervisor_keeps_the_cli_out() -> None:
    """``mnemex up`` execs mnemex.supervisor.foreground: no typer, no pydantic, rich only at the ready table."""
    modules = ["mnemex.supervisor.foreground", "mnemex.supervisor.launch", "mnemex.supervisor.supervisor_loop"]
    assert loaded(modules, ["typer", "pydantic", "rich", "mnemex.cli"]) == []


def test_the_cli_loads_no_grpc_until_a_command_needs_it() -> None:
    assert loaded(["mnemex.cli"], ["grpc", "mnemex.supervisor.launch"]) == []


def test_the_onnx_embedding_service_loads_neither_torch_nor_the_onnx_package() -> None:
    modules = ["services.embedding.embedding_servicer", "services.embedding.model", "services.embedding.onnx_encoder"]
    assert loaded(modules, ["torch", "sentence_transformers", "transformers", "onnx"]) == []
