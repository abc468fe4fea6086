"""Deterministic entity and concept extraction: regular expressions, curated
lexicons and a few English heuristics. No model, no download, well under a
millisecond for a typical prompt (docs/extraction.md has the evaluation and
the reasons no NLP library is used).

Passes run from most to least specific (code_entities.py first, then the
prose passes here), each masking what it takes.
"""

from __future__ import annotations

import re

from services.kg import code_entities as code
from services.kg import lexicon
from services.kg.code_entities import Collector
from services.kg.context_type import detect_context_type
from services.kg.keys import Extraction, entity_key
from services.kg.phrases import DETERMINERS, content_concepts, noun_phrases
from services.kg.relations import find_relations

MAX_CONCEPTS = 32
ACRONYM_SEQ_RE = re.compile(
    r"(?:\b(?P<before>[a-z][a-z-]{2,})[ \t]+)?"
    r"\b(?P<acr>[A-Z][A-Z0-9]{1,7}s?(?:[ \t]+[A-Z][A-Z0-9]{1,7}s?)*)\b"
    r"(?:[ \t]+(?P<after>[a-z][a-z-]{2,})\b)?"
)
NAME_RE = re.compile(r"\b[A-Z][a-z][\w'’-]*(?:[ \t]+[A-Z][a-z][\w'’-]*)*")
TIME_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "june july august september october november december today tomorrow yesterday".split()
)


def _phrase_word(word: str) -> bool:
    lower = word.lower()
    return len(lower) >= 3 and not (
        lower in lexicon.STOPWORDS
        or lower in lexicon.COMMON_VERBS
        or lower in lexicon.CODE_KEYWORDS
        or lower.endswith("ly")
    )


def _verb_follows(text: str, end: int) -> bool:
    following = re.match(r"[ \t]+([a-z]+)", text[end:])
    return following is not None and following.group(1) in DETERMINERS


def acronyms(c: Collector) -> None:
    """JWT, SIGKILL; "CI pipeline" and "payments API" become phrases."""
    masked = c.masked
    for m in ACRONYM_SEQ_RE.finditer(masked):
        acronym = m.group("acr")
        lower = acronym.lower()
        before = m.group("before") if m.group("before") and _phrase_word(m.group("before")) else None
        after = m.group("after")
        after = after if after and _phrase_word(after) and not _verb_follows(masked, m.end()) else None
        if before or after:
            words = [w for w in (before, acronym, after) if w]
            start = m.start("before") if before else m.start("acr")
            c.add(" ".join(words), "phrase", start, m.end("after") if after else m.end("acr"))
        elif not (lower in lexicon.GENERIC_ACRONYMS or lower.rstrip("s") in lexicon.GENERIC_ACRONYMS):
            c.add(code.display(lower, acronym), code.tech_type(lower) or "term", m.start("acr"), m.end("acr"))


MID_SENTENCE_CAPITAL_RE = re.compile(r"(?<=[a-z,] )([A-Z][a-z][\w'’-]*)")


def _subject_name(text: str, end: int, word: str, mid_sentence: set[str]) -> bool:
    """A sentence-opening word is a name if it is capitalised mid-sentence
    elsewhere, or is followed by a verb typical after a person or product."""
    if word in mid_sentence:
        return True
    following = re.match(r"\s*('s|[a-z]+)", text[end:])
    return following is not None and following.group(1) in lexicon.SUBJECT_VERBS


def capitalised_names(c: Collector) -> None:
    masked = c.masked
    not_names = lexicon.COMMON_VERBS | lexicon.STOPWORDS
    mid_sentence = set(MID_SENTENCE_CAPITAL_RE.findall(c.original))
    for m in NAME_RE.finditer(masked):
        tokens = m.group(0).split()
        start = m.start()
        initial = code.sentence_initial(masked, start)
        while tokens and tokens[0].lower() in not_names:
            start = masked.index(tokens[0], start) + len(tokens[0])
            tokens.pop(0)
            initial = False
        while tokens and tokens[-1].lower() in lexicon.STOPWORDS:
            tokens.pop()
        tokens = [t.rstrip("'’") for t in tokens]
        if not tokens or all(t.lower() in TIME_WORDS for t in tokens):
            continue
        name = " ".join(tokens)
        if len(tokens) == 1:
            word = tokens[0]
            if word.lower() in not_names or word.lower() in lexicon.GENERIC_NOUNS:
                continue
            if initial and not _subject_name(c.original, m.end(), word, mid_sentence):
                continue  # most lone capitalised sentence openers are ordinary words
        start = masked.index(tokens[0], start)
        c.add(name, "name", start, start + len(name))


def compound_phrases(c: Collector) -> None:
    """ "gRPC server", "SQLite journal": a tech name or identifier as a modifier."""
    masked = c.masked
    for start, end, key in list(c.mentions):
        entity = c.entities.get(key)
        if entity is None or entity.type not in ("library", "tool", "identifier"):
            continue
        following = re.match(r"[ \t]+([a-z][a-z-]{2,})\b", masked[end:])
        if not following or not _phrase_word(following.group(1)):
            continue
        after = end + following.end()
        noun = following.group(1)
        if _verb_follows(masked, after):
            continue
        if noun.endswith("s") and not noun.endswith("ss") and re.match(r"[ \t]+[a-z]", masked[after:]):
            continue  # "useEffect runs twice": a verb, not a plural head
        c.add(f"{c.original[start:end]} {noun}", "phrase", start, after, mask=False)


def extract(text: str, *, with_relations: bool = False) -> Extraction:
    """Entities, routing concepts and context type for one text."""
    c = Collector(text)
    for step in (
        code.urls,
        code.imports_and_installs,
        code.backticks,
        code.paths,
        code.identifiers,
        code.lexicon_words,
        acronyms,
        capitalised_names,
        compound_phrases,
    ):
        step(c)
    for phrase, start in noun_phrases(c.masked):
        known = c.entities.get(entity_key(phrase))
        if known is None or known.type == "phrase":  # every mention counts, for relations
            c.add(phrase, "phrase", start, start + len(phrase), mask=False)
    entities = list(c.entities.values())
    concepts = content_concepts(entities, c.masked, MAX_CONCEPTS)
    relations = find_relations(text, c.mentions, c.entities) if with_relations else []
    return Extraction(concepts, entities, detect_context_type(text, entities), relations)
