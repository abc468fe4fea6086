"""The packages OpenCode installs for mnemex's plugin, and their removal.

When OpenCode finds a plugin in ``~/.config/opencode/plugins`` it installs
``@opencode-ai/plugin`` into ``~/.config/opencode`` (``package.json``, a lock
file, ``node_modules``, a ``.gitignore``): about 64 MB that exist only because
mnemex added its plugin. ``init`` records which of those names existed before
(:func:`snapshot`); ``uninit`` removes the ones that did not (:func:`remove_caused`),
and leaves alone whatever the user had before.
"""

from __future__ import annotations

import shutil
from pathlib import Path

DEPENDENCY_NAMES = ("package.json", "bun.lock", "bun.lockb", "package-lock.json", "node_modules", ".gitignore")


def snapshot(config_dir: Path) -> list[str]:
    """The dependency files and folders present in ``config_dir`` now."""
    return [name for name in DEPENDENCY_NAMES if (config_dir / name).exists() or (config_dir / name).is_symlink()]


def remove_caused(config_dir: Path, existed_before: list[str], dry_run: bool = False) -> list[Path]:
    """Remove the dependency files that appeared after ``init``; return what was (or would be) removed."""
    removed = []
    for name in DEPENDENCY_NAMES:
        path = config_dir / name
        if name in existed_before or not (path.exists() or path.is_symlink()):
            continue
        removed.append(path)
        if dry_run:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    return removed
