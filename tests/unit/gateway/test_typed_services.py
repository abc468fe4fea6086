"""The gateway's services take and return typed values: no ``dict[str, Any]`` (or an alias of it) and no
``Any`` in the signature of a public method of ``gateway/capabilities``.

The few signatures that still carry one would be named below with their reason (none is left).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CAPABILITIES = ROOT / "gateway" / "capabilities"
NOT_CHECKED: set[str] = set()  # modules whose signatures are not checked (none now)
STILL_UNTYPED: dict[str, str] = {}


def untyped_signatures(source: str, module: str) -> list[str]:
    """``module:Class.method`` for each public function whose parameters or return name ``Any``,
    ``dict[str, Any]`` or a module-level alias of it."""
    tree = ast.parse(source)
    aliases = {"Any"} | {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign) and "Any" in ast.unparse(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def loose(annotation: ast.expr | None) -> bool:
        return annotation is not None and any(isinstance(n, ast.Name) and n.id in aliases for n in ast.walk(annotation))

    found = []
    scopes: list[tuple[str, ast.AST]] = [("", tree)]
    scopes += [(f"{n.name}.", n) for n in tree.body if isinstance(n, ast.ClassDef)]
    for prefix, scope in scopes:
        for node in ast.iter_child_nodes(scope):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name.startswith("_"):
                continue
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            if loose(node.returns) or any(loose(a.annotation) for a in arguments):
                found.append(f"{module}:{prefix}{node.name}")
    return found


def test_service_signatures_are_typed() -> None:
    found = [
        name
        for path in sorted(CAPABILITIES.glob("*.py"))
        if path.name not in NOT_CHECKED
        for name in untyped_signatures(path.read_text(encoding="utf-8"), path.name)
    ]
    assert sorted(set(found) - set(STILL_UNTYPED)) == [], "return a dataclass of gateway/replies/"
    assert sorted(set(STILL_UNTYPED) - set(found)) == [], "typed now: take it off STILL_UNTYPED"


def test_the_check_sees_a_dict_alias_and_a_bare_any() -> None:
    source = (
        "from typing import Any\n"
        "JSON = dict[str, Any]\n"
        "class S:\n"
        "    async def reply(self) -> JSON: ...\n"
        "    def take(self, x: Any) -> int: ...\n"
        "    def typed(self, x: int) -> str: ...\n"
        "    def _private(self) -> JSON: ...\n"
    )
    assert untyped_signatures(source, "m.py") == ["m.py:S.reply", "m.py:S.take"]
