"""A user's episode book brought to another embedding model: which texts it keeps, and the op that
puts their new vectors in.

The book keeps vectors the gateway made (services/kg/episodes.py): each known problem's statement,
its confirmed rewordings and its symptoms (the error lines of its failed attempts), each open
episode's statement and symptoms, each recent tool error's line, and in each merge record the merged
problem as it was. After ``MNEMEX_EMBEDDING_MODEL`` changes they are of the old model: of another
dimension they are left out of every comparison (``episode_records.comparable``), of the same one
they would compare as noise. ``mnemex reembed`` makes them again wherever the book keeps the text:

- a statement (a problem's, an open episode's, a merged problem's): its text, the first prompt as
  the kg keeps it (``MAX_PROBLEM_CHARS``), embedded as the gateway embeds a statement;
- symptoms: the error lines of the failed attempts that carry an error signature (the lines whose
  vectors they were), the last ``MAX_SYMPTOMS`` distinct ones;
- a tool error's vector: its line.

A confirmed rewording's text is not kept (only its terms are), so rewordings are dropped and
counted, as are symptoms past what the kept error lines give back.

``kept_texts(book)`` lists what to embed; the caller embeds it with the new model and hands the
vectors to ``reembed_op``, which builds one op for the whole book (journaled by the store, so a
crash leaves the book either untouched or done, and a replay puts the same vectors in);
``apply_reembed`` is that op applied (the op names the model, for whoever reads the journal). A merge
record keeps the merged problem as it was, so its vectors are made again too, and what the merge
gave the kept problem becomes the kept problem's new symptoms made from the merged one's error
lines, so an undo still takes back what came from the other problem. Plain module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kernel.json_values import JSONArray, JSONObject
from kernel.vector_model import VectorModel
from services.kg.episode_records import Attempt, Vector, attempt_of, decode_vector, encode_vector, vectors_of
from services.kg.episodes import MAX_SYMPTOMS, SAME_PHRASING, EpisodeBook
from services.kg.json_fields import arr, obj, text

REEMBED_OP = "reembed_vectors"


@dataclass(frozen=True)
class KeptTexts:
    """What a book's vectors are made from: statements, and error lines (each once)."""

    statements: list[str]
    lines: list[str]


@dataclass
class VectorCounts:
    """Vectors made again from their text, and vectors dropped because their text is not kept."""

    reembedded: int = 0
    dropped: int = 0

    def add(self, other: VectorCounts) -> None:
        self.reembedded += other.reembedded
        self.dropped += other.dropped


def symptom_lines(failures: list[Attempt]) -> list[str]:
    """The error lines a problem's (or an episode's) symptoms were made from, most recent last."""
    lines = [a.error for a in sorted(failures, key=lambda a: a.last) if a.signature and a.error.strip()]
    return list(dict.fromkeys(reversed(lines)))[:MAX_SYMPTOMS][::-1]


def _merged_statement(original: JSONObject) -> str:
    return text(original.get("text", ""))


def _merged_failures(original: JSONObject) -> list[Attempt]:
    return [attempt_of(a) for a in arr(original.get("failures", []))]


def kept_texts(book: EpisodeBook) -> KeptTexts:
    statements = [p.text for p in book.problems.values()] + [e.problem for e in book.open.values()]
    statements += [_merged_statement(m.original) for m in book.merges.values()]
    lines = [line for p in book.problems.values() for line in symptom_lines(p.failures)]
    lines += [line for e in book.open.values() for line in symptom_lines(e.attempts)]
    lines += [line for m in book.merges.values() for line in symptom_lines(_merged_failures(m.original))]
    lines += [e.line for errors in book.errors.values() for e in errors if e.vector and e.line.strip()]
    return KeptTexts(
        [s for s in dict.fromkeys(statements) if s.strip()], [line for line in dict.fromkeys(lines) if line.strip()]
    )


def _symptoms(lines: list[str], vectors: Mapping[str, Vector], statement: Vector | None) -> dict[str, Vector]:
    """The lines' vectors, each unlike the statement's and the ones before it (as ``_add_symptoms``)."""
    kept: dict[str, Vector] = {}
    for line in lines:
        vector = vectors.get(line)
        told = [*kept.values()] + ([statement] if statement is not None else [])
        if vector is not None and all(float(v @ vector) < SAME_PHRASING for v in told):
            kept[line] = vector
    return kept


