"""`mnemex repair` keeps every row it can read and says what it could not (issue 36, item 3).

Real stores written by the stores' own classes (``ChromaStore``, the kg
``Journal``), damaged on disk, then the real CLI as a process:

- 64 KB of zeros over the tail of Chroma's ``embeddings`` table, over the
  file's header and schema pages, or over the root pages of its ``collections``
  and ``embeddings`` tables: every memory whose id and text still read
  somewhere (Chroma's write log, its metadata and full-text tables) comes back
  with its exact text and metadata;
- garbage in three of four kg snapshots (two unreadable, one whose JSON no
  longer reads), stored around an intact 89 KB one: that one is kept, the
  three lost are named by scope in ``--json`` and the text report;
- a store this process may not open (chmod 000, or another owner): repair names
  the ``chmod``/``chown`` that fixes it, moves nothing aside, exits 1, no
  traceback. Root ignores file modes, so as root the CLI runs under ``setpriv``
  without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH: still uid 0, but the kernel
  checks modes as for any owner, so the file really cannot be opened.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.store_damage import GARBAGE, checkpoint_sqlite, seed_home
from tests.support.supervisor import ROOT, cli, stack_env

pytestmark = pytest.mark.slow

PAGE = 4096
MEMORIES = 806


def _chroma_memories(folder: Path) -> dict[str, tuple[str, dict[str, object]]]:
    import chromadb
    from chromadb.api.shared_system_client import SharedSystemClient
    from chromadb.config import Settings

    SharedSystemClient.clear_system_cache()
    client = chromadb.PersistentClient(path=str(folder), settings=Settings(anonymized_telemetry=False))
    found: dict[str, tuple[str, dict[str, object]]] = {}
    for collection in client.list_collections():
        got = client.get_collection(collection.name, embedding_function=None).get(include=["documents", "metadatas"])
        documents, metadatas = got["documents"], got["metadatas"]
        assert documents is not None and metadatas is not None  # both asked for in include
        for row_id, document, metadata in zip(got["ids"], documents, metadatas, strict=True):
            found[row_id] = (document, dict(metadata or {}))
    SharedSystemClient.clear_system_cache()
    return found


def _pages(database: Path, table: str) -> list[int]:
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        return [int(r[0]) for r in db.execute("SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno", (table,))]
    finally:
        db.close()


@pytest.mark.parametrize("where", ["embeddings-tail", "file-head", "table-roots"])
def test_zeros_over_chroma_keep_every_memory_whose_id_and_text_still_read(tmp_path: Path, where: str) -> None:
    home = tmp_path / "home"
    seed_home(home, rows=MEMORIES, events=5)
    before = _chroma_memories(home / "chroma")
    assert len(before) == MEMORIES
    database = home / "chroma" / "chroma.sqlite3"
    # 64 KB of zeros: from the page before the last of `embeddings`; over the header and schema pages; or over
    # pages 17-32, the root pages of `collections` and `embeddings` and the schema's first leaf
    starts = {
        "embeddings-tail": (_pages(database, "embeddings")[-1] - 2) * PAGE,
        "file-head": 0,
        "table-roots": 16 * PAGE,
    }
    start = starts[where]
    with open(database, "r+b") as handle:
        handle.seek(start)
        handle.write(bytes(65536))
    with pytest.raises(sqlite3.DatabaseError):  # the damage really cut rows out of `embeddings`
        db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            db.execute("SELECT count(*), max(embedding_id) FROM embeddings").fetchall()
        finally:
            db.close()

    repaired = cli(stack_env(home), "repair", "--json", "--store", "chroma", timeout=600)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    (entry,) = json.loads(repaired.stdout)["stores"]
    after = _chroma_memories(home / "chroma")
    assert after == before  # every memory, its exact text and metadata (the ids and texts were in the write log)
    assert entry["rows_salvaged"] == MEMORIES
    assert entry["errors"]  # what did not read is said
    assert entry["lost_ids"] == []


def _journal(path: Path) -> dict[str, str]:
    """Four scopes' snapshots (20 KB, 30 KB, 89 KB, 15 KB, in that order) and three events after each."""
    from services.kg.journal import Journal

    journal = Journal(path)
    sizes = {"a|proj": ("A", 20_000), "c|proj": ("C", 30_000), "b|proj": ("B", 89_000), "d|proj": ("D", 15_000)}
    for scope, (letter, size) in sizes.items():
        journal.append(scope, {"kind": "noop"})
        journal.snapshot(scope, {"nodes": [{"id": f"{letter}{i}", "label": letter * 90} for i in range(size // 100)]})
        for i in range(3):
            journal.append(scope, {"kind": "after", "i": i})
    journal.close()
    checkpoint_sqlite(path)
    db = sqlite3.connect(path)
    try:
        return {str(scope): str(data) for scope, data in db.execute("SELECT scope, data FROM snapshots")}
    finally:
        db.close()


def _page_holding(path: Path, marker: bytes, which: int) -> int:
    """The ``which``-th page of the file that holds ``marker`` (an overflow page of one snapshot)."""
    raw = path.read_bytes()
    pages = [n for n in range(len(raw) // PAGE) if marker in raw[n * PAGE : (n + 1) * PAGE]]
    return pages[which]


def test_garbage_in_kg_keeps_the_snapshot_that_reads_and_names_the_ones_lost(tmp_path: Path) -> None:
    home = tmp_path / "home"
    kg_db = home / "kg" / "kg.sqlite3"
    snapshots = _journal(kg_db)
    assert len(snapshots["b|proj"]) > 88_000
    with open(kg_db, "r+b") as handle:
        for letter in (b"A", b"C"):  # an overflow page of a|proj and of c|proj, chain pointer included
            handle.seek(_page_holding(kg_db, letter * 90, 2) * PAGE)
            handle.write((GARBAGE * 40)[:PAGE])
        handle.seek(_page_holding(kg_db, b"D" * 90, 1) * PAGE + 4)  # d|proj: zeros in its data, the chain intact
        handle.write(bytes(PAGE - 4))

    env = stack_env(home)
    repaired = cli(env, "repair", "--json", "--store", "kg")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    (entry,) = json.loads(repaired.stdout)["stores"]
    assert entry["repaired"] and Path(entry["set_aside"]).exists()
    assert entry["detail"]["snapshots_kept"] == 1
    assert sorted(entry["detail"]["snapshots_lost"]) == ["a|proj", "c|proj", "d|proj"]
    assert entry["detail"]["events_lost"] == [] and entry["detail"]["events_kept"] == 12
    assert any(all(scope in line for scope in ("a|proj", "c|proj", "d|proj")) for line in entry["lost"])

    from services.kg.journal import Journal

    journal = Journal(kg_db)
    try:
        snapshot, ops, _ = journal.load("b|proj")
        assert snapshot == json.loads(snapshots["b|proj"])  # the 89 KB snapshot, whole
        assert len(ops) == 3
        assert journal.load("a|proj")[0] is None and len(journal.load("a|proj")[1]) == 3
    finally:
        journal.close()

    # The text report says the same, with nothing to fix by hand.
    shutil.rmtree(home / "kg")
    _journal(kg_db)
    with open(kg_db, "r+b") as handle:
        handle.seek(_page_holding(kg_db, b"A" * 90, 2) * PAGE)
        handle.write((GARBAGE * 40)[:PAGE])
    text = cli(env, "repair", "--store", "kg")
    assert text.returncode == 0, text.stdout + text.stderr
    assert "could not keep: kg snapshots: kept 3 of 4" in text.stdout and "a|proj" in text.stdout


def _unprivileged(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as this user; as root, without the capabilities that let root ignore file modes."""
    command = [sys.executable, "-m", "mnemex.cli", *args]
    if os.geteuid() == 0:
        drop = "-dac_override,-dac_read_search"
        command = [str(shutil.which("setpriv")), f"--inh-caps={drop}", f"--bounding-set={drop}", *command]
    return subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=180, check=False)


needs_mode_checks = pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None,
    reason="root ignores file modes and setpriv (to drop CAP_DAC_OVERRIDE) is not installed",
)


@needs_mode_checks
def test_an_unreadable_store_is_named_with_the_chmod_that_fixes_it_and_nothing_is_moved(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed_home(home, rows=10, events=5)
    for path in (home, home / "kg", home / "chroma"):
        path.chmod(0o700)
    kg_db = home / "kg" / "kg.sqlite3"
    chroma = home / "chroma"
    kg_db.chmod(0o000)
    chroma.chmod(0o000)
    env = stack_env(home)
    try:
        answer = _unprivileged(env, "repair", "--json")
        text = _unprivileged(env, "repair")
    finally:
        chroma.chmod(0o700)
        kg_db.chmod(0o600)
    for run in (answer, text):
        assert run.returncode == 1, run.stdout + run.stderr
        assert "Traceback" not in run.stdout + run.stderr
    report = {entry["store"]: entry for entry in json.loads(answer.stdout)["stores"]}
    assert report["kg"]["fix"] == f"chmod u+rw {kg_db}" and f"chmod u+rw {kg_db}" in report["kg"]["problem"]
    assert report["chroma"]["fix"] == f"chmod -R u+rwX {chroma}"
    assert report["kg"]["set_aside"] is None and report["chroma"]["set_aside"] is None
    assert "nothing was moved aside" in report["kg"]["problem"]
    assert f"fix: chmod u+rw {kg_db}" in text.stdout
    assert not list(home.rglob("*.corrupt-*"))  # nothing set aside
    assert report["state"]["problem"] is None  # the readable store is left alone

    # The file itself is whole: once the mode is fixed, nothing needs repairing.
    fixed = _unprivileged(env, "repair", "--json")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert all(entry["problem"] is None for entry in json.loads(fixed.stdout)["stores"])

    # The home itself closed: named before anything inside it is read.
    home.chmod(0o000)
    try:
        closed = _unprivileged(env, "repair", "--json")
    finally:
        home.chmod(0o700)
    assert closed.returncode == 1 and "Traceback" not in closed.stdout + closed.stderr
    answer_home = json.loads(closed.stdout)
    assert answer_home["fix"] == f"chmod -R u+rwX {home}" and "the mnemex home cannot be opened" in answer_home["error"]
    assert not list(home.rglob("*.corrupt-*"))


@needs_mode_checks
@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_store_owned_by_another_user_is_named_with_the_chown_that_fixes_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed_home(home, rows=10, events=5)
    kg_db = home / "kg" / "kg.sqlite3"
    kg_db.chmod(0o600)
    os.chown(kg_db, 65534, 65534)  # as after a `sudo` run by another account
    answer = _unprivileged(stack_env(home), "repair", "--json", "--store", "kg")
    assert answer.returncode == 1 and "Traceback" not in answer.stdout + answer.stderr
    (entry,) = json.loads(answer.stdout)["stores"]
    assert entry["fix"] == f"sudo chown root:root {kg_db}" and entry["set_aside"] is None
    assert not list(home.rglob("*.corrupt-*"))
