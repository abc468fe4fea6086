"""Embedding service settings (prefix ``MNEMEX_EMBEDDING_``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from kernel.config import ConfigError, Settings
from services.embedding.onnx_export import PRECISIONS

BACKENDS = ("auto", "onnx", "torch", "openvino")


@dataclass(frozen=True)
class EmbeddingSettings:
    address: str
    model_path: str | None  # None: the packaged offline all-MiniLM-L6-v2
    device: str
    backend: str
    max_batch: int = 128
    max_text_chars: int = 8192
    batch_window_ms: float = 10.0
    inline_chars: int = 512  # a lone text this short is encoded on the event loop (0: never)
    threads: int = 0  # onnxruntime intra-op threads; 0: one per core
    precision: str = "int8"  # ONNX only; torch is always fp32
    token: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EmbeddingSettings:
        env = os.environ if environ is None else environ
        base = Settings.from_env(env)
        backend = env.get("MNEMEX_EMBEDDING_BACKEND", "auto")
        if backend not in BACKENDS:
            raise ConfigError(f"MNEMEX_EMBEDDING_BACKEND={backend!r}: choose one of {', '.join(BACKENDS)}")
        precision = (env.get("MNEMEX_EMBEDDING_PRECISION") or "int8").strip().lower()
        if precision not in PRECISIONS:
            raise ConfigError(
                f"MNEMEX_EMBEDDING_PRECISION={precision!r}: choose int8 (faster, cosine 0.99 to fp32) or fp32 (exact)"
            )
        device = env.get("MNEMEX_EMBEDDING_DEVICE", "cpu")
        if not (device == "cpu" or device.startswith("cuda") or device == "mps"):
            raise ConfigError(f"MNEMEX_EMBEDDING_DEVICE={device!r}: use cpu, cuda, cuda:N or mps")
        try:
            max_batch = int(env.get("MNEMEX_EMBEDDING_MAX_BATCH", "128"))
            window = float(env.get("MNEMEX_EMBEDDING_BATCH_WINDOW_MS", "10"))
            threads = int(env.get("MNEMEX_EMBEDDING_THREADS", "0"))
            inline_chars = int(env.get("MNEMEX_EMBEDDING_INLINE_CHARS", "512"))
        except ValueError as exc:
            raise ConfigError(
                f"MNEMEX_EMBEDDING_MAX_BATCH / _BATCH_WINDOW_MS / _THREADS / _INLINE_CHARS must be numbers: {exc}"
            ) from exc
        if inline_chars < 0:
            raise ConfigError(f"MNEMEX_EMBEDDING_INLINE_CHARS={inline_chars} must be 0 (off) or more")
        return cls(
            address=base.embedding_addr,
            model_path=env.get("MNEMEX_EMBEDDING_MODEL") or None,
            device=device,
            backend=backend,
            max_batch=max_batch,
            batch_window_ms=window,
            inline_chars=inline_chars,
            threads=threads,
            precision=precision,
            token=base.token,
        )
