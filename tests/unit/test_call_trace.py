"""CallTrace, the checker behind tests/integration/memory/test_prompt_path.py, can fail."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path

import pytest

from tests.support.call_trace import CallTrace, Entry, first_component, layer_violations

RANK = {"api": 1, "storage": 0}

FILES = {
    "layered_pkg/__init__.py": "",
    "layered_pkg/api/__init__.py": "",
    "layered_pkg/storage/__init__.py": "",
    "layered_pkg/storage/queue.py": "async def run_later(make):\n    return await make()\n",
    "layered_pkg/api/use_case.py": (
        "from layered_pkg.storage import queue\n\n"
        "async def callback():\n    return 1\n\n"
        "async def handle():\n    return await queue.run_later(callback)\n"
    ),
}


def test_a_lower_layer_calling_back_up_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    use_case = importlib.import_module("layered_pkg.api.use_case")
    try:
        trace = CallTrace(tmp_path / "layered_pkg")
        assert asyncio.run(trace.run(use_case.handle)) == 1
    finally:
        for name in [m for m in sys.modules if m.startswith("layered_pkg")]:
            del sys.modules[name]

    assert trace.modules() == ["api/use_case.py", "storage/queue.py"]
    assert trace.upward_calls(lambda m: RANK[first_component(m)]) == [
        Entry("api/use_case.py", "callback", "storage/queue.py")
    ]
    assert trace.revisits() == 1  # api -> storage -> back into api
    assert trace.layer_walk(first_component) == ["api", "storage", "api"]


def test_the_layer_checker_flags_storage_calling_retrieval() -> None:
    """A made-up trace: transport -> usecases -> retrieval -> storage, then storage calls into retrieval."""
    layers = {"domain": 0, "storage": 1, "retrieval": 2, "usecases": 3, "transport": 4}
    entries = [
        Entry("transport/prompt_rpcs.py", "PrepareContext", None),
        Entry("usecases/prepare_context.py", "select", "transport/prompt_rpcs.py"),
        Entry("retrieval/searcher.py", "search", "usecases/prepare_context.py"),
        Entry("storage/collection_mirror.py", "put", "retrieval/searcher.py"),
        Entry("retrieval/lexical.py", "add", "storage/collection_mirror.py"),  # the upward call
        Entry("domain/ranking.py", "learned_score", "storage/collection_mirror.py"),
        Entry("transport/prompt_rpcs.py", "PrepareContext", None),  # resumed by the event loop
    ]
    rank = lambda module: layers[first_component(module)]  # noqa: E731
    assert layer_violations(entries, rank) == ["storage/collection_mirror.py -> retrieval/lexical.py:add"]
    assert layer_violations([e for e in entries if e.function != "add"], rank) == []
