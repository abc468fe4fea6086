"""The gateway's composition rules, checked over its source with ``ast``.

- Each HTTP route module (``gateway/routes/*_routes.py``), MCP tool module
  (``gateway/mcp/*_tools.py``) and viewer page (``gateway/ui/pages/*_page.py``)
  depends on exactly one service class, and imports no service class (or service
  dependency function) it never uses. The service classes are the capability
  services (``gateway/capabilities/*_service.py``) and the viewer's ``ViewerData``;
  a dependency function (``service_deps.hook_service``, ``viewer_deps.viewer``...)
  counts as the service it returns. None of these modules reaches the stubs or
  the composition around its service (``gateway.rpc``, ``gateway.gateway_composition``,
  the generated ``*_pb2_grpc``).
- No class under gateway/ has two or more gateway classes as bases (no mixins);
  no ``if TYPE_CHECKING:`` block declares members (only imports); no function in
  ``gateway/capabilities`` takes ``**kwargs``.
- ``gateway/app.py`` has no ``type: ignore``.

The checkers take source text, so the ``*_flags_*`` tests at the end feed them
small modules made to break each rule: a checker that cannot fail fails there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GATEWAY = ROOT / "gateway"
OWNED_ELSEWHERE = {"gateway/rules.py", "gateway/mcp/facts.py"}  # not the gateway composition's to police
SERVICE_MODULES = ("gateway/capabilities/*_service.py",)
# The viewer's one service: its pages read through ``ViewerData``, which reads through
# MemoriesService, LibraryService and BrowseService for the project the page names.
VIEWER_SERVICE = "ViewerData"
DEPENDENCY_MODULES = ("gateway/service_deps.py", "gateway/ui/viewer_deps.py")
EDGE_MODULES = ("gateway/routes/*_routes.py", "gateway/mcp/*_tools.py", "gateway/ui/pages/*_page.py")
BYPASS = ("gateway.rpc", "gateway.gateway_composition")  # an edge module reaches these only through its service
# Edge modules that depend on no service, each with its reason.
NO_SERVICE = {
    # Sign-in and sign-out: checks a token against the settings and user tokens, sets a
    # cookie; it reads no memories, so it has no capability service to depend on.
    "gateway/ui/pages/auth_page.py",
}
# Edge modules that depend on more than one service, each with its reason. None today.
SEVERAL_SERVICES: dict[str, set[str]] = {}


@dataclass(frozen=True)
class Edge:
    """What one edge module's source says about the services it depends on."""

    services: frozenset[str]  # service classes it uses, directly or through a dependency function
    unused: tuple[str, ...]  # service classes or dependency functions imported but never referenced
    bypasses: tuple[str, ...]  # modules it imports that only its service should reach


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def sources(patterns: tuple[str, ...]) -> dict[str, str]:
    return {
        relative(path): path.read_text(encoding="utf-8") for pattern in patterns for path in sorted(ROOT.glob(pattern))
    }


def gateway_sources() -> dict[str, str]:
    found = {relative(path): path.read_text(encoding="utf-8") for path in sorted(GATEWAY.rglob("*.py"))}
    return {name: text for name, text in found.items() if name not in OWNED_ELSEWHERE}


def service_classes(service_sources: dict[str, str]) -> set[str]:
    """The top-level public classes the capability service modules define."""
    return {
        node.name
        for text in service_sources.values()
        for node in ast.parse(text).body
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
    }


def dependency_functions(dependency_sources: dict[str, str], services: set[str]) -> dict[str, str]:
    """Dependency function name -> the service class it returns (its return annotation)."""
    found: dict[str, str] = {}
    for text in dependency_sources.values():
        for node in ast.parse(text).body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if isinstance(node.returns, ast.Name) and node.returns.id in services:
                found[node.name] = node.returns.id
    return found


def referenced_names(tree: ast.Module) -> set[str]:
    """Every name the module reads, annotations included (they stay in the tree under PEP 563)."""
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    strings = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    for text in strings:  # quoted annotations: "MemoriesService"
        if text.isidentifier():
            names.add(text)
    return names


