"""The configuration table (docs/CONFIGURATION.md, moved out of the README) against the code: every variable
read is listed, every one listed is read, and each default shown is the one the code applies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernel.config import Settings
from services.embedding.settings import EmbeddingSettings
from services.kg.settings import KgSettings
from services.memory.settings import MemorySettings

ROOT = Path(__file__).resolve().parents[2]
CONFIGURATION = "docs/CONFIGURATION.md"  # the table of every MNEMEX_* variable
CODE = ("kernel", "services", "gateway", "mnemex", "hooks")
INTERNAL = {
    "MNEMEX_SUPERVISOR_PID",
    "MNEMEX_SUPERVISOR_LIFELINE",
}  # set by the supervisor for its children, not by users
VARIABLE = re.compile(r"MNEMEX_[A-Z0-9_]+")
ROW = re.compile(r"^\| `(MNEMEX_[A-Z0-9_*]+)` \| (.+?) \| (.+?) \|$")


def readme_rows() -> dict[str, str]:
    """variable (or ``PREFIX_*``) -> its default cell."""
    rows = {}
    for line in (ROOT / CONFIGURATION).read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


def variables_in_code() -> set[str]:
    found: set[str] = set()
    for package in CODE:
        for path in (ROOT / package).rglob("*.py"):
            for name in VARIABLE.findall(path.read_text(encoding="utf-8")):
                # a prefix ("MNEMEX_LIFECYCLE_" + field name) is covered by a ``PREFIX_*`` row
                if not name.endswith("_"):
                    found.add(name)
    return found - INTERNAL


def documented(name: str, rows: dict[str, str]) -> bool:
    return name in rows or any(row.endswith("*") and name.startswith(row[:-1]) for row in rows)


def test_every_variable_the_code_reads_is_in_the_configuration_table() -> None:
    rows = readme_rows()
    assert len(rows) >= 30
    missing = sorted(name for name in variables_in_code() if not documented(name, rows))
    assert missing == []


def test_every_variable_in_the_configuration_table_is_read_by_the_code() -> None:
    code = variables_in_code()
    stale = sorted(row for row in readme_rows() if not row.endswith("*") and row not in code)
    assert stale == []


def _number(cell: str) -> str:
    return cell.strip("`")


SETTINGS = Settings.from_env({"MNEMEX_HOME": "."})
MEMORY = MemorySettings()
EMBEDDING = EmbeddingSettings.from_env({})
KG = KgSettings.from_env({"MNEMEX_HOME": "."})
DEFAULTS = {
    "MNEMEX_GATEWAY_ADDR": SETTINGS.gateway_addr,
    "MNEMEX_GATEWAY_PORT": SETTINGS.gateway_addr.rsplit(":", 1)[1],
    "MNEMEX_EMBEDDING_ADDR": SETTINGS.embedding_addr,
    "MNEMEX_MEMORY_ADDR": SETTINGS.memory_addr,
    "MNEMEX_KG_ADDR": SETTINGS.kg_addr,
    "MNEMEX_EMBEDDING_DEVICE": EMBEDDING.device,
    "MNEMEX_EMBEDDING_BACKEND": EMBEDDING.backend,
    "MNEMEX_EMBEDDING_PRECISION": EMBEDDING.precision,
    "MNEMEX_EMBEDDING_THREADS": EMBEDDING.threads,
    "MNEMEX_EMBEDDING_MAX_BATCH": EMBEDDING.max_batch,
    "MNEMEX_EMBEDDING_BATCH_WINDOW_MS": EMBEDDING.batch_window_ms,
    "MNEMEX_EMBEDDING_INLINE_CHARS": EMBEDDING.inline_chars,
    "MNEMEX_RETRIEVAL_MODE": MEMORY.retrieval_mode,
    "MNEMEX_RETRIEVAL_LEXICAL_WEIGHT": MEMORY.lexical_weight,
    "MNEMEX_RETRIEVAL_TIME_BONUS": MEMORY.time_bonus,
    "MNEMEX_MEMORY_BANK_CAP": MEMORY.memory_bank_cap,
    "MNEMEX_MEMORY_DEDUP_THRESHOLD": MEMORY.dedup_threshold,
    "MNEMEX_MEMORY_MAINTENANCE_INTERVAL_S": MEMORY.maintenance_interval_s,
    "MNEMEX_MEMORY_VECTOR_DIM": MEMORY.vector_dim,
    "MNEMEX_KG_SYNC": KG.synchronous,
    "MNEMEX_KG_SNAPSHOT_EVERY": KG.snapshot_every,
}


def _same(cell: str, value: object) -> bool:
    text = _number(cell)
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return float(text) == float(value)
        except ValueError:
            return False
    return text == str(value)


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_the_default_shown_is_the_one_the_code_applies(name: str) -> None:
    cell = readme_rows()[name]
    assert _same(cell, DEFAULTS[name]), f"{CONFIGURATION} says {cell} for {name}; the code uses {DEFAULTS[name]!r}"


def test_the_memory_settings_read_from_an_empty_environment_are_their_defaults() -> None:
    """The table quotes ``MemorySettings()``; ``from_env`` must agree with it."""
    from_env = MemorySettings.from_env({"MNEMEX_HOME": "."})
    for field in (
        "retrieval_mode",
        "lexical_weight",
        "time_bonus",
        "memory_bank_cap",
        "dedup_threshold",
        "maintenance_interval_s",
        "vector_dim",
    ):
        assert getattr(from_env, field) == getattr(MEMORY, field), field


@pytest.mark.parametrize(
    ("name", "source", "literal"),
    [
        ("MNEMEX_HOOK_TIMEOUT", "hooks/hook_main.py", "DEFAULT_TIMEOUT = 1.8"),
        ("MNEMEX_HOOK_FAILURES", "hooks/hook_main.py", 'env.get("MNEMEX_HOOK_FAILURES") or 3)'),
        ("MNEMEX_HOOK_COOLDOWN", "hooks/hook_main.py", 'env.get("MNEMEX_HOOK_COOLDOWN") or 30)'),
        ("MNEMEX_HOOK_START_INTERVAL", "hooks/hook_client.py", 'env.get("MNEMEX_HOOK_START_INTERVAL") or 60)'),
        ("MNEMEX_GET_CONTEXT_BUDGET_MS", "gateway/__main__.py", '"MNEMEX_GET_CONTEXT_BUDGET_MS", "1500")'),
    ],
)
def test_defaults_written_inline_match_the_configuration_table(name: str, source: str, literal: str) -> None:
    """These defaults are literals where the variable is read (hooks use the standard library only)."""
    assert literal in (ROOT / source).read_text(encoding="utf-8"), (
        f"{name}'s default moved: update {CONFIGURATION} and this test"
    )
    default = re.findall(r"[0-9.]+", literal)[-1]
    assert _same(readme_rows()[name], float(default))
