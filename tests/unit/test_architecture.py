"""The repository's import rules, checked in one place.

- Domain logic imports no transport or storage library (grpc, chromadb,
  fastapi/starlette, the generated protos): services/memory/domain, every kg
  module but its server, the embedding batcher and validation, the gateway's
  plain modules.
- services/memory is layered domain -> storage -> retrieval -> usecases ->
  transport: a layer imports only the layers below it; the composition root
  (``services/memory/composition.py``) imports them all and is imported by
  none of them, and only it reads the service settings.
- A service reaches a peer only through protos and the kernel: no service
  imports another service's package, and the gateway imports no ``services``.
- ``kernel`` is shared by everyone and imports none of them; services, the
  gateway and the kernel never import the ``mnemex`` application shell.
- Hooks use the standard library only; importing the gateway loads no model
  and no vector store.

The checks read source with ``ast``, so they see every import (function-local
ones included) without running anything. ``violations`` takes the tree to
check as an argument; the last tests run it on a small tree made to break a
rule, so a checker that cannot fail would fail here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRANSPORT = ("grpc", "grpc_health", "grpc_reflection", "chromadb", "fastapi", "starlette", "uvicorn", "protos")
HEAVY = ("torch", "chromadb", "sentence_transformers", "transformers", "onnxruntime")
MEMORY_LAYERS = ("domain", "storage", "retrieval", "usecases", "transport")  # each may import only those before it


@dataclass(frozen=True)
class Rule:
    """Modules under ``paths`` (files or folders, relative to the root) must not import ``forbidden`` prefixes."""

    name: str
    paths: tuple[str, ...]
    forbidden: tuple[str, ...]
    exempt: tuple[str, ...] = ()


def _memory_layer_rules() -> list[Rule]:
    rules = []
    for index, layer in enumerate(MEMORY_LAYERS):
        above = tuple(f"services.memory.{upper}" for upper in MEMORY_LAYERS[index + 1 :])
        top = ("services.memory.composition", "services.memory.settings")
        rules.append(Rule(f"memory {layer} imports no layer above it", (f"services/memory/{layer}",), above + top))
    return rules


RULES = [
    Rule("memory domain is plain", ("services/memory/domain",), TRANSPORT),
    Rule(
        "memory storage and retrieval speak no gRPC",
        ("services/memory/storage", "services/memory/retrieval"),
        ("grpc", "protos", "fastapi", "starlette"),
    ),
    *_memory_layer_rules(),
    Rule("kg logic is plain", ("services/kg",), TRANSPORT, exempt=("services/kg/kg_servicer.py",)),
    Rule(
        "embedding logic is plain",
        ("services/embedding/batcher.py", "services/embedding/embed_request_checks.py"),
        TRANSPORT,
    ),
    Rule(
        "gateway plain modules are plain",
        tuple(
            f"gateway/{name}.py"
            for name in (
                "formatting",
                "tool_observations",
                "input_validation",
                "gateway_errors",
                "proto_dicts",
                "rules",
                "safe_json",
                "export_format",
            )
        ),
        ("grpc", "fastapi", "starlette", "chromadb", "torch"),
    ),
    Rule("memory reaches peers through protos", ("services/memory",), ("services.embedding", "services.kg")),
    Rule("kg reaches peers through protos", ("services/kg",), ("services.embedding", "services.memory")),
    Rule("embedding reaches peers through protos", ("services/embedding",), ("services.kg", "services.memory")),
    Rule("the gateway talks to services over gRPC only", ("gateway",), ("services",)),
    Rule("the kernel depends on no one", ("kernel",), ("services", "gateway", "mnemex", "hooks")),
    Rule("no one below the shell imports it", ("services", "gateway", "kernel", "hooks"), ("mnemex",)),
]


def import_statements(path: Path) -> list[list[str]]:
    """Per import statement of ``path`` (at any depth), the absolute names it may bring in:
    ``import a, b`` gives ``[a], [b]``; ``from a import b, c`` gives ``[a, a.b, a.c]`` (b may be a module)."""
    statements: list[list[str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            statements.extend([alias.name] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            statements.append([node.module, *(f"{node.module}.{alias.name}" for alias in node.names)])
    return statements


def imports_of(path: Path) -> set[str]:
    return {names[0] for names in import_statements(path)}


def _matches(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _files(root: Path, rule: Rule) -> list[Path]:
    found: list[Path] = []
    for entry in rule.paths:
        target = root / entry
        found.extend(sorted(target.rglob("*.py")) if target.is_dir() else [target] if target.exists() else [])
    return [f for f in found if f.relative_to(root).as_posix() not in rule.exempt]


def violations(root: Path, rules: list[Rule]) -> list[str]:
    """``file: imports module (rule)`` for every import that breaks a rule."""
    found = []
    for rule in rules:
        for path in _files(root, rule):
            for names in import_statements(path):
                # the first name that breaks the rule: the module itself, else a submodule imported from it
                bad = next((n for n in names if any(_matches(n, prefix) for prefix in rule.forbidden)), None)
                if bad is not None:
                    found.append(f"{path.relative_to(root).as_posix()}: imports {bad} ({rule.name})")
    return found


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_the_repository_keeps_the_rule(rule: Rule) -> None:
    missing = [entry for entry in (*rule.paths, *rule.exempt) if not (ROOT / entry).exists()]
    assert missing == [], f"{rule.name}: {missing} no longer exist (renamed?); update the rule"
    assert _files(ROOT, rule), f"{rule.name}: no files under {rule.paths}; update the rule"
    assert violations(ROOT, [rule]) == []


def test_the_memory_service_is_only_its_layers() -> None:
    top = sorted(p.name for p in (ROOT / "services" / "memory").iterdir() if p.suffix == ".py" or p.is_dir())
    assert [t for t in top if t != "__pycache__"] == sorted(
        ["__init__.py", "__main__.py", "composition.py", *MEMORY_LAYERS, "settings.py"]
    )


def test_hook_scripts_use_only_the_standard_library() -> None:
    allowed_local = {"hook_main", "hook_client", "hook_events", "hook_json"}
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    scripts = sorted((ROOT / "hooks").glob("*.py"))
    assert scripts
    for path in scripts:
        for module in imports_of(path):
            assert module.split(".")[0] in stdlib | allowed_local, (path.name, module)


def test_importing_the_gateway_app_loads_no_model_or_vector_store() -> None:
    code = (
        "import sys, gateway.app, gateway.__main__; "
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


# -- the checker itself can fail ---------------------------------------------------------------
def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_the_checker_reports_a_domain_module_that_imports_grpc(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "services/memory/domain/ranking.py": "import math\n\ndef f():\n    import grpc\n",
            "services/memory/domain/scoring.py": "from services.memory.domain import ranking\n",
        },
    )
    assert violations(root, RULES) == ["services/memory/domain/ranking.py: imports grpc (memory domain is plain)"]


def test_the_checker_reports_an_upward_import_between_layers(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "services/memory/storage/store.py": "from services.memory.retrieval.searcher import Searcher\n",
            "services/memory/retrieval/searcher.py": "from services.memory.storage import store\n",
        },
    )
    assert violations(root, RULES) == [
        "services/memory/storage/store.py: imports services.memory.retrieval.searcher "
        "(memory storage imports no layer above it)",
    ]


def test_the_checker_reports_memory_storage_importing_retrieval(tmp_path: Path) -> None:
    """Checked by trying: a storage module that imports the BM25 index (even inside a function) is reported."""
    root = _tree(
        tmp_path,
        {
            "services/memory/storage/collection_mirror.py": (
                "def index():\n    from services.memory.retrieval.lexical import LexicalIndex\n    return LexicalIndex()\n"
            ),
            "services/memory/retrieval/lexical.py": "class LexicalIndex: ...\n",
        },
    )
    assert violations(root, RULES) == [
        "services/memory/storage/collection_mirror.py: imports services.memory.retrieval.lexical "
        "(memory storage imports no layer above it)",
    ]


def test_the_checker_reports_a_use_case_importing_transport_or_the_composition_root(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "services/memory/usecases/prepare_context.py": "from services.memory.transport import memory_protos\n",
            "services/memory/retrieval/searcher.py": "import services.memory.composition\n",
            "services/memory/transport/prompt_rpcs.py": "from services.memory.usecases import prepare_context\n",
        },
    )
    assert violations(root, RULES) == [
        "services/memory/retrieval/searcher.py: imports services.memory.composition "
        "(memory retrieval imports no layer above it)",
        "services/memory/usecases/prepare_context.py: imports services.memory.transport "
        "(memory usecases imports no layer above it)",
    ]


def test_the_checker_reports_the_gateway_importing_a_service(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"gateway/mcp/facts.py": "from services.memory import settings\n"})
    assert violations(root, RULES) == [
        "gateway/mcp/facts.py: imports services.memory (the gateway talks to services over gRPC only)",
    ]
