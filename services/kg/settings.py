"""Knowledge-graph service settings (prefix ``MNEMEX_KG_``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kernel.config import ConfigError, Settings
from kernel.sharding import Shard
from services.kg.problem_match import MatchRules


@dataclass(frozen=True)
class KgSettings:
    address: str
    home: Path
    token: str | None = None
    snapshot_every: int = 500
    synchronous: str = "NORMAL"  # FULL also survives power loss, at an fsync per write
    shard: Shard | None = None  # MNEMEX_SHARD: the users this process owns (kernel/sharding.py)
    rules: MatchRules = field(default_factory=MatchRules)  # MNEMEX_KG_ABLATE: mechanisms off, for ablations

    @property
    def db_path(self) -> Path:
        return self.home / "kg" / "kg.sqlite3"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> KgSettings:
        env = os.environ if environ is None else environ
        base = Settings.from_env(env)
        sync = env.get("MNEMEX_KG_SYNC", "NORMAL").upper()
        if sync not in ("NORMAL", "FULL"):
            raise ConfigError(f"MNEMEX_KG_SYNC={sync!r}: use NORMAL (survives crashes) or FULL (also power loss)")
        every = env.get("MNEMEX_KG_SNAPSHOT_EVERY", "500")
        if not every.isdigit() or int(every) < 1:
            raise ConfigError(f"MNEMEX_KG_SNAPSHOT_EVERY={every!r} must be a positive whole number")
        try:
            rules = MatchRules.from_env(env)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        return cls(
            address=base.kg_addr,
            home=base.home,
            token=base.token,
            snapshot_every=int(every),
            synchronous=sync,
            shard=base.shard,
            rules=rules,
        )
