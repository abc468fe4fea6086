"""``mnemex uninstall``: take mnemex off this machine before removing the package.

Stops the stack, removes every client entry ``init`` made (hooks, MCP servers,
tool permissions, the OpenCode plugin, and the packages OpenCode installed for
it when no other plugin shares them), and, with ``--delete-data`` or a yes at
the prompt, the data folder and the model cache. Files mnemex only added
entries to keep everything else. It prints what it did (``--json`` for
scripts: ``removed`` lists deleted paths, ``cleaned`` the files mnemex's
entries were taken out of). Then the package itself goes with
``pipx uninstall mnemex`` (or pip/uv).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import TypedDict

import typer

from mnemex.cli.output import escape, fail, out, print_json
from mnemex.cli.settings import load_settings

app = typer.Typer()


class UninstallReport(TypedDict):
    """What ``mnemex uninstall --json`` prints."""

    stopped: int | None  # the supervisor's pid
    removed: list[str]
    cleaned: list[str]
    notes: list[str]
    data: str | None  # deleted | kept
    kept: list[str]


def model_cache_dir(environ: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """Where the embedding service caches its ONNX graphs (MNEMEX_MODEL_CACHE, else <cache home>/mnemex)."""
    explicit = environ.get("MNEMEX_MODEL_CACHE")
    if explicit:
        return Path(explicit)
    return Path(environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")) / "mnemex"


def _delete(path: Path) -> bool:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
        return True
    if path.exists() or path.is_symlink():
        path.unlink()
        return True
    return False


def _wants_data_deleted(delete_data: bool | None, json_output: bool, home: Path) -> bool:
    if delete_data is not None:
        return delete_data
    if json_output or not sys.stdin.isatty():
        return False  # no one to ask: keep the data (say so in the report)
    return typer.confirm(f"Also delete mnemex's data ({home}) and model cache? They cannot be recovered.", False)


@app.command(epilog="Example: mnemex uninstall --delete-data --json")
def uninstall(
    delete_data: bool | None = typer.Option(
        None,
        "--delete-data/--keep-data",
        help="Also delete the data folder and model cache (default: ask; keep without a terminal).",
        show_default=False,
    ),
    json_output: bool = typer.Option(False, "--json", help="Print what was removed as JSON."),
) -> None:
    """Stop the stack and remove everything `mnemex init` added to Claude Code, Cursor and OpenCode.

    Run it before uninstalling the package (pipx uninstall mnemex), so no hook or
    MCP entry is left pointing at a deleted install.
    """
    from mnemex import client_setup
    from mnemex.supervisor import control

    settings = load_settings()
    report: UninstallReport = {"stopped": None, "removed": [], "cleaned": [], "notes": [], "data": None, "kept": []}
    lines: list[str] = []  # what was done, in words, in order
    report["stopped"] = control.down(settings)
    try:
        result = client_setup.uninit(Path.home(), clients=client_setup.CLIENTS)
    except client_setup.SetupError as exc:
        fail(f"{exc}; nothing else was removed")
    for change in (c for c in result.changes if c.changed):
        (report["removed"] if change.deleted else report["cleaned"]).append(str(change.path))
        lines.append(change.outcome(dry_run=False))
    for folder in (f for f in result.folders if f.remove and f.changed):
        report["removed"].append(str(folder.directory))
        lines.append(f"removed the hook scripts and connection file in {folder.directory}")
    for path in result.removed_backups:
        report["removed"].append(str(path))
        lines.append(f"removed {path} (the backup init made; no longer needed)")
    report["notes"] = list(result.notes) + [f"{c} left unchanged: {why}" for c, why in result.skipped.items()]
    if _wants_data_deleted(delete_data, json_output, settings.home):
        deleted = [str(path) for path in (settings.home, model_cache_dir()) if _delete(path)]
        report["data"] = "deleted"
        report["removed"] += deleted
        lines += [f"removed {path}" for path in deleted]
    else:
        report["data"] = "kept"
        report["kept"] = [str(path) for path in (settings.home, model_cache_dir()) if path.exists()]
    if json_output:
        print_json(report)
    else:
        if report["stopped"]:
            out.print(f"stopped the stack (supervisor pid {report['stopped']})")
        for line in lines:
            out.print(escape(line))
        for note in report["notes"]:
            out.print(f"note: {escape(note)}")
        if report["data"] == "kept":
            cache = str(model_cache_dir())
            kept = [f"{'the model cache' if p == cache else 'the data'} in {escape(p)}" for p in report["kept"]]
            if kept:
                out.print(f"kept {' and '.join(kept)} (delete them with: mnemex uninstall --delete-data)")
        out.print("mnemex is off this machine's clients; remove the package with: pipx uninstall mnemex")
    if result.skipped:
        raise typer.Exit(1)
