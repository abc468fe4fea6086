"""Build the ONNX graph of a mean-pooled sentence-transformers model, once, into a cache.

The graph includes mean pooling and L2 normalisation, so its output is the
same unit vector sentence-transformers returns (max difference about 2e-7 for
all-MiniLM-L6-v2). A BERT encoder is written node by node from its safetensors
weights (``onnx_graph``: needs ``onnx`` and ``safetensors``, no torch), so a
plain install serves the model without torch. Another architecture is traced
with torch when the ``mnemex[torch]`` extra is installed, and served by
sentence-transformers otherwise. Serving the graph needs only onnxruntime and
tokenizers, which start in a fraction of a second.

The service serves these graphs from the cache that ``onnx_cache`` builds (in a child
process, so the service never keeps ``onnx`` resident), keeping only the served files.
This module's command writes one graph, with its weights inside, to a file of your
choosing (``--out``), under a temporary name then renamed; without ``--out`` it
prepares the cache as the service would.

Precision ``int8`` (the CPU default) derives a second file from the fp32 graph:
every MatMul weight quantized per output channel, activations quantized on the
fly (onnxruntime dynamic quantization). A prompt is encoded in about two thirds
of the fp32 time, because a short input is bound by streaming 42 MB of fp32
weights through the cache, and int8 weights are a quarter of that. The vectors
stay within cosine 0.99 (mean) of the fp32 ones; LoCoMo recall@10 stayed at
0.745, recall@5 0.664 -> 0.659 (BENCHMARKS.md). Per-tensor quantization was measured too and
dropped: cosine 0.95, too lossy.

    python -m services.embedding.onnx_export [--model PATH] [--precision int8|fp32] [--out FILE] [--json]
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import sys
import warnings
from pathlib import Path

EXPORT_FORMAT = "mnemex-onnx-4"  # bump when the cached files change (3: built from safetensors; 4: one shared .weights)
OPSET = 17
PRECISIONS = ("int8", "fp32")
ROWS = "int8-rows"  # derived from int8 for batches (row_quantization); not a precision users pick


class OnnxUnsupported(RuntimeError):
    """The model cannot be served by the ONNX path (pooling, extra layers, missing files)."""


def cache_root(environ: os._Environ[str] | dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    explicit = env.get("MNEMEX_MODEL_CACHE")
    if explicit:
        return Path(explicit)
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mnemex" / "onnx"


def check_supported(model_dir: Path) -> int:
    """Return max_seq_length if the model is Transformer + mean Pooling (+ Normalize)."""
    modules = json.loads((model_dir / "modules.json").read_text())
    kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
    if kinds[:2] != ["Transformer", "Pooling"] or any(k != "Normalize" for k in kinds[2:]):
        raise OnnxUnsupported(f"modules {kinds}: only Transformer + Pooling (+ Normalize) export to ONNX")
    pooling = json.loads((model_dir / modules[1]["path"] / "config.json").read_text())
    modes = [k for k, v in pooling.items() if k.startswith("pooling_mode") and v]
    if modes != ["pooling_mode_mean_tokens"]:
        raise OnnxUnsupported(f"pooling {modes}: only mean pooling exports to ONNX")
    if not (model_dir / "tokenizer.json").exists():
        raise OnnxUnsupported("no tokenizer.json beside the model")
    bert_cfg = model_dir / "sentence_bert_config.json"
    return int(json.loads(bert_cfg.read_text()).get("max_seq_length", 512)) if bert_cfg.exists() else 512


def model_digest(model_dir: Path) -> str:
    """Identify a model directory by its files' names and sizes and its small configs' bytes."""
    h = hashlib.sha256(EXPORT_FORMAT.encode())
    for path in sorted(p for p in model_dir.rglob("*") if p.is_file()):
        rel = path.relative_to(model_dir).as_posix()
        h.update(f"{rel}:{path.stat().st_size}\n".encode())
        if path.suffix == ".json" and path.stat().st_size < 1_000_000:
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cached_model_path(model_dir: Path, root: Path | None = None, precision: str = "fp32") -> Path:
    suffix = "" if precision == "fp32" else f"-{precision}"
    return (root or cache_root()) / f"{model_dir.name}-{model_digest(model_dir)}{suffix}.onnx"


def quantize(fp32_file: Path, out: Path) -> Path:
    """Write the int8 (per-channel dynamic) version of ``fp32_file`` atomically. No torch."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    logging.disable(logging.WARNING)  # it logs a pre-processing hint on the root logger, aimed at image models
    try:
        quantize_dynamic(
            str(fp32_file), str(tmp), op_types_to_quantize=["MatMul"], per_channel=True, weight_type=QuantType.QInt8
        )
        os.replace(tmp, out)
    finally:
        logging.disable(logging.NOTSET)
        tmp.unlink(missing_ok=True)  # only left when quantization failed
    return out


