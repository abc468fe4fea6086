"""The deterministic reading of memory_bank facts, and when a newer one supersedes an older one."""

from __future__ import annotations

import pytest

from services.memory.domain.fact_keys import Conflict, FactKey, conflict, fact_key


@pytest.mark.parametrize(
    ("text", "entity", "attribute", "value"),
    [
        ("Default branch: main", "default branch", "", "main"),
        ("MNEMEX_PORT = 8420", "mnemex_port", "", "8420"),
        ("The user's editor is VS Code.", "user", "editor", "vs code"),
        ("The deploy target for billing is the Frankfurt cluster", "billing", "deploy target", "frankfurt cluster"),
        ("The billing service is written in Go", "billing service", "written in", "go"),
        ("The staging database port is now 6543. It moved in May.", "staging database port", "is", "6543"),
        ("The billing API uses Postgres 14", "billing api", "use", "postgres 14"),
        ("Our team runs on Kubernetes", "team", "run on", "kubernetes"),
    ],
)
def test_patterns(text: str, entity: str, attribute: str, value: str) -> None:
    key = fact_key(text)
    assert key is not None
    assert (key.entity, key.attribute, key.value) == (entity, attribute, value)


@pytest.mark.parametrize(
    "text",
    [
        "The user is a data scientist",  # class membership
        "The user does not use vim",  # negation
        "The staging port is no longer 5432",
        "Goal: ship the billing rewrite",  # a kind of remark, not a setting
        "Remember to run the migrations before deploying anything to production",  # no pattern
        "The user uses " + " ".join(["word"] * 20),  # a value that long is prose
        "",
    ],
)
def test_no_key(text: str) -> None:
    assert fact_key(text) is None


def conflict_of(older: str, newer: str) -> Conflict | None:
    return conflict(fact_key(older), fact_key(newer))


def test_single_valued_attributes_supersede() -> None:
    assert conflict_of("The staging database port is 5432", "The staging database port is 6543") is Conflict.SUPERSEDE
    assert conflict_of("The user's editor is vim", "The user's editor is VS Code") is Conflict.SUPERSEDE
    assert conflict_of("Default branch: main", "default branch: develop") is Conflict.SUPERSEDE


def test_verb_forms_supersede_only_a_new_variant_of_the_same_thing() -> None:
    assert conflict_of("The billing API uses Postgres 14", "The billing API uses Postgres 16") is Conflict.SUPERSEDE
    assert conflict_of("The user uses vim", "The user uses Python") is Conflict.POSSIBLE
    assert conflict_of("The user prefers tabs", "The user prefers dark mode") is Conflict.POSSIBLE


def test_a_one_word_subject_is_only_a_possible_conflict() -> None:
    assert conflict_of("The user is left-handed", "The user is based in Berlin") is None  # different attributes
    assert conflict_of("The user is tired", "The user is happy") is Conflict.POSSIBLE


def test_no_conflict() -> None:
    assert conflict_of("The staging port is 5432", "The staging port is 5432.") is None  # same value
    assert conflict_of("The billing service is written in Go", "The billing service is deployed with Helm") is None
    assert conflict_of("Default branch: main", "The user uses vim") is None
    assert conflict(None, FactKey("a", "", "b", True)) is None
