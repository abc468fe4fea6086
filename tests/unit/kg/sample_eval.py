"""Scores the extractor against the hand-labelled sample (shared by the test
and by docs/extraction.md's figures: ``python -m tests.unit.kg.sample_eval``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from services.kg.extraction import extract
from services.kg.keys import entity_key

SAMPLE = Path(__file__).parent / "data" / "extraction_sample.json"
HOLDOUT = Path(__file__).parent / "data" / "extraction_holdout.json"


@dataclass
class SampleScore:
    predicted: int = 0
    gold: int = 0
    matched: int = 0
    type_matched: int = 0
    contexts_right: int = 0
    items: int = 0
    false_positives: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    per_type: dict[str, list[int]] = field(default_factory=dict)  # type -> [predicted, correct]

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.gold if self.gold else 0.0

    @property
    def type_accuracy(self) -> float:
        return self.type_matched / self.matched if self.matched else 0.0

    @property
    def context_accuracy(self) -> float:
        return self.contexts_right / self.items if self.items else 0.0


def score_sample(path: Path = SAMPLE) -> SampleScore:
    score = SampleScore()
    for item in json.loads(path.read_text(encoding="utf-8"))["items"]:
        result = extract(item["text"])
        gold = {entity_key(name): kind for name, kind in item["entities"]}
        score.items += 1
        score.contexts_right += result.context_type == item["context"]
        score.gold += len(gold)
        for entity in result.entities:
            score.predicted += 1
            counts = score.per_type.setdefault(entity.type, [0, 0])
            counts[0] += 1
            if entity.key in gold:
                score.matched += 1
                counts[1] += 1
                score.type_matched += gold[entity.key] == entity.type
            else:
                score.false_positives.append(f"{entity.name} ({entity.type})")
        found = {e.key for e in result.entities}
        score.misses.extend(name for name in gold if name not in found)
    return score


def _print(name: str, s: SampleScore) -> None:
    print(f"{name}: items={s.items} predicted={s.predicted} gold={s.gold} matched={s.matched}")
    print(
        f"  precision={s.precision:.3f} recall={s.recall:.3f} type_accuracy={s.type_accuracy:.3f} "
        f"context_accuracy={s.context_accuracy:.3f}"
    )
    for kind, (pred, ok) in sorted(s.per_type.items()):
        print(f"  {kind:<10} predicted={pred:<3} correct={ok:<3} precision={ok / pred:.2f}")
    print("  false positives:", s.false_positives)
    print("  misses:", s.misses)


if __name__ == "__main__":
    _print("tuning sample", score_sample(SAMPLE))
    _print("held-out sample", score_sample(HOLDOUT))
