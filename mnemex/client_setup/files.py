"""File I/O for client setup: read, parse, back up, write atomically.

Everything else in ``mnemex.client_setup`` is pure; this module is the
only one that touches the disk (besides the manifest).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any


class SetupError(Exception):
    """A config file cannot be merged safely; the message says what to do."""


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {exc.strerror}. Check its permissions.") from exc


def parse_object(path: Path, text: str | None) -> dict[str, Any]:
    """The JSON object in ``text`` ({} for a missing or blank file)."""
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SetupError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}). "
            "mnemex will not overwrite it: fix the file (comments are not allowed), "
            "or move it aside, then run the command again."
        ) from exc
    if not isinstance(data, dict):
        raise SetupError(f"{path} holds a JSON {type(data).__name__}, expected an object; fix or move it aside.")
    return data


def dump_object(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def backup_path(path: Path, now: float | None = None) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(now))
    candidate = path.with_name(f"{path.name}.mnemex-backup-{stamp}")
    counter = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.mnemex-backup-{stamp}-{counter}")
        counter += 1
    return candidate


def write_atomic(path: Path, text: str) -> None:
    """Write via a temp file + rename, so a crash never leaves half a config."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def make_backup(path: Path, text: str) -> Path:
    target = backup_path(path)
    write_atomic(target, text)
    return target
