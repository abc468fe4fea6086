"""LoCoMo file -> conversations of turns and questions with clean evidence ids.

Format (see the data README): a list of samples, each with ``sample_id``,
``conversation`` (``speaker_a``, ``speaker_b``, ``session_N`` turn lists and
``session_N_date_time`` strings) and ``qa`` (question, answer, evidence,
category). Evidence ids are sometimes malformed ("D8:6; D9:17", "D:11:26",
"D30:05"): they are split on ';' / ',' / whitespace, normalised to ``D<s>:<t>``
and dropped when they name no turn.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from kernel.json_values import JSONObject, as_list, as_object, objects_at

# The benchmark data sits beside the checkout (../shared/data/locomo); LOCOMO_DATA or --data override it.
DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo-dev.json"

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    session_date: str
    speaker: str
    text: str  # with the image caption, when the turn shared a photo
    raw_text: str = ""  # the turn's own words only


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]
    answer: str


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def session_of(self) -> dict[str, int]:
        return {t.dia_id: t.session for t in self.turns}


class DatasetError(ValueError):
    """The file is not in LoCoMo format; the message says what is missing."""


def normalise_evidence(raw: object, known: set[str]) -> tuple[str, ...]:
    """Clean, de-duplicated evidence ids that name a turn of the conversation."""
    items = raw if isinstance(raw, list) else [raw]
    out: list[str] = []
    for item in items:
        for part in re.split(r"[;,]|\s(?=D)", str(item)):
            match = _EVIDENCE.search(part)
            if not match:
                continue
            dia_id = f"D{int(match.group(1))}:{int(match.group(2))}"
            if dia_id in known and dia_id not in out:
                out.append(dia_id)
    return tuple(out)


def _turn_text(turn: JSONObject) -> str:
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def parse_sample(sample: JSONObject) -> Conversation:
    """One LoCoMo sample, as its JSON file holds it."""
    try:
        sample_id = str(sample["sample_id"])
        convo = sample["conversation"]
    except KeyError as exc:
        raise DatasetError(f"each sample needs 'sample_id' and 'conversation' (missing {exc})") from exc
    if not isinstance(convo, dict):
        raise DatasetError(f"sample {sample_id}: 'conversation' is {type(convo).__name__}, expected an object")
    conversation = Conversation(sample_id=sample_id)
    sessions = sorted(int(m.group(1)) for key in convo if (m := _SESSION_KEY.match(key)))
    for number in sessions:
        date = str(convo.get(f"session_{number}_date_time", "")).strip()
        for turn in as_list(convo[f"session_{number}"]):
            if not isinstance(turn, dict):
                continue
            dia_id = str(turn.get("dia_id", "")).strip()
            if not dia_id:
                continue
            conversation.turns.append(
                Turn(
                    dia_id=dia_id,
                    session=number,
                    session_date=date,
                    speaker=str(turn.get("speaker", "")),
                    text=_turn_text(turn),
                    raw_text=str(turn.get("text", "")).strip(),
                )
            )
    known = {t.dia_id for t in conversation.turns}
    for qa in objects_at(sample, "qa"):
        answer = qa.get("answer", qa.get("adversarial_answer", ""))
        category = qa.get("category", 0)
        conversation.questions.append(
            Question(
                question=str(qa.get("question", "")),
                category=int(category) if isinstance(category, int | float | str) else 0,
                evidence=normalise_evidence(qa.get("evidence", []), known),
                answer=str(answer),
            )
        )
    return conversation


def load(path: str | Path, limit_conversations: int | None = None) -> list[Conversation]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(f"cannot read LoCoMo JSON from {path}: {exc}") from exc
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a JSON list of samples, got {type(data).__name__}")
    samples = data if limit_conversations is None else data[:limit_conversations]
    return [parse_sample(as_object(sample)) for sample in samples]
