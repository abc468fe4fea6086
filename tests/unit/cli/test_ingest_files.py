from __future__ import annotations

import hashlib
from pathlib import Path

from mnemex.cli.ingest_files import MAX_BOOK_BYTES, collect


def test_directory_walk_classifies_files_and_skips_hidden(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / ".git").mkdir()
    (docs / "a.md").write_text("# A\nalpha")
    (docs / "sub" / "b.txt").write_text("beta")
    (docs / "image.png").write_bytes(b"\x89PNG")
    (docs / "empty.txt").write_text("")
    (docs / ".hidden.md").write_text("secret")
    (docs / ".git" / "config.txt").write_text("x")
    with open(docs / "huge.txt", "wb") as handle:
        handle.truncate(MAX_BOOK_BYTES + 1)
    items = {item.path.name: item for item in collect([docs])}
    assert sorted(items) == ["a.md", "b.txt", "empty.txt", "huge.txt", "image.png"]
    assert items["a.md"].ready and items["a.md"].title == "a"
    assert items["a.md"].sha256 == hashlib.sha256(b"# A\nalpha").hexdigest()
    assert "unsupported type (.png)" in items["image.png"].skip_reason
    assert "too large" in items["huge.txt"].skip_reason
    assert items["empty.txt"].skip_reason == "empty file"


def test_same_name_in_two_folders_gets_distinct_titles(tmp_path: Path) -> None:
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "notes.md").write_text(folder)
    titles = [item.title for item in collect([tmp_path])]
    assert titles == ["notes", "two/notes"]


def test_explicit_title_missing_file_and_duplicates(tmp_path: Path) -> None:
    file = tmp_path / "guide.md"
    file.write_text("text")
    items = collect([file, file, tmp_path / "nope.md"], title=None)
    assert [(i.title, i.skip_reason) for i in items] == [("guide", ""), ("nope", "no such file")]
    assert collect([file], title="Style Guide")[0].title == "Style Guide"
