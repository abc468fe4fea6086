"""What the supervisor runs: one spec per process, and the environment it gets.

Every child is ``<python> -m mnemex.supervisor.child <module>``: the tiny
wrapper asks the kernel to SIGTERM the child if the supervisor dies (so a
``kill -9`` of the supervisor leaves no orphans) and then runs the module
exactly as ``python -m <module>`` would.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kernel import offline
from kernel.config import SERVICE_NAMES, Settings

# Start order: embedding first (its model load dominates start-up), then the
# rest at once; nothing waits for anything else, the services connect lazily.
STACK_ORDER = ("embedding", "memory", "kg", "gateway")
MODULES = {
    "embedding": "services.embedding",
    "memory": "services.memory",
    "kg": "services.kg",
    "gateway": "gateway",
}
GRPC_SERVICE_NAMES = {
    "embedding": "mnemex.embedding.v1.EmbeddingService",
    "memory": "mnemex.memory.v1.MemoryService",
    "kg": "mnemex.kg.v1.KnowledgeGraphService",
}
HEALTH_PATH = "/api/health"


@dataclass(frozen=True)
class ServiceSpec:
    """One supervised process."""

    name: str
    module: str
    address: str
    kind: str  # "grpc" (grpc.health.v1 Check) or "http" (GET /api/health)
    # The gateway with all three backends supervised beside it: it counts as ready
    # only once its /api/health says every backend serves (200).
    require_backends: bool = False

    @property
    def grpc_service(self) -> str:
        return GRPC_SERVICE_NAMES.get(self.name, "")

    def command(self, python: str | None = None) -> list[str]:
        return [python or sys.executable, "-m", "mnemex.supervisor.child", self.module]


def stack_specs(settings: Settings, only: Sequence[str] = ()) -> list[ServiceSpec]:
    """The specs for the whole stack (or the ``only`` subset), in start order."""
    unknown = [name for name in only if name not in STACK_ORDER]
    if unknown:
        raise ValueError(f"unknown service {unknown[0]!r}: choose from {', '.join(STACK_ORDER)}")
    names = [name for name in STACK_ORDER if not only or name in only]
    return [
        ServiceSpec(
            name=name,
            module=MODULES[name],
            address=settings.addr_of(name),
            kind="grpc" if name in SERVICE_NAMES else "http",
            require_backends=name == "gateway" and all(n in names for n in SERVICE_NAMES),
        )
        for name in names
    ]


HEAP_SCRUB_ENV = "MALLOC_PERTURB_"
HEAP_SCRUB_BYTE = "165"


def child_env(settings: Settings, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every child gets: the caller's, plus resolved addresses.

    Resolving here (rather than letting each child re-derive defaults) means a
    child always listens where the supervisor probes, and peers find each other.
    """
    env = dict(os.environ if base is None else base)
    env.update(
        MNEMEX_HOME=str(settings.home),
        MNEMEX_USER=settings.user,
        MNEMEX_GATEWAY_ADDR=settings.gateway_addr,
        MNEMEX_EMBEDDING_ADDR=settings.embedding_addr,
        MNEMEX_MEMORY_ADDR=settings.memory_addr,
        MNEMEX_KG_ADDR=settings.kg_addr,
        PYTHONUNBUFFERED="1",
    )
    env.pop("MNEMEX_GATEWAY_PORT", None)  # the resolved ADDR wins; avoid two sources of truth
    # glibc fills freed and new heap blocks with this byte: a buffer a native library writes to disk without
    # filling it (Chroma's HNSW file was seen carrying a request's raw text) holds filler, never old data.
    env.setdefault(HEAP_SCRUB_ENV, HEAP_SCRUB_BYTE)
    offline.apply(env)
    return env
