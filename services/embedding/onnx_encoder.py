"""Serve the exported ONNX graph with onnxruntime and a fast tokenizer.

No torch in this process. Texts in a batch are sorted by length and encoded
in chunks, so short prompts never pay for padding up to a long document.
``precision`` picks the fp32 graph or its int8 derivative (see onnx_export).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from services.embedding.onnx_export import check_supported, ensure_exported

CHUNK = 64
log = logging.getLogger("mnemex.embedding")


def _check_or_drop(ort: Any, onnx_file: Path) -> None:
    """Drop ``onnx_file`` from the cache if onnxruntime cannot load it (the next export rebuilds it)."""
    try:
        ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    except Exception:  # same as above: onnxruntime's own error types
        onnx_file.unlink(missing_ok=True)


@dataclass
class OnnxEncoder:
    model_id: str
    dimension: int
    device: str
    backend: str
    max_seq_length: int
    precision: str
    # onnxruntime.InferenceSession and tokenizers.Tokenizer, imported lazily at load
    _session: Any
    _tokenizer: Any

    @classmethod
    def load(
        cls, model_dir: Path, model_id: str, cache: Path | None = None, threads: int = 0, precision: str = "int8"
    ) -> OnnxEncoder:
        """``threads`` = 0: onnxruntime's default (one per core)."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        max_len = check_supported(model_dir)
        onnx_file = ensure_exported(model_dir, cache, precision=precision)
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
            session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime's own error types: a truncated or corrupt cached graph
            # The cache holds only derived files: rebuild this one once rather than refuse to start.
            log.warning("cached ONNX graph %s is unreadable (%s); rebuilding it", onnx_file, exc)
            onnx_file.unlink(missing_ok=True)
            if precision != "fp32":  # the int8 graph is derived from the fp32 one, which may be the bad file
                _check_or_drop(ort, ensure_exported(model_dir, cache, precision="fp32"))
            onnx_file = ensure_exported(model_dir, cache, precision=precision)
            session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
        encoder = cls(
            model_id=model_id,
            dimension=0,
            device="cpu",
            backend="onnx",
            max_seq_length=max_len,
            precision=precision,
            _session=session,
            _tokenizer=tokenizer,
        )
        encoder.dimension = int(encoder.encode(["dimension probe"]).shape[1])
        return encoder

    def _run(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        feed = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        return np.asarray(self._session.run(None, feed)[0])

    def encode(self, texts: list[str]) -> np.ndarray:
        if len(texts) <= 1:
            return np.ascontiguousarray(self._run(texts), dtype=np.float32)
        if self.precision == "int8":
            # Dynamic quantization scales activations per call, over the whole batch: batched
            # rows would move with their neighbours (cosine down to 0.98 against the text
            # alone). One text per call keeps every vector a function of its text. It costs
            # short texts about a third of the batched throughput and makes long ones faster.
            return np.ascontiguousarray(np.concatenate([self._run([t]) for t in texts]), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        parts = [self._run([texts[i] for i in order[s : s + CHUNK]]) for s in range(0, len(order), CHUNK)]
        stacked = np.concatenate(parts).astype(np.float32, copy=False)
        out = np.empty_like(stacked)
        out[order] = stacked
        return out
