"""Typed settings read whatever the wording (domain.fact_slots)."""

from __future__ import annotations

import pytest

from services.memory.domain.fact_keys import Conflict
from services.memory.domain.fact_slots import asserts_old_value, fact_conflict, slot

SAME_SETTING_OTHER_WORDS = [
    ("The staging database port is 5432", "Staging DB now listens on port 6543"),
    ("The API uses Postgres 14", "We upgraded the API database to Postgres 16"),
    ("We run Python 3.11 in CI", "CI now runs on Python 3.12"),
    ("Redis runs at localhost:6379", "Redis is now on port 6380"),
    ("The package registry is registry.acme.io", "Packages are now published to the pkgs.acme.dev registry"),
    ("The billing venv lives in ~/envs/billing", "The billing virtualenv moved to /opt/venvs/billing"),
]
DIFFERENT_SETTINGS = [
    ("The web server port is 8080", "The metrics port is 9090"),
    ("Step 3 of the deploy is manual", "Step 4 of the deploy is manual"),
    ("The user prefers dark mode", "The API port is 8000"),
    ("The API port is 8000", "The API port is 8000."),
    ("The staging port is not 5432", "The staging port is 6543"),
]


@pytest.mark.parametrize(("older", "newer"), SAME_SETTING_OTHER_WORDS)
def test_the_same_setting_in_other_words_is_a_contradiction(older: str, newer: str) -> None:
    assert fact_conflict(older, newer) is Conflict.SUPERSEDE


@pytest.mark.parametrize(("older", "newer"), DIFFERENT_SETTINGS)
def test_other_settings_and_unread_facts_are_not(older: str, newer: str) -> None:
    assert fact_conflict(older, newer) is None


def test_a_partly_shared_subject_is_only_possible() -> None:
    assert fact_conflict("The frontend builds with Node 18", "Build scripts need Node 20") is Conflict.POSSIBLE


def test_slots_name_kind_value_and_subject() -> None:
    read = slot("Staging DB now listens on port 6543")
    assert read is not None and (read.kind, read.value, read.subject) == (
        "port",
        "6543",
        frozenset({"staging", "database"}),
    )


def test_a_turn_asserts_the_old_value_only_when_it_names_it_and_its_subject() -> None:
    old, new = "The API uses Postgres 14", "The API uses Postgres 16"
    assert asserts_old_value("User: which db?\nAssistant: the API is on Postgres 14.", old, new)
    assert not asserts_old_value("Assistant: moved the API from Postgres 14 to 16", old, new)  # names the new one
    assert not asserts_old_value("Assistant: there are 14 open issues in the tracker", old, new)
    port_old, port_new = "The staging database port is 5432", "Staging DB now listens on port 6543"
    assert asserts_old_value("Assistant: psql -p 5432 on the staging database", port_old, port_new)
    assert not asserts_old_value("Assistant: the table has 5432 rows", port_old, port_new)
