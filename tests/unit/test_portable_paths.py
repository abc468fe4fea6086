"""No file of the repository names a path of one particular machine.

Code, docs and defaults reach what lies beside the checkout relative to the
repository root (``../shared/...``) or through a setting. The scan covers every
tracked text file and looks for this checkout's own absolute location, the
folder beside it, and the home of the root user.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP_SUFFIXES = {".png", ".jpg", ".pdf", ".onnx", ".bin", ".gz", ".zip", ".pyc"}


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, timeout=60)
    if listed.returncode != 0:  # not a git checkout (an unpacked archive): scan the source folders
        return [
            p
            for folder in ("kernel", "services", "gateway", "mnemex", "hooks", "bench", "tests", "scripts")
            for p in (ROOT / folder).rglob("*")
            if p.is_file()
        ]
    return [ROOT / name for name in listed.stdout.decode().split("\0") if name]


def machine_paths() -> list[str]:
    return sorted({str(ROOT), str(ROOT.parent / "shared"), "/work/main", "/work/shared", "/root/"})


def offending_lines(path: Path, needles: list[str]) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return []
    return [
        f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{number}: {line.strip()[:120]}"
        for number, line in enumerate(text.splitlines(), start=1)
        if any(needle in line for needle in needles)
    ]


def test_no_tracked_file_names_a_path_of_this_machine() -> None:
    files = [p for p in tracked_files() if p.suffix not in SKIP_SUFFIXES and p.resolve() != Path(__file__).resolve()]
    assert len(files) > 100
    found = [line for path in files for line in offending_lines(path, machine_paths())]
    assert found == []


def test_the_scan_finds_a_planted_path(tmp_path: Path) -> None:
    planted = tmp_path / "notes.md"
    planted.write_text(f"fine line\ndata at {ROOT.parent / 'shared'}/data/locomo\n", encoding="utf-8")
    assert offending_lines(planted, machine_paths()) == [f"{planted}:2: data at {ROOT.parent / 'shared'}/data/locomo"]
