"""Supersession needs the same subject (domain.fact_subjects): service s1's setting never touches service s2's."""

from __future__ import annotations

import pytest

from services.memory.domain.fact_keys import Conflict
from services.memory.domain.fact_slots import about_other_subjects, conflict_terms, fact_conflict, slot, slot_conflict
from services.memory.domain.fact_subjects import index_terms, subject_match, subject_of, words

OTHER_SUBJECTS = [  # the same kind of setting of two different things: never a verdict
    ("Service s1 uses port 8001", "Service s2 uses port 8002"),
    ("Service s1 uses port 8001", "service s2 listens on port 8001"),
    ("The s1 dashboard is owned by team t1", "The s2 dashboard is owned by team t2"),
    ("Service s1 runs on Python 3.11", "Service s2 runs on Python 3.12"),
    ("The s1 API listens on port 9001", "The s2 API listens on port 9002"),
    ("The s1 cache host is cache1.acme.internal", "The s2 cache host is cache2.acme.internal"),
    ("auth-1 listens on port 30001", "auth-2 listens on port 30002"),
    ("The billing service uses port 8001", "The payments service uses port 8002"),
    ("The staging environment runs Node 18", "The production environment runs Node 20"),
    ("The database port is 5432", "The staging database port is 6543"),  # "the database" names none of them
]
SAME_SUBJECT_CHANGES = [  # another value of one thing's setting: superseded, as before
    ("We use Postgres 14", "We use Postgres 16"),
    ("CI provider is GitLab CI", "CI provider is GitHub Actions"),
    ("Service s1 uses port 8001", "Service s1 now listens on port 9001"),
    ("The s1 dashboard is owned by team t1", "The s1 dashboard is owned by team t7"),
    ("s5 uses Postgres 12", "Service s5 runs on Postgres 17"),
    ("auth-19 listens on port 30019", "auth-19 listens on port 31019"),
    ("The staging database port is 5432", "Staging DB now listens on port 6543"),
    ("The API uses Postgres 14", "We upgraded the API database to Postgres 16"),
]


@pytest.mark.parametrize(("older", "newer"), OTHER_SUBJECTS)
def test_facts_about_different_subjects_never_conflict(older: str, newer: str) -> None:
    assert fact_conflict(older, newer) is None
    assert fact_conflict(newer, older) is None
    assert slot_conflict(slot(older), slot(newer)) is None  # not even "possibly superseded"


@pytest.mark.parametrize(("older", "newer"), SAME_SUBJECT_CHANGES)
def test_a_new_value_of_the_same_subjects_setting_supersedes(older: str, newer: str) -> None:
    assert fact_conflict(older, newer) is Conflict.SUPERSEDE


@pytest.mark.parametrize(
    ("older", "newer"), [*SAME_SUBJECT_CHANGES, ("The frontend builds with Node 18", "Build scripts need Node 20")]
)
def test_facts_that_may_conflict_share_an_index_term(older: str, newer: str) -> None:
    assert fact_conflict(older, newer) is not None
    assert conflict_terms(older) & conflict_terms(newer)


def test_two_services_port_facts_are_filed_apart() -> None:
    terms = [conflict_terms(f"Service s{n} uses port {8000 + n}") for n in range(50)]
    assert all(terms[0].isdisjoint(other) for other in terms[1:])


def test_the_subject_rule() -> None:
    s1, s2, service, api = (frozenset(w.split()) for w in ("service s1", "service s2", "service", "api"))
    assert subject_match(s1, s2) is None  # two instances named apart
    assert subject_match(s1, frozenset({"s1"})) is Conflict.SUPERSEDE  # the same one, in fewer words
    assert subject_match(service, s1) is None  # "the service" names no instance
    assert subject_match(api, frozenset({"api", "s1"})) is Conflict.POSSIBLE  # maybe the s1 API
    assert subject_match(api, frozenset({"api", "database"})) is Conflict.SUPERSEDE
    assert subject_match(frozenset({"frontend", "build"}), frozenset({"build", "script"})) is Conflict.POSSIBLE
    assert subject_match(frozenset(), s1) is None


def test_subject_words_keep_hyphenated_identifiers_whole() -> None:
    assert words("auth-19 and the billing-api on eu-west-1") == [
        "auth-19",
        "and",
        "the",
        "billing",
        "api",
        "on",
        "eu-west-1",
    ]
    assert subject_of("The s1 dashboard is owned by") == {"s1", "dashboard", "owned"}
    assert index_terms(frozenset({"service", "s1"})) == {"s1"}  # filed by what names it, not by its kind
    assert index_terms(frozenset({"service"})) == {"service"}


def test_near_duplicate_wordings_of_two_services_are_about_other_subjects() -> None:
    assert about_other_subjects(
        "The s7 worker keeps its data in /var/lib/s7", "The s77 worker keeps its data in /var/lib/s77"
    )
    assert about_other_subjects("Owner of service s8: team t8", "Owner of service s88: team t8")
    assert about_other_subjects("Service s2 runs in region ap-south-1", "Service s12 runs in region ap-south-1")
    assert not about_other_subjects("The billing API uses Postgres 16", "The billing API uses Postgres 16.")
    assert not about_other_subjects("We use pnpm", "The frontend uses pnpm")  # "we": nothing known