def export(model_dir: Path, out: Path) -> Path:
    """Write the fp32 graph of ``model_dir`` to ``out`` atomically: built from safetensors (BERT, no torch),
    else traced with torch where the ``mnemex[torch]`` extra is installed."""
    from services.embedding.onnx_graph import GraphUnsupported, build_bert_graph
    from services.embedding.packaged_model import check_packaged_weights

    check_supported(model_dir)
    check_packaged_weights(model_dir)  # a damaged or substituted download is refused, not built into a graph
    try:
        model = build_bert_graph(model_dir)
    except GraphUnsupported as exc:
        if importlib.util.find_spec("torch") is None:
            raise OnnxUnsupported(f"{exc}; other models need torch: pip install 'mnemex[torch]'") from exc
        return trace_with_torch(model_dir, out)
    import onnx

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        onnx.save(model, str(tmp))
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)  # only left when saving failed
    return out


def trace_with_torch(model_dir: Path, out: Path) -> Path:
    """Trace the model with torch and write ``out`` atomically (models ``onnx_graph`` does not write)."""
    check_supported(model_dir)
    import torch
    from transformers import AutoModel

    from kernel import offline

    offline.apply()
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()

    class MeanPooled(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
        ) -> torch.Tensor:
            hidden = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    dummy = torch.ones(2, 8, dtype=torch.long)
    dynamic = {name: {0: "batch", 1: "tokens"} for name in ("input_ids", "attention_mask", "token_type_ids")}
    dynamic["embedding"] = {0: "batch"}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            MeanPooled(model),
            (dummy, dummy, torch.zeros_like(dummy)),
            str(tmp),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["embedding"],
            dynamic_axes=dynamic,
            opset_version=OPSET,
            dynamo=False,
        )
    os.replace(tmp, out)
    return out


def write_graph(model_dir: Path, out: Path, precision: str) -> Path:
    """Write the ``precision`` graph of ``model_dir`` to ``out``, weights inside (int8: the fp32 one beside it)."""
    if precision == "fp32":
        return export(model_dir, out)
    fp32 = cached_model_path(model_dir, out.parent)
    if not fp32.exists():
        export(model_dir, fp32)
    return quantize(fp32, out)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from services.embedding.packaged_model import packaged_model_path

    parser = argparse.ArgumentParser(description="Export the embedding model to the ONNX cache.")
    parser.add_argument("--model", default=None, help="sentence-transformers directory (default: packaged MiniLM)")
    parser.add_argument(
        "--out", default=None, help="write this one graph, weights inside (default: prepare the served cache)"
    )
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        default=os.environ.get("MNEMEX_EMBEDDING_PRECISION") or "int8",
        help="with --out, int8 also writes the fp32 graph it derives from beside it (default: "
        "MNEMEX_EMBEDDING_PRECISION, else int8)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if args.precision not in PRECISIONS:  # argparse does not check a default taken from the environment
        parser.error(f"MNEMEX_EMBEDDING_PRECISION={args.precision!r}: choose one of {', '.join(PRECISIONS)}")
    try:
        model_dir = Path(args.model or os.environ.get("MNEMEX_EMBEDDING_MODEL") or packaged_model_path())
    except ValueError as exc:  # ModelMissing: the line says what to install
        print(f"mnemex: {exc}", file=sys.stderr)
        return 1
    try:
        if args.out:
            out = Path(args.out)
            if not out.exists():
                write_graph(model_dir, out, args.precision)
        else:
            from services.embedding.onnx_cache import build_served, served_files

            served = served_files(model_dir, args.precision)
            out = served.single if served.exists() else build_served(model_dir, args.precision).single
    except (OnnxUnsupported, OSError, ImportError, ValueError, RuntimeError) as exc:
        print(f"mnemex: cannot export {model_dir} to ONNX ({args.precision}): {exc}", file=sys.stderr)
        return 1
    print(
        json.dumps({"model": str(model_dir), "onnx": str(out), "precision": args.precision})
        if args.json
        else f"ONNX model ready ({args.precision}): {out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
