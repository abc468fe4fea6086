"""Prepare the embedding model's ONNX graphs before the first start, saying so.

    prepare_model(report=print)   # called by `mnemex up` before it starts the services

On a fresh install the embedding service would build its graphs (``onnx_cache``: the
int8 graph and its per-sequence rewrite, sharing one mapped weights file) while loading, and
``mnemex up`` would sit silent for that time. Built here first, with a line that
says what is happening and how long it takes and a line when it is done, the
service then finds them in the cache. Nothing is printed when the cache already
holds them (every later start; but a line says what was freed when files that are no longer
served are removed: ``onnx_cache.prune``), or when the settings choose a path without ONNX
(torch backend, a GPU); a failure is reported and left to the service, which
falls back as it always does (``model.load_encoder``). A missing model package, or
weights that are not the published ones, is no failure to fall back from: it is raised,
with the command that fixes it, and ``mnemex up`` stops there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from kernel.config import ConfigError
from services.embedding.onnx_cache import Served, ensure_served, prune, served_files
from services.embedding.onnx_export import OnnxUnsupported, check_supported
from services.embedding.packaged_model import check_packaged_weights, model_directory
from services.embedding.settings import EmbeddingSettings

TYPICAL_SECONDS = "about 15 to 40 s"  # measured on 2 cores: fp32 build, int8, per-sequence rewrite, mapped copies


def served_graphs(model_dir: Path, precision: str) -> Served:
    """The cached files the embedding service opens for ``precision``."""
    return served_files(model_dir, precision)


def onnx_model(environ: Mapping[str, str] | None = None) -> tuple[Path, str] | None:
    """(model directory, precision) when the service will serve this model with ONNX, else None."""
    try:
        settings = EmbeddingSettings.from_env(environ)
    except ConfigError:
        return None  # the service says what is wrong with the setting when it starts
    model_dir = model_directory(settings.model_path)
    if settings.backend not in ("auto", "onnx") or settings.device != "cpu":
        return None
    try:
        check_supported(model_dir)
    except (OSError, ValueError, KeyError, OnnxUnsupported):
        return None
    return model_dir, settings.precision


def prepare_model(report: Callable[[str], None], environ: Mapping[str, str] | None = None) -> bool:
    """Build what the embedding service will open, if missing, with a start and a done line; then
    remove the cached files it will not open (another precision's, an older export's), saying what was freed.

    Returns True when everything it needs is in the cache (or nothing was needed). Raises
    ``ModelMissing`` or ``WeightsMismatch`` (``ConfigError``s whose line says the fix) when
    the service could not serve the model at all, so ``mnemex up`` stops before starting it."""
    found = onnx_model(environ)
    if found is None:
        return True
    model_dir, precision = found
    ready = True
    if not served_graphs(model_dir, precision).exists():
        ready = _build(report, model_dir, precision)
    if ready:
        freed = prune(model_dir, precision)
        if freed:
            total = sum(size for _, size in freed) / 1e6
            report(
                f"removed {len(freed)} cached ONNX file(s) the embedding service no longer opens "
                f"(older exports or another precision), {total:.0f} MB freed from {freed[0][0].parent}"
            )
    return ready


def _build(report: Callable[[str], None], model_dir: Path, precision: str) -> bool:
    check_packaged_weights(model_dir)
    report(
        f"preparing the embedding model for its first start: building its ONNX graph ({precision}) "
        f"from {model_dir.name}, {TYPICAL_SECONDS}; later starts reuse it ..."
    )
    started = time.monotonic()
    try:
        ensure_served(model_dir, precision=precision)
    except (OnnxUnsupported, OSError) as exc:
        report(f"could not prepare the ONNX graph ({exc}); the embedding service will try again and log why")
        return False
    report(f"embedding model ready in {time.monotonic() - started:.1f} s")
    return True
