"""The packages OpenCode installs for mnemex's plugin, and their removal when nothing else needs them.

When OpenCode finds a plugin in ``~/.config/opencode/plugins`` it installs
``@opencode-ai/plugin`` into ``~/.config/opencode`` (``package.json``, a lock
file, ``node_modules``, a ``.gitignore``): about 64 MB. ``init`` records which
of those names existed before (:func:`snapshot`, kept in the manifest).

``uninit`` (:func:`clean_up`) removes the ones that appeared after ``init``,
but only while they still serve mnemex's plugin alone: no other plugin file
sits beside it, and ``package.json`` lists nothing but the package OpenCode
adds for plugins. A plugin added later, with its own dependencies, shares
those files; then all of them stay, and the result says why. Whatever
existed before ``init`` is never touched.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

DEPENDENCY_NAMES = ("package.json", "bun.lock", "bun.lockb", "package-lock.json", "node_modules", ".gitignore")
# What OpenCode itself adds to a config folder with plugins; mnemex's plugin imports nothing else.
PLUGIN_PACKAGES = frozenset({"@opencode-ai/plugin"})
PLUGIN_DIRS = ("plugins", "plugin")
PLUGIN_SUFFIXES = (".ts", ".js", ".mjs", ".cjs", ".mts", ".cts", ".tsx", ".jsx")
DEPENDENCY_KEYS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


@dataclass
class Cleanup:
    removed: list[Path] = field(default_factory=list)  # removed (or, in a dry run, to be removed)
    kept: list[Path] = field(default_factory=list)  # appeared after init but shared with something else
    reason: str = ""  # why ``kept`` stays

    def notes(self, dry_run: bool) -> list[str]:
        verb = "would remove" if dry_run else "removed"
        lines = [f"{verb} {path} (OpenCode installed it for mnemex's plugin)" for path in self.removed]
        if self.kept:
            names = ", ".join(path.name for path in self.kept)
            lines.append(f"left {names} in {self.kept[0].parent}: {self.reason}")
        return lines


def snapshot(config_dir: Path) -> list[str]:
    """The dependency files and folders present in ``config_dir`` now."""
    return [name for name in DEPENDENCY_NAMES if _present(config_dir / name)]


def other_plugins(config_dir: Path, ours: Path) -> list[str]:
    """The plugin files in ``config_dir`` other than ``ours``, relative to it."""
    found = []
    for folder in PLUGIN_DIRS:
        directory = config_dir / folder
        if not directory.is_dir():
            continue
        for path in sorted(directory.rglob("*")):
            if path.suffix in PLUGIN_SUFFIXES and path != ours and "node_modules" not in path.parts:
                found.append(str(path.relative_to(config_dir)))
    return found


def declared_packages(config_dir: Path) -> set[str] | None:
    """Every package ``package.json`` lists (empty when there is none); None when it cannot be read."""
    path = config_dir / "package.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return set()
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    names: set[str] = set()
    for key in DEPENDENCY_KEYS:
        section = data.get(key) or {}
        if not isinstance(section, dict):
            return None
        names.update(section)
    return names


def shared_by(config_dir: Path, ours: Path, existed_before: list[str]) -> str:
    """Why the dependency files serve more than mnemex's plugin ("" when they serve it alone)."""
    if "package.json" in existed_before:
        return "package.json was there before mnemex, so they belong to it"
    others = other_plugins(config_dir, ours)
    if others:
        return f"another OpenCode plugin uses them ({', '.join(others)}); OpenCode installs @opencode-ai/plugin for it"
    declared = declared_packages(config_dir)
    if declared is None:
        return "package.json could not be read, so mnemex cannot tell who else needs them"
    foreign = sorted(declared - PLUGIN_PACKAGES)
    if foreign:
        return f"package.json also lists {', '.join(foreign)}, which mnemex did not add"
    return ""


def clean_up(config_dir: Path, ours: Path, existed_before: list[str], dry_run: bool = False) -> Cleanup:
    """Remove the dependency files that appeared after ``init``, unless something else shares them."""
    caused = [config_dir / name for name in DEPENDENCY_NAMES if name not in existed_before]
    caused = [path for path in caused if _present(path)]
    if not caused:
        return Cleanup()
    reason = shared_by(config_dir, ours, existed_before)
    if reason:
        return Cleanup(kept=caused, reason=reason)
    if not dry_run:
        for path in caused:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    return Cleanup(removed=caused)


def _present(path: Path) -> bool:
    return path.exists() or path.is_symlink()
