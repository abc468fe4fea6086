"""A user of the e2e suite, and the CLI and file helpers its tests share.

A *user* is a temporary ``HOME`` with a project folder (a git repository) in it,
into which ``mnemex init`` was run by the real CLI under the stack's
environment, the way a user sets mnemex up once from the shell where the stack
lives. The clients then run with ``HOME`` alone (see ``real_clients.base_env``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from pydantic import BaseModel

from gateway.reply_models import MemoryOut, SearchHitOut, SearchOut, StoredFactOut
from tests.support.stack import ROOT, Stack


def mnemex_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mnemex.cli", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@dataclass
class User:
    home: Path
    project: Path
    stack: Stack

    @property
    def shell_env(self) -> dict[str, str]:
        """The user's shell: the stack's settings and this HOME."""
        return {**self.stack.env, "HOME": str(self.home)}

    def init(self, clients: str, *extra: str) -> str:
        done = mnemex_cli(["init", "--client", clients, *extra], self.shell_env)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def uninit(self, clients: str) -> str:
        done = mnemex_cli(["uninit", "--client", clients], self.shell_env)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def add_fact(self, content: str, *, user_wide: bool = False) -> str:
        body = {"content": content, "cwd": str(self.project), "user_wide": user_wide}
        reply = self.stack.post("/api/memory-bank/add", body)
        return StoredFactOut.model_validate(reply).memory.id

    def memory(self, memory_id: str) -> MemoryOut:
        return MemoryOut.model_validate(self.stack.get(f"/api/memories/{memory_id}?cwd={quote(str(self.project))}"))

    def exchanges(self) -> list[SearchHitOut]:
        """Stored exchanges of this user's project, newest first (scored ones may have been promoted)."""
        reply = self.stack.post(
            "/api/search",
            {
                "collections": ["working", "history", "patterns"],
                "cwd": str(self.project),
                "days_back": 1,
                "limit": 50,
                "sort_by": "recency",
            },
        )
        return SearchOut.model_validate(reply).memories


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` and its bytes, to compare configs before and after."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def dump(value: object) -> str:
    return json.dumps(value, indent=1, default=_as_json)[:4000]


def _as_json(value: object) -> object:
    """A reply model as the JSON it came from (for ``dump``)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_unset=True)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
