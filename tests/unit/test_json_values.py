"""kernel.json_values: typed, lenient reads of JSON nobody here wrote."""

from __future__ import annotations

import pytest

from kernel.json_values import (
    as_list,
    as_object,
    bool_at,
    float_at,
    int_at,
    list_at,
    object_at,
    objects_at,
    parse_object,
    parse_value,
    str_at,
    strs_at,
    value_at,
)

EVENT = parse_object(
    '{"prompt": "fix the build", "n": 3, "whole": 2.0, "half": 2.5, "flag": true, "none": null,'
    ' "tags": ["a", 1, "b"], "parts": [{"t": 1}, "x", {"t": 2}], "meta": {"k": "v"}}'
)


def test_fields_read_with_their_type() -> None:
    assert str_at(EVENT, "prompt") == "fix the build"
    assert int_at(EVENT, "n") == 3
    assert int_at(EVENT, "whole") == 2
    assert float_at(EVENT, "half") == 2.5
    assert float_at(EVENT, "n") == 3.0
    assert bool_at(EVENT, "flag") is True
    assert object_at(EVENT, "meta") == {"k": "v"}
    assert strs_at(EVENT, "tags") == ["a", "b"]
    assert [part["t"] for part in objects_at(EVENT, "parts")] == [1, 2]


def test_a_missing_or_mistyped_field_reads_as_the_default() -> None:
    assert str_at(EVENT, "n") == ""
    assert str_at(EVENT, "missing", "dflt") == "dflt"
    assert int_at(EVENT, "flag", -1) == -1  # a bool is not a count
    assert int_at(EVENT, "half", -1) == -1  # nor is a fraction
    assert float_at(EVENT, "prompt", 1.5) == 1.5
    assert bool_at(EVENT, "n") is False
    assert object_at(EVENT, "tags") == {}
    assert list_at(EVENT, "meta") == []
    assert value_at(EVENT, "none") is None
    assert value_at({"x": object()}, "x") is None


def test_only_json_shapes_pass_as_objects_and_lists() -> None:
    assert as_object({1: "a"}) == {}
    assert as_object([1]) == {}
    assert as_list({"a": 1}) == []
    assert as_list([1, "a"]) == [1, "a"]


def test_text_that_is_not_an_object_is_refused_by_name() -> None:
    assert parse_value("[1, 2]") == [1, 2]
    with pytest.raises(ValueError, match="expected a JSON object, got list"):
        parse_object("[1, 2]")
    with pytest.raises(ValueError):
        parse_object("{not json")
