"""Serve the exported ONNX graph with onnxruntime and a fast tokenizer.

No torch in this process. The session runs the cached graph whose large weights
onnxruntime maps from disk (``onnx_cache``, ``onnx_mapped``: about 35 MB less
resident for MiniLM). Texts in a batch are sorted by token length and
encoded in chunks, so short prompts never pay for padding up to a long document.
``precision`` picks the fp32 graph or its int8 derivative (see onnx_export).

int8: one text runs the graph ``quantize_dynamic`` wrote (fastest alone); a
batch runs its per-sequence rewrite (``row_quantization``), whose rows do not
depend on their batch-mates, in chunks of ``INT8_CHUNK``. Both give a text alone
the same vector bit for bit, and a batched row stays within 2e-7 of it.
``MNEMEX_EMBEDDING_INT8_BATCHING=0`` encodes one text per call instead (the
previous behaviour, kept for benchmarks).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from services.embedding.onnx_cache import Served, ensure_served
from services.embedding.onnx_export import check_supported

if TYPE_CHECKING:
    from tokenizers import Tokenizer

CHUNK = 64
INT8_CHUNK = 16  # measured best for ~60-token texts on 2 cores
# Longer texts run faster one per call through the fused original graph (measured: 256-token
# chunks 57/s alone against 34/s batched; 60-token texts 190/s alone, 210/s batched).
INT8_BATCH_MAX_TOKENS = 96
BATCHING_ENV = "MNEMEX_EMBEDDING_INT8_BATCHING"
log = logging.getLogger("mnemex.embedding")


TokenArrays = dict[str, npt.NDArray[np.int64]]


class InferenceSession(Protocol):
    """What this encoder calls on an ``onnxruntime.InferenceSession`` (onnxruntime ships no types).

    Every graph it runs has one float32 output, ``embedding`` ([batch, hidden])."""

    def run(
        self, output_names: Sequence[str] | None, input_feed: Mapping[str, npt.NDArray[np.int64]]
    ) -> Sequence[npt.NDArray[np.float32]]: ...


def open_session(graph: Path, options: object) -> InferenceSession:
    """An onnxruntime CPU session over ``graph`` (its weights mapped from the cache's ``.weights`` file).

    ``options``: an ``onnxruntime.SessionOptions``."""
    import onnxruntime as ort

    session: InferenceSession = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
    return session


@dataclass
class OnnxEncoder:
    model_id: str
    dimension: int
    device: str
    backend: str
    max_seq_length: int
    precision: str
    # onnxruntime and tokenizers are imported lazily, at load
    _session: InferenceSession
    _tokenizer: Tokenizer
    _served: Served | None = None
    _options: object = None  # the onnxruntime.SessionOptions the sessions were opened with
    _rows_session: InferenceSession | None = field(default=None, repr=False)
    int8_batching: bool = True

    @classmethod
    def load(
        cls, model_dir: Path, model_id: str, cache: Path | None = None, threads: int = 0, precision: str = "int8"
    ) -> OnnxEncoder:
        """``threads`` = 0: onnxruntime's default (one per core)."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        max_len = check_supported(model_dir)
        served = ensure_served(model_dir, cache, precision)
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.enable_truncation(max_len)
        pad_id = tokenizer.token_to_id("[PAD]")
        tokenizer.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # Idle pool threads otherwise spin for a while after every call: 3 ms of
        # work cost ~20 ms of CPU, taken from the services running beside it.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if threads > 0:
            options.intra_op_num_threads = threads
        try:
            session = open_session(served.single, options)
        except Exception as exc:  # onnxruntime's own error types: a truncated or corrupt cached file
            # The cache holds only derived files: rebuild them once rather than refuse to start.
            log.warning("cached ONNX graph %s is unreadable (%s); rebuilding it", served.single, exc)
            served.drop()
            served = ensure_served(model_dir, cache, precision)
            session = open_session(served.single, options)
        encoder = cls(
            model_id=model_id,
            dimension=0,
            device="cpu",
            backend="onnx",
            max_seq_length=max_len,
            precision=precision,
            _session=session,
            _tokenizer=tokenizer,
            _served=served,
            _options=options,
            int8_batching=os.environ.get(BATCHING_ENV, "1").strip() != "0",
        )
        encoder.dimension = int(encoder.encode(["dimension probe"]).shape[1])
        return encoder

    def _rows(self) -> InferenceSession | None:
        """The per-sequence int8 session, opened on the first batch (None: one text per call)."""
        rows = self._served.rows if self._served is not None else None
        if self._rows_session is None and self.int8_batching and rows is not None:
            try:
                self._rows_session = open_session(rows, self._options)
            except Exception as exc:  # onnxruntime's own error types: a file damaged since the load
                log.warning("int8 batches fall back to one text per call: %s", exc)
                self.int8_batching = False
        return self._rows_session

    def _run(self, texts: list[str]) -> npt.NDArray[np.float32]:
        return self._feed(self._arrays(texts), self._session)

    def _arrays(self, texts: list[str]) -> TokenArrays:
        """Token arrays of ``texts``, padded to the longest."""
        encodings = self._tokenizer.encode_batch(texts)
        return {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }

    @staticmethod
    def _feed(feed: TokenArrays, session: InferenceSession) -> npt.NDArray[np.float32]:
        return np.asarray(session.run(None, feed)[0])

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if len(texts) <= 1:
            return np.ascontiguousarray(self._run(texts), dtype=np.float32)
        if self.precision == "int8":
            rows = self._rows()
            if rows is None:
                # The graph quantize_dynamic wrote scales activations over the whole batch: batched
                # rows would move with their neighbours (cosine down to 0.98). One text per call.
                return np.ascontiguousarray(np.concatenate([self._run([t]) for t in texts]), dtype=np.float32)
            return self._sorted_chunks(texts, INT8_CHUNK, rows, alone_above=INT8_BATCH_MAX_TOKENS)
        return self._sorted_chunks(texts, CHUNK, self._session)

    def _sorted_chunks(
        self, texts: list[str], chunk: int, session: InferenceSession, alone_above: int = 0
    ) -> npt.NDArray[np.float32]:
        """Encode in chunks of similar token length (little padding), rows back in the callers' order.

        ``alone_above``: texts longer than this many tokens run one per call on the original graph
        (the same vector as in a batch, up to float rounding; faster for long int8 texts)."""
        arrays = self._arrays(texts)
        lengths = arrays["attention_mask"].sum(axis=1)
        order = np.argsort(lengths, kind="stable")
        parts = []
        start = 0
        while start < len(order):
            if alone_above and lengths[order[start]] > alone_above:
                row = order[start : start + 1]
                width = int(lengths[row].max())
                parts.append(self._feed({k: v[row, :width] for k, v in arrays.items()}, self._session))
                start += 1
                continue
            rows = order[start : start + chunk]
            if alone_above:
                rows = rows[lengths[rows] <= alone_above]
            width = int(lengths[rows].max())
            parts.append(self._feed({k: v[rows, :width] for k, v in arrays.items()}, session))
            start += len(rows)
        stacked = np.concatenate(parts).astype(np.float32, copy=False)
        out = np.empty_like(stacked)
        out[order] = stacked
        return out
