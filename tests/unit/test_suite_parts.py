"""The suite in parts: every test module is in a marked directory, a unit test starts no service,
no module imports a conftest.py, and bench imports from tests only tests.support (see its docstring)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support import suites

ROOT = Path(__file__).resolve().parents[2]
IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import\b|import[ \t]+([\w.]+))", re.MULTILINE)


def imported_modules(source: str) -> list[str]:
    """The absolute module names that ``source`` imports from, at any depth (a line-based read: parsing
    every module of tests and bench takes seconds)."""
    return [from_ or plain for from_, plain in IMPORT_LINE.findall(source)]


def wrong_imports(path: str, modules: list[str]) -> list[str]:
    """Each import of ``modules`` by the module at ``path`` (relative to the root) that breaks the direction."""
    wrong = []
    for module in modules:
        parts = module.split(".")
        if parts[-1] == "conftest":
            wrong.append(f"{path} imports {module}: fixtures stay in conftest.py, helpers go to tests/support")
        elif (
            path.startswith(("bench/", "tests/support/")) and parts[0] == "tests" and parts[:2] != ["tests", "support"]
        ):
            wrong.append(f"{path} imports {module}: move what it needs into tests/support")
        elif path.startswith("tests/support/") and parts[0] == "bench":
            wrong.append(f"{path} imports {module}: tests/support imports no bench module")
    return wrong


def python_files(*tops: str) -> list[Path]:
    return [p for top in tops for p in sorted((ROOT / top).rglob("*.py")) if "node_modules" not in p.parts]


# -- the checkers, tried -------------------------------------------------------------------------


def test_the_part_checker_reports_a_module_outside_the_parts_and_a_unit_test_that_starts_a_service() -> None:
    tests = suites.TESTS
    assert suites.misplaced(tests / "tools" / "test_x.py", ["tmp_path"]) is not None
    assert suites.misplaced(tests / "test_x.py", []) is not None
    started = suites.misplaced(tests / "unit" / "kg" / "test_x.py", ["tmp_path", "embedding_addr"])
    assert started is not None and "embedding_addr" in started
    assert suites.misplaced(tests / "integration" / "test_x.py", ["embedding_addr"]) is None
    assert suites.markers_for(tests / "browser" / "test_x.py") == ("integration", "browser")
    assert suites.markers_for(tests / "reliability" / "test_x.py") == ("integration",)
    assert suites.markers_for(tests / "unit" / "cli" / "test_x.py") == ("unit",)


def test_the_import_checker_reports_each_wrong_direction() -> None:
    source = (
        "from tests.integration.mcp.conftest import McpStack\n"
        "import tests.reliability.inproc\n"
        "from tests.support.stack import make_stack\n"
        "from bench.common import free_port\n"
    )
    modules = imported_modules(source)
    assert len(wrong_imports("bench/bench_x.py", modules)) == 2
    assert len(wrong_imports("tests/support/x.py", modules)) == 3
    assert wrong_imports("tests/integration/test_x.py", modules) == [
        "tests/integration/test_x.py imports tests.integration.mcp.conftest: "
        "fixtures stay in conftest.py, helpers go to tests/support"
    ]


# -- the tree ------------------------------------------------------------------------------------


def test_every_test_module_is_in_a_part_of_the_suite() -> None:
    outside = [
        p.relative_to(ROOT).as_posix()
        for p in python_files("tests")
        if p.name.startswith("test_") and not suites.part_of(p)
    ]
    assert outside == [], f"put each under one of tests/{{{','.join(suites.PARTS)}}}/: {outside}"


def test_imports_between_tests_and_bench_go_one_way_and_never_through_a_conftest() -> None:
    wrong = [
        problem
        for path in python_files("tests", "bench")
        for problem in wrong_imports(path.relative_to(ROOT).as_posix(), imported_modules(path.read_text("utf-8")))
    ]
    assert wrong == []
