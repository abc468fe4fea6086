"""The LoCoMo benchmark end to end on a tiny file: real embedding + memory services, real gRPC."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.locomo.__main__ import main

FILLER = [
    "That sounds lovely, tell me more!",
    "Thanks, I really appreciate you saying that.",
    "Haha, same here. How is the family doing?",
    "They're good, busy as always with school.",
    "I totally get that, life gets hectic sometimes.",
    "Anyway, what have you been up to lately?",
]


def _session(number: int, facts: dict[int, tuple[str, str]], length: int) -> list[dict[str, str]]:
    turns = []
    for i in range(1, length + 1):
        speaker, text = facts.get(i, ("Ana" if i % 2 else "Ben", FILLER[(i + number) % len(FILLER)]))
        turns.append({"speaker": speaker, "dia_id": f"D{number}:{i}", "text": text})
    return turns


def tiny_locomo(path: Path) -> Path:
    session_1 = _session(
        1,
        {
            3: ("Ana", "I adopted a quokka named Pickles from the wildlife sanctuary yesterday."),
            8: ("Ben", "My band finally recorded our first album, it's called Blue Harbour."),
        },
        14,
    )
    session_2 = _session(
        2,
        {
            5: ("Ana", "Last week I started learning the cello at the community music school."),
            10: ("Ben", "We booked a trip to Zanzibar for our anniversary in December."),
        },
        14,
    )
    sample = {
        "sample_id": "tiny-1",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": session_1,
            "session_2_date_time": "10:00 am on 20 June, 2023",
            "session_2": session_2,
            "session_3_date_time": "9:00 am on 1 July, 2023",
        },
        "qa": [
            {"question": "What animal did Ana adopt?", "answer": "a quokka", "evidence": ["D1:3"], "category": 4},
            {
                "question": "What is Ben's band's album called?",
                "answer": "Blue Harbour",
                "evidence": ["D1:8"],
                "category": 4,
            },
            {
                "question": "When did Ana start learning the cello?",
                "answer": "June 2023",
                "evidence": ["D2:5"],
                "category": 2,
            },
            {
                "question": "Where is Ben travelling and why?",
                "answer": "Zanzibar",
                "evidence": ["D2:10; D1:8"],
                "category": 1,
            },
            {
                "question": "What did Ana name her dog?",
                "adversarial_answer": "Pickles",
                "evidence": ["D1:3"],
                "category": 5,
            },
            {
                "question": "A question whose evidence names no turn",
                "answer": "-",
                "evidence": ["D9:99"],
                "category": 4,
            },
        ],
    }
    path.write_text(json.dumps([sample]))
    return path


def test_benchmark_runs_both_modes_through_grpc(
    tmp_path: Path, embedding_addr: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tiny_locomo(tmp_path / "tiny.json")
    args = ["--data", str(data), "--json", "--embedding-addr", embedding_addr, "--configs", "baseline,dense,hybrid"]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    summaries = report["summaries"]
    assert set(summaries) == {"baseline", "dense", "hybrid"}
    for mode in summaries:
        groups = summaries[mode]
        assert groups["1-4"]["n"] == 4  # the question without a real evidence turn is skipped
        assert groups["5"]["n"] == 1
        for measures in groups.values():
            assert all(0.0 <= value <= 1.0 for key, value in measures.items() if key != "n")
        assert len(report["latency"][mode]["search_ms"]) == 5
    hybrid = summaries["hybrid"]["1-4"]
    # distinctive keywords: every question finds an evidence turn in the top 10, and the first hit ranks high
    assert hybrid["any@10"] == 1.0
    assert hybrid["mrr"] >= 0.5
    assert summaries["hybrid"]["4"]["recall@5"] == 1.0


def test_bad_data_path_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.json").write_text('{"not": "a list"}')
    assert main(["--data", str(tmp_path / "bad.json")]) == 2
    assert "expected a JSON list" in capsys.readouterr().err


def test_the_benchmark_honours_the_embedding_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --embedding-addr the benchmark starts its own embedding service from the
    MNEMEX_EMBEDDING_* settings, and reports what that service loaded: an fp32 run measures fp32."""
    data = tiny_locomo(tmp_path / "tiny.json")
    monkeypatch.setenv("MNEMEX_EMBEDDING_PRECISION", "fp32")
    monkeypatch.setenv("MNEMEX_EMBEDDING_BACKEND", "onnx")
    assert main(["--data", str(data), "--json", "--configs", "nocontext,hybrid"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "backend onnx" in report["embedding"] and "precision fp32" in report["embedding"]
    assert set(report["summaries"]) == {"nocontext", "hybrid"}
    assert report["summaries"]["hybrid"]["1-4"]["any@10"] == 1.0
