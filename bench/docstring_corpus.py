"""A large corpus of real developer prose: docstring paragraphs of the installed Python packages.

    .venv/bin/python -m bench.docstring_corpus [--n 100000]   # build and cache the texts and vectors

The 100k benchmark needs 100k distinct, realistic texts with real MiniLM vectors.
Templated notes repeat a few thousand shapes (near-duplicate vectors, ties that make
recall meaningless), so this takes the paragraphs of every module, class and
function docstring under the interpreter's site-packages and standard library, every paragraph
that reads like prose (numpy, torch, chromadb,
grpc, transformers, ...): real, varied technical English of the length of a memory.
The paragraphs are de-duplicated and shuffled with a fixed seed; the first ``n`` are
the corpus and the next ``queries`` are held-out queries (never stored).

Vectors come from the embedding service's own encoder (``load_encoder()``, what
the service runs) and are cached under the temp dir, keyed by the texts' hash, so a
second run starts in seconds. Embedding 100k texts takes a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import random
import re
import sys
import sysconfig
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import numpy.typing as npt

MIN_CHARS, MAX_CHARS = 40, 400
_SPACE = re.compile(r"\s+")
_PROSE = re.compile(r"[A-Z][a-z]+ [a-z]")  # starts like a sentence (not a code sample or a field list)


def _paragraphs(source: str) -> list[str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            if not doc:
                continue
            for block in doc.strip().split("\n\n"):
                paragraph = _SPACE.sub(" ", block).strip()
                if MIN_CHARS <= len(paragraph) <= MAX_CHARS and _PROSE.match(paragraph) and "---" not in paragraph:
                    found.append(paragraph)
    return found


def _all_paragraphs(cache: Path) -> list[str]:
    """Every distinct prose paragraph of the docstrings under site-packages and the standard library."""
    path = cache / "docstring-paragraphs.json"
    if path.exists():
        cached: list[str] = json.loads(path.read_text(encoding="utf-8"))
        return cached
    paths = sysconfig.get_paths()
    seen: set[str] = set()
    for root in sorted({Path(paths["purelib"]), Path(paths["platlib"]), Path(paths["stdlib"])}):
        for file in sorted(root.rglob("*.py")):
            try:
                seen.update(_paragraphs(file.read_text(encoding="utf-8", errors="ignore")))
            except OSError:
                continue
    ordered = sorted(seen)
    path.write_text(json.dumps(ordered), encoding="utf-8")
    return ordered


def texts(total: int, seed: int = 19, cache: Path | None = None) -> list[str]:
    """``total`` distinct docstring paragraphs, in a seeded random order (parsing takes minutes once)."""
    ordered = list(_all_paragraphs(cache or _cache_dir()))
    random.Random(seed).shuffle(ordered)
    if len(ordered) < total:
        raise SystemExit(f"only {len(ordered)} distinct docstring paragraphs found; need {total}")
    return ordered[:total]


def _cache_dir() -> Path:
    folder = Path(tempfile.gettempdir()) / "mnemex-bench-corpus"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def corpus(
    n: int, queries: int, cache: Path | None = None
) -> tuple[list[str], npt.NDArray[np.float32], list[str], npt.NDArray[np.float32]]:
    """(texts, unit vectors, query texts, query vectors): cached after the first call."""
    all_texts = texts(n + queries, cache=cache)
    key = hashlib.sha256("\n".join(all_texts).encode()).hexdigest()[:16]
    path = (cache or _cache_dir()) / f"docstrings-{n + queries}-{key}.npy"
    if path.exists():
        vectors = np.load(path)
    else:
        from services.embedding.model import load_encoder

        encoder = load_encoder()
        start = time.perf_counter()
        chunks = [encoder.encode(all_texts[i : i + 512]) for i in range(0, len(all_texts), 512)]
        vectors = np.asarray(np.concatenate(chunks), dtype=np.float32)
        print(f"  embedded {len(all_texts)} texts in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        np.save(path, vectors)
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return all_texts[:n], vectors[:n], all_texts[n:], vectors[n:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1000)
    args = parser.parse_args()
    from kernel import offline

    offline.apply()
    docs, vectors, _, _ = corpus(args.n, args.queries)
    print(f"{len(docs)} texts, vectors {vectors.shape}")


if __name__ == "__main__":
    main()
