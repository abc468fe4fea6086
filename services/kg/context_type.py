"""Classify what kind of work a text is about: coding, debugging, testing,
devops, writing, planning, research or general.

Each type has cue words with weights; entities add evidence (an error type
points at debugging, code identifiers and paths at coding). The best score
wins if it reaches ``MIN_SCORE``; otherwise the text is "general".
"""

from __future__ import annotations

import re

from services.kg.keys import Entity

MIN_SCORE = 1.5
# Tie-break order: the more specific type first.
CONTEXT_TYPES = ("debugging", "testing", "devops", "coding", "writing", "planning", "research", "general")

_CUES: dict[str, dict[str, float]] = {
    "debugging": {
        "error": 1.5,
        "errors": 1.5,
        "bug": 2,
        "bugs": 2,
        "traceback": 2.5,
        "exception": 2,
        "crash": 2,
        "crashes": 2,
        "crashing": 2,
        "fails": 1.5,
        "failing": 1.5,
        "failed": 1,
        "broken": 1.5,
        "debug": 2,
        "debugging": 2,
        "stack trace": 2.5,
        "segfault": 2.5,
        "doesn't work": 2,
        "not working": 2,
        "hangs": 1.5,
        "timeout": 1,
        "regression": 1.5,
        "wrong": 1,
        "why does": 1,
        "fix": 1,
        "issue": 0.5,
        "stacktrace": 2.5,
        "panic": 1.5,
        "timing out": 2,
        "times out": 2,
        "breaks": 1.5,
        "merge conflicts": 1.5,
        "conflicts": 1,
        "returns a 500": 2,
        "500": 0.5,
        "403": 1,
        "404": 1,
        "keeps": 0.5,
        "unexpected": 1,
    },
    "testing": {
        "test": 1.5,
        "tests": 1.5,
        "unit test": 2,
        "pytest": 2,
        "assert": 1.5,
        "coverage": 1.5,
        "fixture": 2,
        "fixtures": 2,
        "mock": 1.5,
        "flaky": 2,
        "integration test": 2,
        "jest": 2,
        "test suite": 2,
    },
    "devops": {
        "deploy": 2,
        "deployment": 2,
        "docker": 1.5,
        "kubernetes": 2,
        "k8s": 2,
        "ci": 1.5,
        "pipeline": 1.5,
        "container": 1.5,
        "helm": 2,
        "terraform": 2,
        "nginx": 1.5,
        "production": 1,
        "staging": 1.5,
        "infrastructure": 1.5,
        "github actions": 2,
        "cluster": 1,
    },
    "coding": {
        "function": 1.5,
        "class": 1,
        "method": 1.5,
        "implement": 2,
        "refactor": 2,
        "code": 1,
        "variable": 1.5,
        "module": 1,
        "api": 1,
        "endpoint": 1.5,
        "compile": 1.5,
        "type hints": 1.5,
        "async": 1,
        "import": 1,
        "library": 1,
        "script": 1,
        "parse": 1,
        "return": 0.5,
        "algorithm": 1.5,
        "database": 1,
        "query": 0.5,
        "schema": 1,
        "interface": 1,
    },
    "writing": {
        "write": 1,
        "draft": 2,
        "essay": 2.5,
        "blog": 2.5,
        "post": 1,
        "email": 2,
        "article": 2,
        "paragraph": 2,
        "wording": 2,
        "tone": 1.5,
        "readme": 1.5,
        "documentation": 1.5,
        "docs": 1,
        "proofread": 2.5,
        "rewrite": 1.5,
        "summary": 1,
        "story": 2,
        "letter": 1.5,
        "copy": 0.5,
        "grammar": 2,
        "outline": 1,
        "summarize": 1.5,
        "changelog": 1.5,
        "release notes": 2,
    },
    "planning": {
        "plan": 2,
        "planning": 2,
        "roadmap": 2.5,
        "milestone": 2,
        "milestones": 2,
        "design": 1,
        "architecture": 1.5,
        "prioritize": 2,
        "priorities": 1.5,
        "strategy": 1.5,
        "steps": 1,
        "timeline": 2,
        "sprint": 2,
        "estimate": 1.5,
        "scope": 1,
        "tradeoffs": 1.5,
        "trade-offs": 1.5,
        "approach": 1,
        "should we": 1.5,
        "we should": 1,
        "next steps": 2,
        "next week": 1,
    },
    "research": {
        "explain": 1.5,
        "what is": 1.5,
        "how does": 1.5,
        "difference between": 2,
        "compare": 1.5,
        "versus": 1,
        "learn": 1.5,
        "understand": 1,
        "why is": 1,
        "overview": 1.5,
        "paper": 1.5,
        "research": 2,
        "benchmark": 1.5,
        "latency": 1,
        "measure": 1,
        "p95": 1,
    },
    "general": {
        "prefers": 1.5,
        "prefer": 1.5,
        "i like": 1.5,
        "preference": 1.5,
        "my name": 2,
        "remind": 1.5,
        "i work": 1,
        "birthday": 2,
        "family": 1.5,
        "daughter": 1.5,
        "son": 1.5,
        "hobby": 2,
    },
}
_ENTITY_EVIDENCE = {
    "error": ("debugging", 2.0),
    "path": ("coding", 0.75),
    "identifier": ("coding", 0.5),
    "library": ("coding", 0.5),
}
_PHRASE_RE = {
    kind: re.compile(r"\b(?:" + "|".join(re.escape(c) for c in sorted(cues, key=len, reverse=True)) + r")\b")
    for kind, cues in _CUES.items()
}


def context_scores(text: str, entities: list[Entity]) -> dict[str, float]:
    lower = text.lower()
    scores = dict.fromkeys(CONTEXT_TYPES, 0.0)  # "general" cues are personal facts
    for kind, regex in _PHRASE_RE.items():
        cues = _CUES[kind]
        scores[kind] = sum(cues[m.group(0)] for m in regex.finditer(lower))
    for entity in entities:
        kind_weight = _ENTITY_EVIDENCE.get(entity.type)
        if kind_weight:
            kind, weight = kind_weight
            scores[kind] += weight
    return scores


def detect_context_type(text: str, entities: list[Entity]) -> str:
    scores = context_scores(text, entities)
    best = max(CONTEXT_TYPES, key=lambda kind: (scores[kind], -CONTEXT_TYPES.index(kind)))
    return best if scores[best] >= MIN_SCORE else "general"
