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

from kernel.json_values import JSONObject, JSONValue, parse_value
from mnemex.client_setup.jsonc import JsoncError, has_comments, parse_document
from mnemex.client_setup.jsonc_edit import EditFailed, patch


class SetupError(Exception):
    """A config file cannot be merged safely; the message says what to do."""


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {exc.strerror}. Check its permissions.") from exc


def parse_object(path: Path, text: str | None, *, jsonc: bool = False) -> JSONObject:
    """The JSON object in ``text`` ({} for a missing or blank file).

    ``jsonc``: the file may be JSON with comments and trailing commas (OpenCode's
    config); ``mnemex.client_setup.jsonc_edit`` changes such a file keeping them.
    """
    if text is None or not text.strip():
        return {}
    data: JSONValue
    if jsonc:
        try:
            data = parse_document(text).value
        except JsoncError as exc:
            raise SetupError(
                f"{path} is not valid JSONC (line {exc.line}, column {exc.column}: {exc.message}). "
                "mnemex changed nothing. Fix the file there (comments and trailing commas are fine), "
                "or move it aside, then run the command again."
            ) from exc
    else:
        try:
            data = parse_value(text)
        except json.JSONDecodeError as exc:
            raise SetupError(
                f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}). "
                "mnemex changed nothing. Fix the file there (comments are not allowed in it), "
                "or move it aside, then run the command again."
            ) from exc
    if not isinstance(data, dict):
        raise SetupError(f"{path} holds a JSON {type(data).__name__}, expected an object; fix or move it aside.")
    return data


def render_object(path: Path, before: str | None, data: JSONObject, *, jsonc: bool = False) -> str:
    """The text of ``path`` holding ``data``.

    JSONC (``jsonc``): ``before`` edited in place, so comments and layout stay. Plain JSON, which
    cannot hold comments, is written out afresh (two-space indent).
    """
    if not jsonc or before is None or not before.strip():
        return dump_object(data)
    try:
        return patch(before, data)
    except EditFailed as exc:
        if not has_comments(before):
            return dump_object(data)
        raise SetupError(
            f"{path}: mnemex could not change its entries without losing the comments in this file, "
            "so it changed nothing. Move the comments away from mnemex's entries, then run the command again."
        ) from exc


def dump_object(data: JSONObject) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def backup_path(path: Path, now: float | None = None) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(now))
    candidate = path.with_name(f"{path.name}.mnemex-backup-{stamp}")
    counter = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.mnemex-backup-{stamp}-{counter}")
        counter += 1
    return candidate


def file_mode(path: Path, default: int = 0o644) -> int:
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        return default


def write_atomic(path: Path, text: str, mode: int | None = None) -> None:
    """Write via a temp file + rename, so a crash never leaves half a config.

    ``mode``: the file's permissions (default: the existing file's, else 0644). The
    temp file is created 0600 and only then widened, so the text is never more
    readable than ``mode`` at any moment.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = file_mode(path) if mode is None else mode
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
    """Save ``text`` (the file's content before a change) beside ``path``, as private as the original.

    The backup gets the original's mode (0600 for ``~/.claude.json``, which holds
    tokens), never wider; 0600 when the original is gone.
    """
    target = backup_path(path)
    write_atomic(target, text, mode=file_mode(path, 0o600))
    return target
