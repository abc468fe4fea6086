"""Which layout each store of a mnemex home is written in, and the steps that bring an older one up.

A home carries ``schema.json``: a schema version per store (``memory``: Chroma plus the
session state, ``kg``: the kg journal) and the mnemex version that last wrote it. A home
without it was written before versions were kept: a store with data there is at schema 1,
a store with none starts at today's version.

Each service calls ``ensure_current(home, store)`` before it opens its store:

- a store at today's version: nothing to do;
- an older one: every step from its version up runs in order, under a lock on the home
  (the memory and kg services start together), each step after a copy of what it changes
  (``backups/``), and the marker moves up after each step, so an interrupted upgrade goes
  on from the last finished step;
- a step that cannot run while the stack starts (``automatic=False``): refused with the
  exact command, ``mnemex down && mnemex migrate``;
- a store newer than this code: refused, naming the version that wrote it; nothing is
  touched (an older mnemex must not write a layout it does not know).

Plain module: files and ``fcntl`` only.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from kernel import __version__
from kernel.json_values import JSONValue, parse_value
from kernel.store_health import StoreUnreadable

MARKER = "schema.json"
LOCK = ".schema.lock"
BACKUPS = "backups"
FORMAT = "mnemex-home"
MIGRATE_COMMAND = "mnemex down && mnemex migrate"


class HomeTooNewError(StoreUnreadable):
    """The store was written by a newer mnemex; this one refuses to open it."""


class MigrationNeededError(StoreUnreadable):
    """The store needs a step that does not run at start-up; the message names the command."""


@dataclass(frozen=True)
class Migration:
    """One step of one store, from ``version`` to ``version + 1``.

    ``apply(home)`` must be safe to run again after an interruption (the marker moves up
    only once it returned). ``copies`` are the home-relative paths it changes, copied
    under ``backups/`` first."""

    store: str
    version: int
    summary: str
    apply: Callable[[Path], None]
    copies: tuple[str, ...] = ()
    automatic: bool = True


@dataclass(frozen=True)
class HomeSchema:
    """What ``schema.json`` says (``marked`` False: no marker yet, versions inferred)."""

    stores: dict[str, int]
    written_by: str | None
    marked: bool


@dataclass(frozen=True)
class Registry:
    """Today's version of each store, its data files (to tell a fresh store) and the steps up."""

    current: Mapping[str, int]
    data_files: Mapping[str, tuple[str, ...]]
    migrations: Sequence[Migration] = field(default_factory=tuple)

    def steps(self, store: str, start: int) -> list[Migration]:
        by_version = {m.version: m for m in self.migrations if m.store == store}
        steps = []
        for version in range(start, self.current[store]):
            if version not in by_version:
                raise ValueError(f"no migration of the {store} store from schema {version}")
            steps.append(by_version[version])
        return steps


# -- today's registry ----------------------------------------------------------------------------


def _record_unknown_vector_model(home: Path) -> None:
    """Schema 2 of the memory store names the model that made its vectors (``kernel.vector_model``).
    A schema 1 home never said; the model is marked unknown, and the memory service records the
    embedding service's model the first time it meets it."""
    from kernel import vector_model

    if vector_model.read_record(home) is None:
        vector_model.write_record(home, None)


REGISTRY = Registry(
    current={"memory": 2, "kg": 1},
    data_files={
        "memory": ("chroma/chroma.sqlite3", "memory/state.db"),
        "kg": ("kg/kg.sqlite3",),
    },
    migrations=(Migration("memory", 1, "record which embedding model made the vectors", _record_unknown_vector_model),),
)


# -- reading and writing the marker ------------------------------------------------------------


def read_schema(home: Path, registry: Registry = REGISTRY) -> HomeSchema:
    """The home's versions: the marker's, or inferred (schema 1 where a store has data)."""
    path = home / MARKER
    try:
        data: JSONValue = parse_value(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = None
    except (OSError, ValueError) as exc:
        raise StoreUnreadable(f"{path} is unreadable ({exc}); restore it from a backup or remove it") from exc
    stores: dict[str, int] = {}
    recorded = data.get("stores") if isinstance(data, dict) else None
    if isinstance(recorded, dict):
        stores = {str(k): int(v) for k, v in recorded.items() if isinstance(v, int)}
    for store, files in registry.data_files.items():
        if store not in stores:
            has_data = any((home / name).exists() for name in files)
            stores[store] = 1 if has_data else registry.current[store]
    written_by = data.get("written_by") if isinstance(data, dict) else None
    return HomeSchema(stores, str(written_by) if written_by else None, data is not None)


def _write_schema(home: Path, stores: Mapping[str, int], written_by: str | None) -> None:
    path = home / MARKER
    payload = {
        "format": FORMAT,
        "stores": dict(sorted(stores.items())),
        "written_by": written_by,
        "updated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    with open(tmp, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(tmp, path)


@contextlib.contextmanager
def home_lock(home: Path) -> Iterator[None]:
    """One process at a time checks or migrates the home's schema."""
    home.mkdir(parents=True, exist_ok=True)
    with open(home / LOCK, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _back_up(home: Path, step: Migration) -> Path | None:
    if not step.copies:
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = home / BACKUPS / f"schema-{step.store}-{step.version}-to-{step.version + 1}-{stamp}"
    for name in step.copies:
        source = home / name
        if source.is_dir():
            shutil.copytree(source, target / name)
        elif source.exists():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


# -- the gate each service passes ---------------------------------------------------------------


def too_new_message(home: Path, store: str, found: int, current: int, written_by: str | None) -> str:
    by = f"mnemex {written_by}" if written_by else "a newer mnemex"
    return (
        f"the {store} store in {home} is at schema {found}, written by {by}; this mnemex ({__version__}) "
        f"reads up to schema {current}: upgrade mnemex (nothing was changed), or point MNEMEX_HOME at another home"
    )


def ensure_current(home: Path, store: str, *, registry: Registry = REGISTRY, manual: bool = False) -> list[Migration]:
    """Bring ``store`` of ``home`` to today's schema, or refuse (module docstring); the steps run.

    ``manual`` (``mnemex migrate``, stack stopped) also runs steps that never run at start-up."""
    with home_lock(home):
        schema = read_schema(home, registry)
        found, current = schema.stores[store], registry.current[store]
        if found > current:
            raise HomeTooNewError(too_new_message(home, store, found, current, schema.written_by))
        steps = registry.steps(store, found)
        held_back = [step for step in steps if not step.automatic and not manual]
        if held_back:
            raise MigrationNeededError(
                f"the {store} store in {home} is at schema {found} and needs a step that does not run while "
                f"the stack starts ({held_back[0].summary}); run `{MIGRATE_COMMAND}`, then start the stack again"
            )
        stores = dict(schema.stores)
        # Another store at a schema newer than this code: the version that wrote it stays named.
        newer = any(version > registry.current.get(name, version) for name, version in stores.items())
        written_by = schema.written_by if newer else __version__
        for step in steps:
            _back_up(home, step)
            step.apply(home)
            stores[store] = step.version + 1
            _write_schema(home, stores, written_by)
        if not schema.marked or (schema.written_by != written_by and not steps):
            _write_schema(home, stores, written_by)  # stamp an unmarked home; name the version that last opened it
        return steps


def migrate_home(home: Path, *, registry: Registry = REGISTRY) -> dict[str, list[Migration]]:
    """Every store to today's schema, the held-back steps included (``mnemex migrate``)."""
    return {store: ensure_current(home, store, registry=registry, manual=True) for store in registry.current}
