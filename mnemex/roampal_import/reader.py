"""Read a Roampal data directory: its Chroma collections and knowledge_graph.json.

Roampal keeps ``chromadb/`` (a Chroma PersistentClient directory) and
``knowledge_graph.json`` in its data directory. ``locate`` accepts that data
directory, its parent, or the Chroma directory itself. The Chroma directory
is copied to a temporary directory before opening, because opening a store
made by an older Chroma may migrate its files in place; Roampal's own copy
is therefore never written. Rows are read page by page with documents and
metadata only: no embeddings are loaded and nothing is embedded.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from kernel.json_values import JSONObject, parse_value
from mnemex.roampal_import.records import ROAMPAL_COLLECTIONS, ConversionTally, ImportRecord, to_record

CHROMA_FILE = "chroma.sqlite3"
KG_FILE = "knowledge_graph.json"
PAGE = 500


class RoampalDirError(Exception):
    """The directory is not a readable Roampal data directory; the message says why."""


@dataclass(frozen=True)
class RoampalSource:
    chroma_dir: Path | None
    kg_file: Path | None


def default_directories(environ: Mapping[str, str] | None = None, home: Path | None = None) -> list[Path]:
    """Where Roampal keeps its data when it was not told otherwise, on this platform: its release folder,
    then its development one (``ROAMPAL_DEV``). Linux follows XDG_DATA_HOME, with lower-case folders."""
    env = os.environ if environ is None else environ
    user = Path.home() if home is None else home
    if os.name == "nt":
        base = Path(env.get("APPDATA") or user)
        return [base / "Roampal" / "data", base / "Roampal_DEV" / "data"]
    if sys.platform == "darwin":
        base = user / "Library" / "Application Support"
        return [base / "Roampal" / "data", base / "Roampal_DEV" / "data"]
    base = Path(env.get("XDG_DATA_HOME") or user / ".local" / "share")
    return [base / "roampal" / "data", base / "roampal_dev" / "data"]


def find_default(environ: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """The first default directory holding Roampal data; else a RoampalDirError naming where it looked."""
    places = default_directories(environ, home)
    for place in places:
        try:
            locate(place)
        except RoampalDirError:
            continue
        return place
    raise RoampalDirError(
        "found no Roampal data in " + " or ".join(str(p) for p in places) + ": pass Roampal's data directory "
        "(the folder holding chromadb/ and knowledge_graph.json), e.g. mnemex import-roampal ~/roampal-data"
    )


def locate(directory: Path) -> RoampalSource:
    if not directory.is_dir():
        raise RoampalDirError(f"{directory} is not a directory: pass Roampal's data directory")
    candidates = [directory, directory / "chromadb", directory / "data" / "chromadb"]
    chroma = next((c for c in candidates if (c / CHROMA_FILE).is_file()), None)
    kg_candidates = [directory / KG_FILE, directory / "data" / KG_FILE]
    if chroma is not None:
        kg_candidates.append(chroma.parent / KG_FILE)
    kg = next((k for k in kg_candidates if k.is_file()), None)
    if chroma is None and kg is None:
        raise RoampalDirError(
            f"no Roampal data in {directory}: expected chromadb/{CHROMA_FILE} or {KG_FILE} "
            "(Roampal keeps them in its data directory: ~/.local/share/roampal/data on Linux, "
            "~/Library/Application Support/Roampal/data on macOS, %APPDATA%/Roampal/data on Windows)"
        )
    return RoampalSource(chroma, kg)


def read_knowledge_graph(path: Path) -> JSONObject:
    try:
        data = parse_value(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RoampalDirError(f"{path} is not readable JSON ({exc}); fix or move it, then retry") from exc
    if not isinstance(data, dict):
        raise RoampalDirError(f"{path} holds a JSON {type(data).__name__}, expected an object")
    return data


def read_records(chroma_dir: Path, tally: ConversionTally) -> Iterator[ImportRecord]:
    """mnemex import records for every usable row of the five roampal_* collections."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    with tempfile.TemporaryDirectory(prefix="mnemex-roampal-") as scratch:
        copy = Path(scratch) / "chroma"
        shutil.copytree(chroma_dir, copy)
        try:
            client = chromadb.PersistentClient(path=str(copy), settings=ChromaSettings(anonymized_telemetry=False))
            names = {c.name for c in client.list_collections()}
        except Exception as exc:
            raise RoampalDirError(f"cannot open {chroma_dir} with chromadb: {exc}") from exc
        for name in ROAMPAL_COLLECTIONS:
            if name not in names:
                continue
            # embedding_function=None: never build (or download) the collection's embedding model.
            collection = client.get_collection(name, embedding_function=None)
            offset = 0
            while True:
                page = collection.get(include=["documents", "metadatas"], limit=PAGE, offset=offset)
                ids = page["ids"]
                if not ids:
                    break
                missing: list[None] = [None] * len(ids)
                documents: list[str | None] = list(page.get("documents") or missing)
                metadatas: list[Mapping[str, object] | None] = list(page.get("metadatas") or missing)
                for doc_id, document, metadata in zip(ids, documents, metadatas, strict=True):
                    tally.read[name] += 1
                    record, reason = to_record(name, doc_id, document, metadata)
                    if record is None:
                        tally.skipped[reason] += 1
                        continue
                    tally.converted[name] += 1
                    yield record
                offset += len(ids)
        del client
