"""The gateway composed: one ``Rpc``, the backends over it, the caller resolver and one service per capability.

``Gateway.build(settings, rpc)`` wires them (the prompt path and teaching call the backends through
the protocols of ``gateway/backends.py``, here the adapters over ``rpc``); ``gateway.app.create_app`` builds one and
the stdio MCP server another. Cross-capability needs are constructor arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway import rpc_backends
from gateway.activity_feed import ActivityFeed
from gateway.backends import Backends
from gateway.caller import CallerResolver
from gateway.capabilities.admin_service import AdminService
from gateway.capabilities.backfill_service import BackfillService
from gateway.capabilities.browse_service import BrowseService
from gateway.capabilities.consolidation_service import ConsolidationService
from gateway.capabilities.hook_service import HookService
from gateway.capabilities.library_service import LibraryService
from gateway.capabilities.memories_service import MemoriesService
from gateway.capabilities.portability_service import PortabilityService
from gateway.capabilities.problem_service import ProblemService
from gateway.prompt_context import Deadlines
from gateway.rpc import Rpc
from gateway.user_tokens import UserTokens
from kernel.config import Settings


@dataclass(frozen=True)
class Gateway:
    settings: Settings
    rpc: Rpc
    backends: Backends  # memory, kg and embedding as get-context and teaching see them
    callers: CallerResolver
    # MNEMEX_USER_TOKENS: per-user tokens; a request made with one acts as its user (gateway/user_tokens.py)
    user_tokens: UserTokens | None
    activity: ActivityFeed  # the viewer's live feed: the hook and memory services publish to it
    hooks: HookService
    memories: MemoriesService
    library: LibraryService
    admin: AdminService
    portability: PortabilityService
    backfill: BackfillService
    consolidation: ConsolidationService
    browse: BrowseService
    problems: ProblemService

    @classmethod
    def build(cls, settings: Settings, rpc: Rpc, deadlines: Deadlines | None = None) -> Gateway:
        """``deadlines`` bounds get-context (default: 1.5 s overall)."""
        bounds = deadlines or Deadlines()
        activity = ActivityFeed()
        backends = rpc_backends.over(rpc)
        return cls(
            settings=settings,
            rpc=rpc,
            backends=backends,
            callers=CallerResolver(settings),
            user_tokens=UserTokens(settings.user_tokens_file) if settings.user_tokens_file else None,
            activity=activity,
            hooks=HookService(rpc, backends, settings, bounds, activity),
            memories=MemoriesService(rpc, settings, bounds, backends, activity),
            library=LibraryService(rpc, settings),
            admin=AdminService(rpc, settings),
            portability=PortabilityService(rpc, settings),
            backfill=BackfillService(rpc, settings),
            consolidation=ConsolidationService(rpc, settings),
            browse=BrowseService(rpc, settings),
            problems=ProblemService(rpc),
        )
