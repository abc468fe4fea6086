"""ONNX int8 and fp32 against sentence-transformers/torch, side by side in one run.

    python -m bench.bench_embed_backends [--runs 200] [--json]

Prints, for each backend: median and p95 latency of encoding one prompt-sized
sentence, throughput on a 256-text batch, the largest difference between the
fp32 ONNX and torch vectors, the int8 vectors' cosine to the fp32 ones, and the
latency ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from kernel import offline
from services.embedding.model import Encoder

PROMPTS = [
    "why does the gateway return 503 when the memory service restarts",
    "how did we pin torch so pip never pulls the CUDA wheel",
    "fix the flaky test in the hook circuit breaker",
    "what port does the kg service listen on",
]


def single_latencies(encoder: Encoder, runs: int) -> list[float]:
    for p in PROMPTS:
        encoder.encode([p])
    out = []
    for i in range(runs):
        start = time.perf_counter()
        encoder.encode([PROMPTS[i % len(PROMPTS)]])
        out.append((time.perf_counter() - start) * 1000)
    return out


def batch_rate(encoder: Encoder, texts: list[str]) -> float:
    start = time.perf_counter()
    encoder.encode(texts)
    return len(texts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    offline.apply()
    from services.embedding.model import load_encoder

    encoders = {
        "int8": load_encoder(backend="onnx", precision="int8"),
        "onnx": load_encoder(backend="onnx", precision="fp32"),
        "torch": load_encoder(backend="torch"),
    }
    texts = [f"memory {i}: {PROMPTS[i % len(PROMPTS)]} and note number {i * 7}" for i in range(256)]
    result: dict[str, dict[str, list[float]]] = {}
    for _round in range(2):  # interleave so noise hits both
        for name, enc in encoders.items():
            lat = single_latencies(enc, args.runs // 2)
            rate = batch_rate(enc, texts)
            row = result.setdefault(name, {"lat": [], "rate": []})
            row["lat"] += lat
            row["rate"].append(rate)
    summary = {
        name: {
            "single_p50_ms": statistics.median(r["lat"]),
            "single_p95_ms": float(np.percentile(r["lat"], 95)),
            "batch_texts_per_s": statistics.median(r["rate"]),
        }
        for name, r in result.items()
    }
    diff = float(np.abs(encoders["onnx"].encode(texts) - encoders["torch"].encode(texts)).max())
    ratio = summary["torch"]["single_p50_ms"] / summary["onnx"]["single_p50_ms"]
    int8_ratio = summary["int8"]["single_p50_ms"] / summary["onnx"]["single_p50_ms"]
    cosines = (encoders["int8"].encode(texts) * encoders["onnx"].encode(texts)).sum(axis=1)
    report = {
        "backends": summary,
        "max_abs_diff": diff,
        "torch_over_onnx_p50": ratio,
        "int8_over_fp32_p50": int8_ratio,
        "int8_cosine_mean": float(cosines.mean()),
        "int8_cosine_min": float(cosines.min()),
    }
    if args.json:
        print(json.dumps(report))
        return
    for name, s in summary.items():
        print(
            f"{name:6s} one sentence p50 {s['single_p50_ms']:6.2f} ms  p95 {s['single_p95_ms']:6.2f} ms  "
            f"batch of 256 {s['batch_texts_per_s']:7.1f} texts/s"
        )
    print(f"torch/onnx single-sentence p50 ratio {ratio:.2f}; max |onnx - torch| = {diff:.1e}")
    print(
        f"int8/fp32 single-sentence p50 ratio {int8_ratio:.2f}; int8 cosine to fp32: mean {cosines.mean():.4f}, "
        f"min {cosines.min():.4f}"
    )


if __name__ == "__main__":
    main()
