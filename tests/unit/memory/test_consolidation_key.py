"""The consolidation key names one merged memory per set of sources (and per redo after an undo)."""

from __future__ import annotations

import pytest

from services.memory.domain.consolidation_key import consolidation_uid, same_sources
from services.memory.domain.naming import is_uid


def test_the_key_depends_on_the_set_of_sources_only() -> None:
    key = consolidation_uid(["111", "222", "333"])
    assert is_uid(key)
    assert consolidation_uid(["333", "111", "222", "111"]) == key
    assert consolidation_uid(["111", "222"]) != key
    assert consolidation_uid(["111", "222", "333"], attempt=1) != key


def test_a_negative_attempt_is_refused() -> None:
    with pytest.raises(ValueError, match="attempt"):
        consolidation_uid(["1"], attempt=-1)


def test_same_sources_ignores_order() -> None:
    assert same_sources(["b", "a"], ["a", "b"]) and not same_sources(["a"], ["a", "b"])