def _told(
    statement: str,
    failures: list[Attempt],
    before: tuple[int, int, int],
    statements: Mapping[str, Vector],
    lines: Mapping[str, Vector],
) -> tuple[JSONObject, dict[str, Vector], VectorCounts]:
    """One statement's new vectors as the op carries them, its symptoms by line, and the counts;
    ``before``: how many statement vectors, rewordings and symptoms it had."""
    vector = statements.get(statement)
    symptoms = _symptoms(symptom_lines(failures), lines, vector)
    had_vector, rewordings, had_symptoms = before
    counts = VectorCounts(
        int(vector is not None) + len(symptoms),
        max(0, had_vector - int(vector is not None)) + rewordings + max(0, had_symptoms - len(symptoms)),
    )
    told: JSONObject = {"vector": encode_vector(vector), "symptoms": [encode_vector(v) for v in symptoms.values()]}
    return told, symptoms, counts


def reembed_op(
    book: EpisodeBook, model: VectorModel, statements: Mapping[str, Vector], lines: Mapping[str, Vector]
) -> tuple[JSONObject, VectorCounts]:
    """The op that gives ``book`` the vectors of ``model`` (``statements`` and ``lines``: the new
    vectors of ``kept_texts``), and what it re-embeds and drops."""
    counts = VectorCounts()
    problems: JSONArray = []
    symptoms_of: dict[str, dict[str, Vector]] = {}
    for p in book.problems.values():
        before = (int(p.vector is not None), len(p.phrasings), len(p.symptoms))
        told, symptoms_of[p.id], made = _told(p.text, p.failures, before, statements, lines)
        problems.append({"id": p.id, **told})
        counts.add(made)
    episodes: JSONArray = []
    for session, e in book.open.items():
        before = (int(e.vector is not None), 0, len(e.symptoms))
        told, _, made = _told(e.problem, e.attempts, before, statements, lines)
        episodes.append({"session_id": session, **told})
        counts.add(made)
    merges: JSONArray = []
    for m in book.merges.values():
        o = m.original
        before = (int(bool(o.get("vector"))), len(arr(o.get("phrasings", []))), len(arr(o.get("symptoms", []))))
        failures = _merged_failures(o)
        told, _, made = _told(_merged_statement(o), failures, before, statements, lines)
        # What the merge now gave the kept problem: its new symptoms made from the merged one's error lines.
        merged_lines = set(symptom_lines(failures))
        given: JSONArray = [encode_vector(v) for line, v in symptoms_of.get(m.keep, {}).items() if line in merged_lines]
        merges.append({"id": m.id, **told, "given": {"symptoms": given}})
        counts.add(made)
    errors: JSONArray = []
    for session, errs in book.errors.items():
        new = [encode_vector(lines.get(e.line)) if e.vector else "" for e in errs]
        errors.append({"session_id": session, "vectors": list(new)})
        remade = sum(bool(v) for v in new)
        counts.add(VectorCounts(remade, sum(bool(e.vector) for e in errs) - remade))
    op: JSONObject = {
        "op": REEMBED_OP,
        "model_id": model.model_id,
        "dimension": model.dimension,
        "problems": problems,
        "open": episodes,
        "merges": merges,
        "errors": errors,
    }
    return op, counts


def apply_reembed(book: EpisodeBook, op: JSONObject) -> None:
    """The op of ``reembed_op``: each part still in the book takes its new vectors; a problem's
    rewordings go, and merge records no longer name vectors of the old model."""
    for item in arr(op["problems"]):
        fields = obj(item)
        problem = book.problems.get(text(fields["id"]))
        if problem is not None:
            problem.vector = decode_vector(text(fields["vector"]))
            problem.phrasings = []
            problem.symptoms = vectors_of(arr(fields["symptoms"]))
            book.put_problem(problem)
    for item in arr(op["open"]):
        fields = obj(item)
        episode = book.open.get(text(fields["session_id"]))
        if episode is not None:
            episode.vector = decode_vector(text(fields["vector"]))
            episode.symptoms = vectors_of(arr(fields["symptoms"]))
    for item in arr(op["merges"]):
        fields = obj(item)
        merge = book.merges.get(text(fields["id"]))
        if merge is not None:
            merge.original = {
                **merge.original,
                "vector": fields["vector"],
                "phrasings": [],
                "symptoms": fields["symptoms"],
            }
            merge.took_vector = False  # the kept problem has its own statement's vector now
            merge.phrasings = []
            merge.symptoms = [text(v) for v in arr(obj(fields["given"])["symptoms"])]
    for item in arr(op["errors"]):
        fields = obj(item)
        errors = book.errors.get(text(fields["session_id"]), [])
        vectors = [text(v) for v in arr(fields["vectors"])]
        if len(vectors) == len(errors):
            for error, vector in zip(errors, vectors, strict=True):
                error.vector = vector
