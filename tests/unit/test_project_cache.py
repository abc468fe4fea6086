"""CachedResolver: the gateway's per-prompt project lookup, without stale answers that matter."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel import projects


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def repo(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root


def test_answers_as_resolve_does_and_reuses_the_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, root = tmp_path / "home", repo(tmp_path, "app")
    cached = projects.CachedResolver(home, clock=Clock())
    expected = projects.resolve(root / "src", home)
    assert cached(str(root / "src")) == expected and cached(None) == projects.DEFAULT_PROJECT
    calls: list[object] = []

    def walked(cwd: str | None, home: Path) -> str:
        calls.append(cwd)
        return "walked"

    monkeypatch.setattr(projects, "resolve", walked)
    assert cached(str(root / "src")) == expected and calls == []  # no filesystem walk the second time


def test_a_new_binding_takes_effect_on_the_next_call(tmp_path: Path) -> None:
    home, root = tmp_path / "home", repo(tmp_path, "app")
    cached = projects.CachedResolver(home, clock=Clock())
    before = cached(str(root / "src"))
    projects.save_bindings(home, {str(root): "billing"})
    assert before != "billing" and cached(str(root / "src")) == "billing"
    projects.save_bindings(home, {})
    assert cached(str(root / "src")) == before


def test_a_new_git_root_is_seen_after_the_ttl(tmp_path: Path) -> None:
    home, outer = tmp_path / "home", repo(tmp_path, "outer")
    inner = outer / "src" / "vendored"
    inner.mkdir()
    clock = Clock()
    cached = projects.CachedResolver(home, ttl=10.0, clock=clock)
    first = cached(str(inner))
    (inner / ".git").mkdir()  # `git init` in a subdirectory
    clock.now += 5
    assert cached(str(inner)) == first
    clock.now += 6
    assert cached(str(inner)) == projects.resolve(inner, home) != first


def test_the_cache_stays_bounded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cached = projects.CachedResolver(home, max_entries=3, clock=Clock())
    for i in range(10):
        (tmp_path / f"d{i}").mkdir()
        cached(str(tmp_path / f"d{i}"))
    assert len(cached._entries) == 3 and str(tmp_path / "d9") in cached._entries
