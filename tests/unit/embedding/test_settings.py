"""Embedding settings from the environment: defaults, and errors that name the variable."""

from __future__ import annotations

import pytest

from kernel.config import ConfigError
from services.embedding.settings import EmbeddingSettings


def test_defaults_serve_int8_onnx_on_the_cpu() -> None:
    settings = EmbeddingSettings.from_env({})
    assert (settings.backend, settings.device, settings.precision) == ("auto", "cpu", "int8")
    assert settings.address.startswith("127.0.0.1:")
    assert settings.inline_chars == 512


def test_precision_is_read_case_insensitively() -> None:
    assert EmbeddingSettings.from_env({"MNEMEX_EMBEDDING_PRECISION": " FP32 "}).precision == "fp32"


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"MNEMEX_EMBEDDING_PRECISION": "fp16"}, "MNEMEX_EMBEDDING_PRECISION='fp16': choose int8"),
        ({"MNEMEX_EMBEDDING_BACKEND": "tensorrt"}, "MNEMEX_EMBEDDING_BACKEND='tensorrt'"),
        ({"MNEMEX_EMBEDDING_THREADS": "two"}, "MNEMEX_EMBEDDING_MAX_BATCH / _BATCH_WINDOW_MS / _THREADS"),
        ({"MNEMEX_EMBEDDING_INLINE_CHARS": "lots"}, "_INLINE_CHARS must be numbers"),
        ({"MNEMEX_EMBEDDING_INLINE_CHARS": "-1"}, "MNEMEX_EMBEDDING_INLINE_CHARS=-1 must be 0 (off) or more"),
    ],
)
def test_a_bad_value_names_its_variable(env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError) as raised:
        EmbeddingSettings.from_env(env)
    assert named in str(raised.value)
