"""A wheel of this checkout, built offline, and commands run with a clean environment (no MNEMEX_ or venv
variables leaking in): shared by the wheel-install test and `bench/bench_install.py`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("kernel", "mnemex", "services", "gateway", "hooks", "protos")


def clean_env(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("MNEMEX_", "XDG_", "PYTHON", "VIRTUAL_ENV"))}
    return {**keep, **extra}


def run(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=clean_env(**extra), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done


def build_wheel(tmp_path: Path) -> Path:
    source = tmp_path / "src"
    source.mkdir()
    for name in PACKAGES:
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    out = tmp_path / "dist"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(out),
            ".",
        ],
        cwd=source,
    )
    (wheel,) = out.glob("mnemex-*.whl")
    return wheel
