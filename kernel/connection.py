"""The connection file: which stack a client's hooks and MCP server belong to.

``mnemex init`` writes ``connection.json`` (mode 0600) into the client folder it
installs the hooks in, recording the stack it was configured for: every
``MNEMEX_*`` setting of its environment (home, addresses, token, user) and the
command that starts that stack. Clients start hooks and MCP servers with
whatever environment they like (the MCP SDK's default passes only HOME, PATH,
SHELL, TERM, USER and LOGNAME), so the file is how those processes find the
user's stack rather than a default one.

Rule: the file applies only to a process whose environment names no mnemex
home (``MNEMEX_HOME`` unset). An environment that sets a home describes its own
stack (a test, a benchmark, a second deployment) and is never mixed with the
file. Where it applies, a variable already set in the environment still wins.

Where: ``<mnemex home>/client/connection.json``, beside the hook copies in
``<mnemex home>/client/hooks/`` (``mnemex.client_setup.hook_install`` writes
both). MCP entries name it in ``MNEMEX_CONNECTION_FILE``; the hooks read it
as ``../connection.json`` with the standard library (``hooks/hook_client``,
which keeps its own copy of ``NOT_RECORDED``); this module is the reader for
everything else (``mnemex mcp`` applies it before reading its settings).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path

from kernel.json_values import parse_value

FILE_NAME = "connection.json"
FILE_VARIABLE = "MNEMEX_CONNECTION_FILE"
VERSION = 1
# Settings that belong to the user's shell or to one process, never to the stack record.
NOT_RECORDED = frozenset({FILE_VARIABLE, "MNEMEX_PROJECT_DIR", "MNEMEX_LOG_LEVEL"})


@dataclass(frozen=True)
class Connection:
    env: dict[str, str] = field(default_factory=dict)
    start_command: tuple[str, ...] = ()

    def to_json(self) -> str:
        data = {"version": VERSION, "env": dict(sorted(self.env.items())), "start_command": list(self.start_command)}
        return json.dumps(data, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Connection:
        data = parse_value(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        env = data.get("env") or {}
        command = data.get("start_command") or []
        if not isinstance(env, dict) or not isinstance(command, list):
            raise ValueError("env must be an object and start_command a list")
        return cls(
            env={str(k): str(v) for k, v in env.items() if str(k).startswith("MNEMEX_")},
            start_command=tuple(str(part) for part in command),
        )


def recorded_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The ``MNEMEX_*`` settings of ``environ`` that describe a stack."""
    return {k: v for k, v in environ.items() if k.startswith("MNEMEX_") and k not in NOT_RECORDED and v}


def client_dir(data_dir: Path) -> Path:
    """Where ``init`` puts the hooks and this file: ``<user data dir>/client``."""
    return data_dir / "client"


def file_path(environ: Mapping[str, str]) -> Path | None:
    """``MNEMEX_CONNECTION_FILE``, else the file in the default client folder."""
    value = environ.get(FILE_VARIABLE, "").strip()
    if value:
        return Path(value)
    from kernel.config import default_home

    try:
        return client_dir(default_home()) / FILE_NAME
    except Exception:  # no usable home directory: nothing to read
        return None


def load(path: Path) -> Connection | None:
    """The connection in ``path``; None when it is missing or unreadable (a broken file never stops a client)."""
    try:
        return Connection.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def apply(environ: MutableMapping[str, str]) -> Connection | None:
    """Fill unset ``MNEMEX_*`` variables of ``environ`` from its connection file, per the rule above."""
    if environ.get("MNEMEX_HOME"):
        return None
    path = file_path(environ)
    connection = load(path) if path is not None else None
    if connection is None:
        return None
    for key, value in connection.env.items():
        if not environ.get(key):
            environ[key] = value
    return connection


def apply_to_process() -> Connection | None:
    return apply(os.environ)
