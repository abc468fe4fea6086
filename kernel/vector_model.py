"""Which embedding model made the vectors of a home's memories (``memory/vectors.json``).

Vectors of two models cannot be compared: after ``MNEMEX_EMBEDDING_MODEL`` changes, every
stored memory must be embedded again (``mnemex reembed``) before search can find it by
meaning. The record names the model and its dimension; ``model_id`` None means not known
yet (a home from before the record, see ``kernel.home_schema``), and the memory service
then records the model the embedding service reports.

While ``mnemex reembed`` runs, ``memory/reembed.json`` names the model it embeds with; it is
removed only once every collection is done, so a home where it is left over holds vectors
of two models and the memory service refuses to start until the reembed is run again.

Plain module: files only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from kernel.json_values import JSONValue, parse_value
from kernel.store_health import StoreUnreadable

RECORD = Path("memory") / "vectors.json"
PROGRESS = Path("memory") / "reembed.json"
REEMBED_COMMAND = "mnemex down && mnemex reembed"


class ReembedUnfinishedError(StoreUnreadable):
    """A reembed was interrupted: the memories hold vectors of two models."""


@dataclass(frozen=True)
class VectorModel:
    model_id: str
    dimension: int

    def __str__(self) -> str:
        return f"{self.model_id} ({self.dimension} dimensions)"


@dataclass(frozen=True)
class Record:
    """``model`` None: not known yet."""

    model: VectorModel | None


def _write_json(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    with open(tmp, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _model_of(data: JSONValue) -> VectorModel | None:
    if not isinstance(data, dict):
        return None
    model_id, dimension = data.get("model_id"), data.get("dimension")
    if isinstance(model_id, str) and isinstance(dimension, int):
        return VectorModel(model_id, dimension)
    return None


def read_record(home: Path) -> Record | None:
    """The home's record; None when it has none."""
    try:
        data = parse_value((home / RECORD).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return Record(None)  # unreadable: treated as unknown, and written again
    return Record(_model_of(data))


def write_record(home: Path, model: VectorModel | None) -> None:
    data: dict[str, object] = {"model_id": None, "dimension": None}
    if model is not None:
        data = {"model_id": model.model_id, "dimension": model.dimension}
    data["recorded_at"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    _write_json(home / RECORD, data)


def switch_problem(home: Path, recorded: VectorModel, serving: VectorModel) -> str | None:
    """Why the stored vectors cannot be searched with ``serving``; None when they can."""
    if recorded == serving:
        return None
    return (
        f"the memories in {home} were embedded by {recorded}, but the embedding service runs {serving}: "
        f"search cannot find them by meaning until they are embedded again; run `{REEMBED_COMMAND}` "
        "(or set MNEMEX_EMBEDDING_MODEL back)"
    )


# -- a reembed in progress --------------------------------------------------------------------------


def read_progress(home: Path) -> tuple[VectorModel | None, list[str]] | None:
    """(model it embeds with, Chroma collections and kg episode books finished: ``kg:<user>``) of an
    unfinished reembed; None when none."""
    try:
        data = parse_value((home / PROGRESS).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None, []
    done = data.get("done") if isinstance(data, dict) else None
    return _model_of(data), [str(name) for name in done] if isinstance(done, list) else []


def write_progress(home: Path, model: VectorModel, done: list[str]) -> None:
    _write_json(home / PROGRESS, {"model_id": model.model_id, "dimension": model.dimension, "done": done})


def finish(home: Path, model: VectorModel) -> None:
    """Every collection is embedded by ``model``: record it, then drop the progress file."""
    write_record(home, model)
    (home / PROGRESS).unlink(missing_ok=True)


def check_no_unfinished_reembed(home: Path) -> None:
    """Refuse to serve a home whose reembed was interrupted (its vectors come from two models)."""
    progress = read_progress(home)
    if progress is not None:
        model, done = progress
        raise ReembedUnfinishedError(
            f"a `mnemex reembed` with {model or 'another model'} was interrupted in {home} "
            f"({len(done)} collections and kg episode books done): the memories hold vectors of two models; "
            f"run `{REEMBED_COMMAND}` again to finish it"
        )
