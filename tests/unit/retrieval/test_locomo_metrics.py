"""LoCoMo file parsing and the retrieval measures of the benchmark."""

from __future__ import annotations

import pytest

from bench.locomo.dataset import normalise_evidence, parse_sample
from bench.locomo.memory_text import turn_content
from bench.locomo.metrics import score_question, summarise
from kernel.json_values import JSONObject

KNOWN = {"D1:3", "D8:6", "D9:17", "D11:26", "D30:5"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D1:3"], ("D1:3",)),
        (["D8:6; D9:17"], ("D8:6", "D9:17")),
        (["D:11:26"], ("D11:26",)),
        (["D30:05"], ("D30:5",)),
        (["D"], ()),
        (["D2:2"], ()),  # names no turn
        (["D1:3", "D1:3"], ("D1:3",)),
    ],
)
def test_malformed_evidence_is_normalised(raw: list[str], expected: tuple[str, ...]) -> None:
    assert normalise_evidence(raw, KNOWN) == expected


def test_parse_iterates_sessions_not_dates() -> None:
    sample: JSONObject = {
        "sample_id": "s",
        "conversation": {
            "session_1_date_time": "8 May, 2023",
            "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi", "blip_caption": "a cat"}],
            "session_2_date_time": "9 May, 2023",  # a date with no session
        },
        "qa": [{"question": "q", "adversarial_answer": "x", "evidence": ["D1:1"], "category": 5}],
    }
    convo = parse_sample(sample)
    assert [t.dia_id for t in convo.turns] == ["D1:1"]
    assert "a cat" in convo.turns[0].text
    assert convo.questions[0].answer == "x"


def test_turn_content_has_date_speaker_and_replied_turn() -> None:
    convo = parse_sample(
        {
            "sample_id": "s",
            "conversation": {
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": [
                    {"speaker": "A", "dia_id": "D1:1", "text": "What did you do while camping?"},
                    {"speaker": "B", "dia_id": "D1:2", "text": "We went on a hike."},
                ],
            },
        }
    )
    first, second = convo.turns
    assert turn_content(first, None) == "[1:56 pm on 8 May, 2023] A: What did you do while camping?"
    assert turn_content(second, first).endswith("(in reply to A: What did you do while camping?)")


def test_measures() -> None:
    session_of = {"D1:1": 1, "D1:2": 1, "D2:1": 2, "D3:1": 3}
    result = score_question(1, ["D1:2", "D3:1"], ["D2:1", "D1:1", "D1:2"], session_of)
    assert result.scores["recall@5"] == 0.5
    assert result.scores["any@10"] == 1.0
    assert result.scores["session@5"] == 1.0  # D1:1 shares session 1 with evidence
    assert result.scores["mrr"] == pytest.approx(1 / 3)
    miss = score_question(5, ["D3:1"], ["D1:1"], session_of)
    assert miss.scores["mrr"] == 0.0 and miss.scores["session@5"] == 0.0
    summary = summarise([result, miss])
    assert summary["1-4"]["n"] == 1 and summary["5"]["n"] == 1
    assert summary["1"]["recall@5"] == 0.5