def edge_dependencies(source: str, services: set[str], dependencies: dict[str, str]) -> Edge:
    """The services one route / tool / page module depends on, and the service imports it leaves unused."""
    tree = ast.parse(source)
    imported: set[str] = set()
    bypasses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module in BYPASS or node.module.endswith("_pb2_grpc"):
                bypasses.append(node.module)
            imported |= {
                alias.asname or alias.name for alias in node.names if alias.name in services | set(dependencies)
            }
            bypasses += [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in BYPASS]
        elif isinstance(node, ast.Import):
            bypasses += [a.name for a in node.names if a.name in BYPASS or a.name.endswith("_pb2_grpc")]
    used = referenced_names(tree)
    unused = tuple(sorted(imported - used))
    services_used = {name for name in imported & used if name in services}
    services_used |= {dependencies[name] for name in imported & used if name in dependencies}
    return Edge(frozenset(services_used), unused, tuple(bypasses))


def composition_violations(source: str, services: set[str], dependencies: dict[str, str]) -> list[str]:
    """Rule (a) for one edge module: one service, no unused service import, no reaching past it."""
    edge = edge_dependencies(source, services, dependencies)
    found = [f"imports {name} but never uses it" for name in edge.unused]
    found += [f"reaches {name} past its service" for name in edge.bypasses]
    if len(edge.services) != 1:
        found.append(f"depends on {len(edge.services)} services: {sorted(edge.services)}")
    return found


def _gateway_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(classes defined here or imported from gateway modules, gateway modules imported as names)."""
    classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "gateway":
            for alias in node.names:
                # `from gateway import proto_dicts` names a module; `from gateway.x import Y`, mostly a class.
                (modules if node.module == "gateway" else classes).add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules |= {alias.asname or alias.name for alias in node.names if alias.name.startswith("gateway.")}
    return classes, modules


def gateway_bases(node: ast.ClassDef, classes: set[str], modules: set[str]) -> list[str]:
    bases = []
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            bases.append(base.id)
        elif isinstance(base, ast.Attribute) and ast.unparse(base.value) in modules:
            bases.append(ast.unparse(base))
    return bases


def structure_violations(source: str, capability: bool) -> list[str]:
    """Rule (b) for one gateway module: no mixins, no TYPE_CHECKING member stubs, no **kwargs in a capability."""
    tree = ast.parse(source)
    classes, modules = _gateway_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = gateway_bases(node, classes, modules)
            if len(bases) > 1:
                found.append(f"class {node.name} mixes gateway classes {bases}")
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            declared = [
                ast.unparse(s).splitlines()[0] for s in node.body if not isinstance(s, ast.Import | ast.ImportFrom)
            ]
            found += [f"declares under TYPE_CHECKING: {line}" for line in declared]
        functions = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
        if capability and isinstance(node, functions) and node.args.kwarg is not None:
            found.append(f"{getattr(node, 'name', 'lambda')} takes **{node.args.kwarg.arg}")
    return found


def type_ignores(source: str) -> list[int]:
    return [number for number, line in enumerate(source.splitlines(), 1) if "type: ignore" in line]


def _tree_services() -> tuple[set[str], dict[str, str]]:
    services = service_classes(sources(SERVICE_MODULES)) | {VIEWER_SERVICE}
    return services, dependency_functions(sources(DEPENDENCY_MODULES), services)


def _edges() -> Iterator[tuple[str, str]]:
    yield from sources(EDGE_MODULES).items()


# -- the tree ------------------------------------------------------------------------------------


def test_the_service_classes_are_found() -> None:
    services, dependencies = _tree_services()
    assert services == {
        "AdminService",
        "BackfillService",
        "BrowseService",
        "ConsolidationService",
        "HookService",
        "LibraryService",
        "MemoriesService",
        "PortabilityService",
        "PreviewService",
        "ProblemService",
        "ViewerData",
    }
    assert dependencies["hook_service"] == "HookService" and dependencies["viewer"] == "ViewerData"
    names = set(dict(_edges()))
    assert {"gateway/routes/hook_routes.py", "gateway/mcp/memory_tools.py", "gateway/ui/pages/books_page.py"} <= names


def test_each_edge_module_depends_on_exactly_one_service_it_imports_and_uses() -> None:
    services, dependencies = _tree_services()
    broken = {}
    for name, text in _edges():
        found = composition_violations(text, services, dependencies)
        if name in NO_SERVICE or name in SEVERAL_SERVICES:  # the count is pinned by the next test
            found = [f for f in found if not f.startswith("depends on")]
        if found:
            broken[name] = found
    assert broken == {}


def test_the_listed_exceptions_are_still_exceptions() -> None:
    services, dependencies = _tree_services()
    edges = dict(_edges())
    for name in NO_SERVICE:
        assert edge_dependencies(edges[name], services, dependencies).services == frozenset(), name
    for name, expected in SEVERAL_SERVICES.items():
        assert edge_dependencies(edges[name], services, dependencies).services == expected, name


def test_no_mixins_no_type_checking_stubs_no_kwargs_in_capabilities() -> None:
    broken = {
        name: found
        for name, text in gateway_sources().items()
        if (found := structure_violations(text, capability=name.startswith("gateway/capabilities/")))
    }
    assert broken == {}


def test_the_app_has_no_type_ignore() -> None:
    assert type_ignores((GATEWAY / "app.py").read_text(encoding="utf-8")) == []


# -- the checkers, on modules made to break each rule ------------------------------------------------

SERVICES = {"HookService", "MemoriesService"}
DEPENDENCIES = {"hook_service": "HookService", "memories_service": "MemoriesService"}
ONE_SERVICE = """
from fastapi import Depends
from gateway.capabilities.hook_service import HookService
from gateway.service_deps import hook_service

