"""Noun phrases and single-word concepts from text with entities masked out.

Without a part-of-speech tagger, phrases are runs of two or three content
words between stopwords, common verbs and punctuation (the candidate step
of RAKE). A word right after a pronoun, modal or "to", or right before a
determiner, is taken to be a verb and breaks the run: "the server rejects
the request" gives no "server rejects" phrase.
"""

from __future__ import annotations

import re
from collections import Counter

from services.kg import lexicon
from services.kg.keys import Entity, concept_key

_TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]|[^\sA-Za-z]")
DETERMINERS = frozenset("the a an this that these those my your our their its his her every each".split())
VERB_TRIGGERS = frozenset(
    "to i we you they it he she can could should would will won't don't doesn't didn't does do did "
    "must might may cannot can't not never also just".split()
)
_BREAKERS = lexicon.STOPWORDS | lexicon.COMMON_VERBS | lexicon.CODE_KEYWORDS
MAX_PHRASE_WORDS = 3


def _is_content(word: str) -> bool:
    lower = word.lower()
    return (
        len(lower) >= 3 and lower not in _BREAKERS and not lower.endswith("ly") and "'" not in lower and lower.isascii()
    )


def _likely_verb(word: str, is_last: bool) -> bool:
    """A non-final word in third-person -s form: "service batches requests"."""
    lower = word.lower()
    return not is_last and lower.endswith("s") and not lower.endswith(("ss", "us", "is", "ics"))


def _runs(masked: str) -> list[list[tuple[str, int]]]:
    tokens = [(m.group(0), m.start()) for m in _TOKEN_RE.finditer(masked)]
    runs: list[list[tuple[str, int]]] = []
    current: list[tuple[str, int]] = []
    for i, (tok, pos) in enumerate(tokens):
        prev = tokens[i - 1][0].lower() if i else ""
        nxt = tokens[i + 1][0].lower() if i + 1 < len(tokens) else ""
        gap = i and masked[tokens[i - 1][1] + len(tokens[i - 1][0]) : pos].strip()
        verb_like = prev in VERB_TRIGGERS or nxt in DETERMINERS
        if not _is_content(tok) or verb_like or gap:
            if current:
                runs.append(current)
            current = [] if not _is_content(tok) or verb_like else [(tok, pos)]
            continue
        current.append((tok, pos))
    if current:
        runs.append(current)
    return runs


def _split_verbs(run: list[tuple[str, int]]) -> list[list[tuple[str, int]]]:
    pieces: list[list[tuple[str, int]]] = [[]]
    for i, item in enumerate(run):
        if _likely_verb(item[0], i == len(run) - 1):
            pieces.append([])
        else:
            pieces[-1].append(item)
    return [p for p in pieces if p]


def _at_sentence_start(masked: str, pos: int) -> bool:
    before = masked[max(0, pos - 200) : pos].rstrip(" \t")
    if not before and pos > 200:
        return False
    return not before or before[-1] in ".!?\n:"


def noun_phrases(masked: str) -> list[tuple[str, int]]:
    """(phrase, start offset) for every 2-3 word candidate, in text order."""
    found: list[tuple[str, int]] = []
    runs = [piece for run in _runs(masked) for piece in _split_verbs(run)]
    for run in runs:
        words = run[-MAX_PHRASE_WORDS:]  # English noun phrases are head-final
        if len(words) == MAX_PHRASE_WORDS and (
            words[0][0].lower().endswith(("ing", "ed")) or _at_sentence_start(masked, words[0][1])
        ):
            words = words[1:]  # "hitting merge conflicts", "Benchmark get-context latency"
        if len(words) < 2:
            continue
        if any(w.isupper() and len(w) > 1 for w, _ in words):
            continue
        found.append((" ".join(w.lower() for w, _ in words), words[0][1]))
    return found


def stem(word: str) -> str:
    """Light plural folding: queries -> query, tests -> test, class stays."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "os")):
        return word[:-1]
    return word


def content_concepts(entities: list[Entity], masked: str, limit: int) -> list[str]:
    """Routing concepts: entity keys first, then frequent content words."""
    concepts: list[str] = []
    seen: set[str] = set()
    for entity in entities:
        if entity.type == "url":
            continue
        key = concept_key(entity.name)
        if key not in seen:
            seen.add(key)
            concepts.append(key)
    words = [stem(w.lower()) for w in re.findall(r"[A-Za-z][A-Za-z-]*[A-Za-z]", masked) if _is_content(w)]
    for entity in entities:
        if entity.type == "phrase":
            words.extend(stem(w) for w in entity.name.split())
    for word, _ in Counter(words).most_common():
        if len(concepts) >= limit:
            break
        if word not in seen:
            seen.add(word)
            concepts.append(word)
    return concepts[:limit]
