"""No layer of the memory service hands a lower layer a callable of its own.

Imports only point down the layers (tests/unit/test_architecture.py), but a
call can still go up: a use case that gives storage its own method to call
later makes storage run use-case code. The checker here reads each layer's
modules and reports every call into a lower layer (a class or function
imported from it, or a method of an attribute that holds an instance of one)
that passes, as an argument, something defined in the calling layer: a method
of the calling class (``self._store_batch``), a function of the calling module,
or a lambda. Helpers outside the layers (``kernel.blocking_io``, like
``asyncio.to_thread``) may run anything: they belong to no layer.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LAYERS = ("domain", "storage", "retrieval", "usecases", "transport")


@dataclass
class _Module:
    layer: int
    lower_names: set[str] = field(default_factory=set)  # classes, functions and modules imported from lower layers
    own_functions: set[str] = field(default_factory=set)


def _layer_of(module: str, package: str, layers: tuple[str, ...]) -> int | None:
    parts = module.split(".")
    prefix = package.split(".")
    if parts[: len(prefix)] != prefix or len(parts) <= len(prefix):
        return None
    return layers.index(parts[len(prefix)]) if parts[len(prefix)] in layers else None


def _annotation_names(node: ast.expr | None) -> set[str]:
    if node is None:
        return set()
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _lower_attributes(cls: ast.ClassDef, lower: set[str]) -> set[str]:
    """The ``self`` attributes of ``cls`` that hold a lower layer's object (built here or handed to a method)."""
    held: set[str] = set()
    for method in (n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        params = {a.arg: _annotation_names(a.annotation) for a in [*method.args.args, *method.args.kwonlyargs]}
        for node in ast.walk(method):
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign):
                targets, value = [node.target], node.value
                if _annotation_names(node.annotation) & lower:
                    value = value or node.annotation
            for target in targets:
                if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
                    continue
                if target.value.id != "self" or value is None:
                    continue
                names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
                from_params = set().union(*(params.get(n, set()) for n in names)) if names else set()
                if (names | from_params) & lower:
                    held.add(target.attr)
    return held


def _is_lower_callee(func: ast.expr, lower: set[str], held: set[str]) -> bool:
    if isinstance(func, ast.Name):
        return func.id in lower
    if isinstance(func, ast.Attribute):
        root = func.value
        while isinstance(root, ast.Attribute):
            if isinstance(root.value, ast.Name) and root.value.id == "self" and root.attr in held:
                return True
            root = root.value
        return isinstance(root, ast.Name) and root.id in lower
    return False


def _own_callable(arg: ast.expr, methods: set[str], functions: set[str]) -> str | None:
    if isinstance(arg, ast.Lambda):
        return "a lambda"
    if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self":
        return f"self.{arg.attr}" if arg.attr in methods else None
    if isinstance(arg, ast.Name) and arg.id in functions:
        return arg.id
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute | ast.Name):
        name = arg.func.attr if isinstance(arg.func, ast.Attribute) else arg.func.id
        if name == "partial" and arg.args:
            return _own_callable(arg.args[0], methods, functions)
    return None


def upward_callbacks(root: Path, package: str, layers: tuple[str, ...]) -> list[str]:
    """``file:line: passes <callable> to <callee> of a lower layer`` for every such call under ``package``."""
    found: list[str] = []
    base = root / package.replace(".", "/")
    for path in sorted(base.rglob("*.py")):
        relative = path.relative_to(root).with_suffix("").as_posix().replace("/", ".")
        layer = _layer_of(relative, package, layers)
        if layer is None:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = _Module(layer)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                source = _layer_of(node.module, package, layers)
                imported = [(a.asname or a.name, f"{node.module}.{a.name}") for a in node.names]
                for bound, full in imported:
                    level = source if source is not None else _layer_of(full, package, layers)
                    if level is not None and level < layer:
                        module.lower_names.add(bound)
        module.own_functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        scopes: list[tuple[ast.AST, set[str], set[str]]] = [(tree, set(), set())]
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
            scopes.append((cls, methods, _lower_attributes(cls, module.lower_names)))
        seen: set[tuple[int, int]] = set()
        for scope, methods, held in reversed(scopes):  # classes first: their methods and attributes are known
            for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
                if (call.lineno, call.col_offset) in seen or not _is_lower_callee(call.func, module.lower_names, held):
                    continue
                seen.add((call.lineno, call.col_offset))
                for arg in [*call.args, *(k.value for k in call.keywords)]:
                    own = _own_callable(arg, methods, module.own_functions)
                    if own is not None:
                        callee = ast.unparse(call.func)
                        where = path.relative_to(root).as_posix()
                        found.append(f"{where}:{call.lineno}: passes {own} to {callee} of a lower layer")
    return found


