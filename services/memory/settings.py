"""Memory service settings, read once at the entrypoint.

| variable | default | meaning |
|---|---|---|
| MNEMEX_MEMORY_ADDR | 127.0.0.1:27302 | listen address |
| MNEMEX_HOME | user data dir | Chroma under ``chroma/``, session state under ``memory/`` |
| MNEMEX_USER | OS user | user for requests that leave ``scope.user`` empty |
| MNEMEX_CHROMA_URL | (embedded) | use a Chroma server instead of PersistentClient |
| MNEMEX_EMBEDDING_ADDR | 127.0.0.1:27301 | embedding service, for requests without a vector |
| MNEMEX_TOKEN | (none) | bearer token required from clients |
| MNEMEX_RETRIEVAL_MODE | hybrid | ``hybrid`` (dense + BM25, blended) or ``dense`` |
| MNEMEX_RETRIEVAL_LEXICAL_WEIGHT / _TIME_BONUS | 0.5 / 0.05 | see ``retrieval_hybrid.py`` |
| MNEMEX_RETRIEVAL_NEIGHBOUR_WEIGHT / _SESSION_WEIGHT | 0.5 / 0.4 | ``retrieval/session_boost.py``; 0: off |
| MNEMEX_MEMORY_DEDUP_THRESHOLD | 0.95 | cosine at or above which a write refreshes an existing memory |
| MNEMEX_MEMORY_BANK_CAP | 1000 | active memory_bank facts per user |
| MNEMEX_MEMORY_MAINTENANCE_INTERVAL_S | 900 | periodic lifecycle sweep (0 disables) |
| MNEMEX_MEMORY_VECTOR_DIM | 384 | embedding dimension expected on the wire |
| MNEMEX_MEMORY_ANN_MIN_ROWS | 20000 | active rows from which a collection searches via its ANN index (0: never) |
| MNEMEX_LIFECYCLE_<FIELD> | see lifecycle.py | any ``LifecycleConfig`` field (``..._WORKING_TTL_HOURS=48``) |
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kernel.config import ConfigError, Settings
from kernel.sharding import Shard
from services.memory.domain.lifecycle import LifecycleConfig
from services.memory.domain.ranking import RankingWeights
from services.memory.retrieval.hybrid import (
    DEFAULT_LEXICAL_WEIGHT,
    DEFAULT_NEIGHBOUR_WEIGHT,
    DEFAULT_SESSION_WEIGHT,
    DEFAULT_TIME_BONUS,
    RetrievalConfigError,
    RetrievalSettings,
)
from services.memory.storage.ann_index import DEFAULT_MIN_ROWS

RETRIEVAL_MODES = ("hybrid", "dense")


@dataclass(frozen=True)
class MemorySettings:
    address: str = "127.0.0.1:0"
    home: Path = Path(".")
    default_user: str = "default"
    chroma_url: str | None = None
    embedding_addr: str = "127.0.0.1:27301"
    token: str | None = None
    retrieval_mode: str = "hybrid"
    lexical_weight: float = DEFAULT_LEXICAL_WEIGHT
    time_bonus: float = DEFAULT_TIME_BONUS
    neighbour_weight: float = DEFAULT_NEIGHBOUR_WEIGHT
    session_weight: float = DEFAULT_SESSION_WEIGHT
    dedup_threshold: float = 0.95
    memory_bank_cap: int = 1000
    maintenance_interval_s: float = 900.0
    vector_dim: int = 384
    ann_min_rows: int = DEFAULT_MIN_ROWS
    max_content_chars: int = 50_000
    embed_timeout_s: float = 30.0
    io_threads: int = 16
    max_embed_chars: int = 8000  # below the embedding service's 8,192-character limit per text
    lifecycle: LifecycleConfig = field(default_factory=LifecycleConfig)
    ranking: RankingWeights = field(default_factory=RankingWeights)
    shard: Shard | None = None  # MNEMEX_SHARD: the users this process owns (kernel/sharding.py)

    @property
    def retrieval(self) -> RetrievalSettings:
        return RetrievalSettings(
            mode=self.retrieval_mode,
            lexical_weight=self.lexical_weight,
            time_bonus=self.time_bonus,
            neighbour_weight=self.neighbour_weight,
            session_weight=self.session_weight,
        )

    @property
    def state_path(self) -> Path:
        return self.home / "memory" / "state.db"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> MemorySettings:
        env = os.environ if environ is None else environ
        base = Settings.from_env(env)

        def number(name: str, default: float) -> float:
            raw = env.get(name)
            if raw is None or raw == "":
                return default
            try:
                return float(raw)
            except ValueError:
                raise ConfigError(f"{name}={raw!r} must be a number") from None

        try:
            retrieval = RetrievalSettings.from_env(env)
        except RetrievalConfigError as exc:
            raise ConfigError(str(exc)) from None
        ann_min_rows = number("MNEMEX_MEMORY_ANN_MIN_ROWS", DEFAULT_MIN_ROWS)
        if ann_min_rows < 0 or ann_min_rows != int(ann_min_rows):
            raise ConfigError("MNEMEX_MEMORY_ANN_MIN_ROWS must be a whole number >= 0 (0 disables the ANN index)")
        threshold = number("MNEMEX_MEMORY_DEDUP_THRESHOLD", 0.95)
        if not 0.5 <= threshold <= 1.0:
            raise ConfigError("MNEMEX_MEMORY_DEDUP_THRESHOLD must be within [0.5, 1.0]")
        overrides: dict[str, float | int] = {}
        for item in dataclasses.fields(LifecycleConfig):
            name = f"MNEMEX_LIFECYCLE_{item.name.upper()}"
            if env.get(name):
                value = number(name, 0.0)
                overrides[item.name] = int(value) if item.type in (int, "int") else value
        try:
            lifecycle = LifecycleConfig(**overrides)  # type: ignore[arg-type]  # each value was cast to its field's type above
        except ValueError as exc:
            raise ConfigError(f"MNEMEX_LIFECYCLE_*: {exc}") from None
        return cls(
            address=base.memory_addr,
            home=base.home,
            default_user=base.user,
            chroma_url=base.chroma_url,
            embedding_addr=base.embedding_addr,
            token=base.token,
            retrieval_mode=retrieval.mode,
            lexical_weight=retrieval.lexical_weight,
            time_bonus=retrieval.time_bonus,
            neighbour_weight=retrieval.neighbour_weight,
            session_weight=retrieval.session_weight,
            dedup_threshold=threshold,
            memory_bank_cap=int(number("MNEMEX_MEMORY_BANK_CAP", 1000)),
            maintenance_interval_s=number("MNEMEX_MEMORY_MAINTENANCE_INTERVAL_S", 900.0),
            vector_dim=int(number("MNEMEX_MEMORY_VECTOR_DIM", 384)),
            ann_min_rows=int(ann_min_rows),
            lifecycle=lifecycle,
            shard=base.shard,
        )
