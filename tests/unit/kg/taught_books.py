"""Books and stores the kg's tests teach: every calibration problem filed in one book, every symptom
episode learned by a store. Shared by the calibration, symptom and encoder-agreement tests, which
import them from here rather than from each other.
"""

from __future__ import annotations

import numpy as np

from kernel.error_signature import of_output
from services.embedding.model import Encoder
from services.kg.episode_records import Vector, encode_vector
from services.kg.episodes import EpisodeBook
from services.kg.keys import Outcome
from services.kg.problem_match import MatchRules
from services.kg.store import KgStore, ScopeKey
from tests.unit.kg.problem_pairs import EPISODE_SYMPTOMS, PARAPHRASES, SYMPTOM_PARAPHRASES

PROJECT = "shop-1a2b"
ON = MatchRules()


def calibration_fix(i: int) -> str:
    return f"remedy {i}: changed the setting and reran the check"


def vector(encoder: Encoder, text: str) -> Vector:
    return np.asarray(encoder.encode([text])[0], dtype=np.float32)


def filed_book(encoder: Encoder, rules: MatchRules = ON) -> tuple[EpisodeBook, list[str]]:
    """Every calibration problem solved once (a failed attempt, then its own fix), in one project;
    returns the book and each problem's recurrence."""
    book = EpisodeBook(rules)
    problems = [(a, "", b) for a, b in PARAPHRASES + SYMPTOM_PARAPHRASES] + list(EPISODE_SYMPTOMS)
    ts = 1_000.0
    for i, (statement, output, _) in enumerate(problems):
        session = f"episode-{i}"
        line, signature = of_output(output) if output else ("", "")
        if signature:
            book.apply_tool_error(
                {
                    "session_id": session,
                    "command": f"first guess {i}",
                    "line": line,
                    "signature": signature,
                    "ts": ts,
                    "vector": encode_vector(vector(encoder, line)),
                }
            )
        for prompt, outcome, answer in (
            (statement, "failed", f"tried guess {i}"),
            ("ok", "worked", calibration_fix(i)),
        ):
            ts += 1
            book.apply_turn(
                {
                    "ts": ts,
                    "session_id": session,
                    "project": PROJECT,
                    "prompt": prompt,
                    "outcome": outcome,
                    "answer": answer,
                    "vector": encode_vector(vector(encoder, prompt)) if outcome == "failed" else "",
                }
            )
    return book, [r for _, _, r in problems]


SYMPTOM_SCOPE = ScopeKey("tester", "ops-4c5d")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def vec(encoder: Encoder, text: str) -> bytes:
    return np.asarray(encoder.encode([text])[0], dtype="<f4").tobytes()


def symptom_fix(i: int) -> str:
    return f"applied remedy number {i} and reran the check"


def learn_every_episode(store: KgStore, encoder: Encoder) -> None:
    for i, (statement, output, _) in enumerate(EPISODE_SYMPTOMS):
        session = f"episode-{i}"
        line, signature = of_output(output)
        store.record_tool_error(
            SYMPTOM_SCOPE,
            session_id=session,
            command=f"first guess {i}",
            output=output,
            vector=vec(encoder, line) if signature else b"",  # as gateway/teaching.py sends it
        )
        for prompt, outcome, answer in (
            (statement, Outcome.FAILED, f"tried first guess {i}"),
            ("that did it, thanks", Outcome.WORKED, symptom_fix(i)),
        ):
            store.record_turn(
                SYMPTOM_SCOPE,
                session_id=session,
                prompt=prompt,
                vector=vec(encoder, prompt),
                outcome=outcome,
                answer=answer,
                doc_id="",
            )