def test_no_memory_layer_hands_a_lower_layer_its_own_callable() -> None:
    assert upward_callbacks(ROOT, "services.memory", MEMORY_LAYERS) == []


LAYERS = ("storage", "usecases")


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def test_the_checker_reports_a_use_case_method_handed_to_a_storage_class(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pkg/storage/queue.py": "class Queue:\n    def __init__(self, process): self.process = process\n",
            "pkg/usecases/writes.py": (
                "from pkg.storage.queue import Queue\n\n"
                "class Writes:\n"
                "    def __init__(self):\n"
                "        self.queue = Queue(self._store_batch)\n\n"
                "    async def _store_batch(self, items):\n"
                "        return items\n"
            ),
        },
    )
    assert upward_callbacks(tmp_path, "pkg", LAYERS) == [
        "pkg/usecases/writes.py:5: passes self._store_batch to Queue of a lower layer"
    ]


def test_the_checker_reports_a_callable_handed_to_a_held_lower_object(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pkg/storage/pool.py": "class Pool:\n    async def run(self, fn, *args): return fn(*args)\n",
            "pkg/usecases/search.py": (
                "import functools\n"
                "from pkg.storage.pool import Pool\n\n"
                "def helper(x):\n    return x\n\n"
                "class Search:\n"
                "    def __init__(self, io: Pool):\n"
                "        self._io = io\n\n"
                "    async def warm(self):\n"
                "        await self._io.run(self._warm_text, 1)\n"
                "        await self._io.run(functools.partial(helper, 2))\n"
                "        await self._io.run(lambda: 3)\n"
                "        await self._io.run(len, [4])\n\n"
                "    def _warm_text(self, x):\n"
                "        return x\n"
            ),
        },
    )
    assert upward_callbacks(tmp_path, "pkg", LAYERS) == [
        "pkg/usecases/search.py:12: passes self._warm_text to self._io.run of a lower layer",
        "pkg/usecases/search.py:13: passes helper to self._io.run of a lower layer",
        "pkg/usecases/search.py:14: passes a lambda to self._io.run of a lower layer",
    ]


def test_the_checker_reports_a_module_function_handed_to_a_lower_module(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pkg/storage/later.py": "async def run_later(make):\n    return await make()\n",
            "pkg/usecases/handle.py": (
                "from pkg.storage import later\n\n"
                "async def callback():\n    return 1\n\n"
                "async def handle():\n    return await later.run_later(callback)\n"
            ),
        },
    )
    assert upward_callbacks(tmp_path, "pkg", LAYERS) == [
        "pkg/usecases/handle.py:7: passes callback to later.run_later of a lower layer"
    ]


def test_the_checker_lets_a_layer_call_its_own_layer_and_a_helper_outside_the_layers(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pkg/usecases/queue.py": "class Queue:\n    def __init__(self, process): self.process = process\n",
            "helpers/pool.py": "class Pool:\n    async def run(self, fn): return fn()\n",
            "pkg/usecases/writes.py": (
                "from helpers.pool import Pool\n"
                "from pkg.usecases.queue import Queue\n\n"
                "class Writes:\n"
                "    def __init__(self, io: Pool):\n"
                "        self._io = io\n"
                "        self.queue = Queue(self._store_batch)\n\n"
                "    async def go(self):\n"
                "        await self._io.run(self._store_batch)\n\n"
                "    async def _store_batch(self):\n"
                "        return 1\n"
            ),
        },
    )
    assert upward_callbacks(tmp_path, "pkg", LAYERS) == []
