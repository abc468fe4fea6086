"""Tokenisation for the lexical index."""

from __future__ import annotations

from services.memory.retrieval.text import query_terms, stem, terms


def test_lowercase_stopwords_and_stemming() -> None:
    assert terms("The Dogs were RUNNING") == ["dog", "run"]
    assert stem("cities") == stem("city")
    assert stem("painted") == stem("painting") == stem("paints")


def test_identifiers_keep_whole_and_parts() -> None:
    got = terms("getUserName")
    assert got[0] == "getusername" and "get" in got and "user" in got
    path = terms("services/memory/lexical.py")
    assert path[0] == "services/memory/lexical.py" and "lexical" in path
    assert terms("snake_case_name")[0] == "snake_case_name"


def test_possessives_and_accents() -> None:
    assert terms("Caroline's") == terms("Caroline")
    assert terms("Café") == terms("cafe")


def test_no_space_scripts_become_bigrams() -> None:
    assert terms("東京タワー") == ["東京", "京タ", "タワ", "ワー"]


def test_query_terms_are_distinct() -> None:
    assert query_terms("tests tests test") == ["test"]
