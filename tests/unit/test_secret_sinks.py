"""Places other than memory content where a secret could be written: project ids, the kg journal,
log lines and session ids. Each is checked on the real component (real paths, a real SQLite journal,
the real log formatter)."""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from kernel import projects
from kernel.logs import SafeFormatter
from services.kg.journal import Journal
from services.kg.keys import Outcome
from services.kg.store import KgStore, ScopeKey
from services.memory.usecases.turn_recording import check_session_id
from tests.support.secrets_corpus import SECRETS

TOKEN = next(s for s in SECRETS if s.name == "github-pat-classic").needle
KEYED = next(s for s in SECRETS if s.name == "password-short")


def old_formula(root: Path) -> str:
    """The id every existing project was stored under: slug of the root's name + sha1 of its path."""
    return f"{projects.slug(root.name)}-{hashlib.sha1(str(root).encode()).hexdigest()[:8]}"


def test_a_token_in_a_directory_name_never_reaches_the_project_id(tmp_path: Path) -> None:
    folder = tmp_path / TOKEN
    folder.mkdir()
    for project in (projects.resolve(folder, tmp_path / "home"), projects.resolve_remote(str(folder), tmp_path)):
        assert TOKEN.lower()[:20] not in project.lower() and "ghp" not in project, project


def test_ordinary_paths_keep_the_ids_their_data_is_stored_under(tmp_path: Path) -> None:
    repo = tmp_path / "billing-api"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    plain = tmp_path / "scratch notes"
    plain.mkdir()
    home = tmp_path / "home"
    assert projects.resolve(repo / "src", home) == old_formula(repo.resolve())
    assert projects.resolve(plain, home) == old_formula(plain.resolve())


def test_a_remote_cwd_is_never_resolved_on_the_servers_filesystem(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = tmp_path / "app"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    # no walk up to the server's .git: the path names a directory on the user's machine
    assert projects.resolve_remote(str(repo / "src"), home) == old_formula(repo / "src")
    assert projects.resolve(repo / "src", home) == old_formula(repo.resolve())
    # no /proc/self/cwd or ~user resolution: the id is the string's, not the server directory's
    probe = projects.resolve_remote("/proc/self/cwd", home)
    assert probe == old_formula(Path("/proc/self/cwd"))
    assert probe != projects.resolve(Path.cwd(), home)
    assert projects.resolve_remote("~root/app", home) == old_formula(Path("~root/app"))
    assert projects.resolve_remote("/srv/a/./b/../c/", home) == old_formula(Path("/srv/a/c"))


def test_a_remote_user_keeps_the_id_an_absolute_path_had_before(tmp_path: Path) -> None:
    """Before, the server resolved a remote user's path; one that does not exist on it resolved to itself."""
    missing = "/srv/remote-users/bob/checkout"
    assert not os.path.exists(missing)
    assert projects.resolve_remote(missing, tmp_path) == projects.resolve(missing, tmp_path)


def test_bindings_apply_to_a_remote_cwd_by_its_text(tmp_path: Path) -> None:
    projects.save_bindings(tmp_path, {"/srv/team/app": "team-app"})
    assert projects.resolve_remote("/srv/team/app/src", tmp_path) == "team-app"


def test_the_kg_journal_and_its_snapshots_never_hold_a_secret(tmp_path: Path) -> None:
    path = tmp_path / "kg" / "kg.sqlite3"
    store = KgStore(Journal(path), snapshot_every=3)
    scope = ScopeKey("tester", "billing")
    for number in range(4):
        store.record_outcome(
            scope,
            concepts=["deploy", TOKEN],
            collections=["history"],
            doc_ids=[f"history_{number}"],
            outcome=Outcome.WORKED,
            problem=f"deploy failed until {KEYED.text}",
            failure_reason=f"pushed with {TOKEN}",
        )
    store.index_fact(scope, "memory_bank_1", f"The CI bot authenticates with {TOKEN} via {KEYED.text}")
    store.close()
    raw = b"".join(p.read_bytes() for p in path.parent.iterdir() if p.is_file())
    assert b"REDACTED" in raw, "the journal was written"
    assert TOKEN.encode() not in raw and TOKEN.lower().encode() not in raw
    assert KEYED.needle.encode() not in raw


def test_a_log_line_never_holds_a_secret() -> None:
    formatter = SafeFormatter("%(levelname)s %(message)s")
    record = logging.LogRecord("mnemex.test", logging.WARNING, __file__, 1, "push failed for %s", (TOKEN,), None)
    line = formatter.format(record)
    assert TOKEN not in line and "[REDACTED:github-token]" in line


def test_a_session_id_is_stored_redacted() -> None:
    assert TOKEN not in check_session_id(f"  {TOKEN}  ")
    assert check_session_id("3f1a2b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b") == "3f1a2b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
