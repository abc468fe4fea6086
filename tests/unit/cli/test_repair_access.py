"""The command `mnemex repair` names for a store this process may not open (issue 36, item 3)."""

from __future__ import annotations

import os
from pathlib import Path

from mnemex.repair.access import AccessProblem, access_problem, fix_command


def test_the_owner_is_told_to_chmod_and_anyone_else_to_chown() -> None:
    path = Path("/home/u/.mnemex/kg/kg.sqlite3")
    assert fix_command(path, 1000, folder=False, uid=1000, gid=1000) == f"chmod u+rw {path}"
    assert fix_command(path.parent, 1000, folder=True, uid=1000, gid=1000) == f"chmod -R u+rwX {path.parent}"
    chown = fix_command(path, 0, folder=False, uid=os.getuid(), gid=os.getgid()) if os.getuid() else ""
    if chown:
        assert chown.startswith("sudo chown ") and chown.endswith(str(path))
    assert fix_command(path, 4242, folder=False, uid=0, gid=0) == f"sudo chown root:root {path}"


def test_the_message_names_the_store_the_reason_and_the_fix() -> None:
    problem = AccessProblem(Path("/h/kg/kg.sqlite3"), "u may not read and write it (mode 000, owner u)", "chmod u+rw x")
    message = problem.message("kg store (kg.sqlite3)")
    assert message.startswith("kg store (kg.sqlite3) cannot be opened: u may not read and write it (mode 000")
    assert "`chmod u+rw x`" in message and "nothing was moved aside" in message


def test_a_readable_store_has_no_problem(tmp_path: Path) -> None:
    store = tmp_path / "kg" / "kg.sqlite3"
    store.parent.mkdir()
    store.write_bytes(b"")
    assert access_problem(store, tmp_path) is None
    assert access_problem(tmp_path / "chroma", tmp_path) is None  # not created yet
