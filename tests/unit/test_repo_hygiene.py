"""Rules of the source tree that keep one name per idea and one copy of each piece of code.

- No two production modules share a file name (``__init__``, ``__main__`` and a package's ``settings`` aside):
  ``server.py`` four times made a reader open each to learn which one a traceback meant.
- No run of six significant lines stands twice in the production code (the month table, the rules
  dataclasses and the turn record each once stood in two modules).
- No test module imports another test module: shared helpers live in ``tests/support`` or a non-test module.
- No docstring points at a document the repository does not hold.

Each checker is a function with a test that feeds it a violation, so a checker that cannot fail is caught too.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = ("gateway", "services", "kernel", "mnemex", "hooks")
SHARED_NAMES = frozenset({"__init__.py", "__main__.py", "settings.py"})
RUN_LINES = 6
_PUNCTUATION = re.compile(r"^[\s()\[\]{},:;.]*$")
MISSING_DOCS = ("STACK.md", "DESIGN.md", "DESIGN ")


def production_modules(root: Path = ROOT) -> list[Path]:
    return sorted(
        path
        for package in PRODUCTION
        for path in (root / package).rglob("*.py")
        if "__pycache__" not in path.parts and "_pb2" not in path.name
    )


def shared_basenames(paths: Iterable[Path]) -> dict[str, list[str]]:
    """File names that more than one module carries, each with the modules."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        if path.name not in SHARED_NAMES:
            by_name[path.name].append(path.as_posix())
    return {name: places for name, places in sorted(by_name.items()) if len(places) > 1}


def significant_lines(source: str) -> list[tuple[int, str]]:
    """(line number, line with white space folded), skipping blanks, comments, imports (the names of a
    parenthesised ``from x import (...)`` too) and lone punctuation."""
    kept = []
    in_import = False
    for number, raw in enumerate(source.splitlines(), 1):
        line = " ".join(raw.split())
        if in_import:
            in_import = not line.startswith(")")
            continue
        if not line or line.startswith("#") or _PUNCTUATION.match(line):
            continue
        if line.startswith("import ") or (line.startswith("from ") and " import " in line):
            in_import = line.endswith("(")
            continue
        kept.append((number, line))
    return kept


def repeated_runs(sources: dict[str, str], run: int = RUN_LINES) -> list[str]:
    """``a:line ~ b:line`` for every pair of places that share ``run`` significant lines, identical."""
    places: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for name, source in sources.items():
        lines = significant_lines(source)
        for start in range(len(lines) - run + 1):
            places[tuple(text for _, text in lines[start : start + run])].append((name, lines[start][0]))
    pairs: dict[tuple[str, str], tuple[int, int]] = {}
    for found in places.values():
        for index, first in enumerate(found):
            for second in found[index + 1 :]:
                key = (first[0], second[0])
                pairs.setdefault(key, (first[1], second[1]))
    return [f"{a}:{la} ~ {b}:{lb}" for (a, b), (la, lb) in sorted(pairs.items())]


def imported_test_modules(path: Path, source: str) -> list[str]:
    """The ``test_*`` modules that ``source`` imports from."""
    found = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            # ``from pkg.test_x import y`` and ``from pkg import test_x`` both import a test module
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        found += [name for name in names if name.split(".")[-1].startswith("test_")]
    return found


# -- the checkers, tried -------------------------------------------------------------------------


def test_the_name_checker_reports_a_shared_file_name() -> None:
    paths = [
        Path("gateway/server.py"),
        Path("services/kg/server.py"),
        Path("kernel/settings.py"),
        Path("x/settings.py"),
    ]
    assert shared_basenames(paths) == {"server.py": ["gateway/server.py", "services/kg/server.py"]}


def test_the_duplicate_checker_reports_a_copied_run_and_ignores_imports_and_comments() -> None:
    table = "\n".join(f"    '{m}': {n}," for n, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun"], 1))
    a = f"import os\nMONTHS = {{\n{table}\n}}\n"
    b = f"from x import y\n# a comment\nOTHER = {{\n{table}\n}}\n"
    assert repeated_runs({"a.py": a, "b.py": b}) == ["a.py:3 ~ b.py:4"]
    imports_only = "\n".join(f"import m{n}" for n in range(8))
    assert repeated_runs({"c.py": imports_only, "d.py": imports_only}) == []
    names = "from x import (\n" + "".join(f"    name{n},\n" for n in range(8)) + ")\n"
    assert repeated_runs({"e.py": names + "A = 1\n", "f.py": names + "B = 2\n"}) == []


def test_the_import_checker_reports_a_test_module_import() -> None:
    source = (
        "from tests.unit.gateway.test_app_edges import closed_port\nfrom tests.support.stack import x\n"
        "from tests.unit.kg import test_episode_symptoms as symptoms\n"
    )
    assert imported_test_modules(Path("t.py"), source) == [
        "tests.unit.gateway.test_app_edges",
        "tests.unit.kg.test_episode_symptoms",
    ]


# -- the tree ------------------------------------------------------------------------------------


def test_no_two_production_modules_share_a_file_name() -> None:
    shared = shared_basenames(path.relative_to(ROOT) for path in production_modules())
    assert shared == {}, f"rename these by their role: {shared}"


def test_no_run_of_code_stands_twice_in_production() -> None:
    sources = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8") for path in production_modules()}
    repeated = repeated_runs(sources)
    assert repeated == [], f"{len(repeated)} repeated runs of {RUN_LINES} lines; share one copy: {repeated}"


def test_no_test_module_imports_another() -> None:
    offenders = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        imported = imported_test_modules(path, path.read_text(encoding="utf-8"))
        if imported:
            offenders[path.relative_to(ROOT).as_posix()] = imported
    assert offenders == {}, f"move the shared helpers into tests/support: {offenders}"


def test_no_docstring_points_at_a_document_the_repo_does_not_hold() -> None:
    dangling = [
        f"{path.relative_to(ROOT)}: {name.strip()}"
        for path in production_modules()
        for name in MISSING_DOCS
        if name in path.read_text(encoding="utf-8") and not (ROOT / name.strip()).exists()
    ]
    assert dangling == []