async def stop(hooks: HookService = Depends(hook_service)) -> None: ...
"""


def test_a_module_with_one_used_service_passes() -> None:
    assert composition_violations(ONE_SERVICE, SERVICES, DEPENDENCIES) == []


def test_the_checker_flags_an_unused_service_import() -> None:
    source = ONE_SERVICE + "from gateway.capabilities.memories_service import MemoriesService\n"
    assert composition_violations(source, SERVICES, DEPENDENCIES) == ["imports MemoriesService but never uses it"]


def test_the_checker_flags_an_unused_dependency_function() -> None:
    source = ONE_SERVICE.replace("import hook_service", "import hook_service, memories_service")
    assert composition_violations(source, SERVICES, DEPENDENCIES) == ["imports memories_service but never uses it"]


def test_the_checker_flags_a_module_on_two_services() -> None:
    source = (
        ONE_SERVICE
        + "from gateway.service_deps import memories_service\n"
        + "async def search(memories=Depends(memories_service)) -> None: ...\n"
    )
    assert composition_violations(source, SERVICES, DEPENDENCIES) == [
        "depends on 2 services: ['HookService', 'MemoriesService']"
    ]


def test_the_checker_flags_a_module_reaching_past_its_service() -> None:
    source = ONE_SERVICE + "from gateway.rpc import Rpc\nRPC: Rpc | None = None\n"
    assert composition_violations(source, SERVICES, DEPENDENCIES) == ["reaches gateway.rpc past its service"]


def test_the_checker_flags_a_mixin_a_type_checking_stub_and_kwargs() -> None:
    source = """
from typing import TYPE_CHECKING
from gateway import rpc
from gateway.caller import Caller

class Searching: ...

class Operations(Searching, Caller): ...

class Relayed(Searching, rpc.Rpc): ...

class Fine(Searching, Exception): ...

if TYPE_CHECKING:
    from gateway.rpc import Rpc
    def scopes(self) -> tuple[int, int]: ...

def relay(**kwargs: object) -> None: ...
"""
    assert structure_violations(source, capability=True) == [
        "class Operations mixes gateway classes ['Searching', 'Caller']",
        "class Relayed mixes gateway classes ['Searching', 'rpc.Rpc']",
        "declares under TYPE_CHECKING: def scopes(self) -> tuple[int, int]:",
        "relay takes **kwargs",
    ]
    assert structure_violations(source, capability=False) == [
        "class Operations mixes gateway classes ['Searching', 'Caller']",
        "class Relayed mixes gateway classes ['Searching', 'rpc.Rpc']",
        "declares under TYPE_CHECKING: def scopes(self) -> tuple[int, int]:",
    ]


def test_the_checker_finds_a_type_ignore() -> None:
    assert type_ignores("x = 1\napp.state.x = None  # type: ignore[assignment]\n") == [2]
