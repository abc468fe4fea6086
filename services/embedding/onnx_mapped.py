"""Write serving graphs whose large weights sit in one ``.weights`` file that onnxruntime maps from disk.

    write_mapped([(int8_src, int8_out), (rows_src, rows_out)], data=weights_file)

An ONNX file with its weights inside is parsed into the process's own memory:
the int8 MiniLM graph costs about 75 MB resident from the first call on, most of
it the 47 MB word-embedding table (30,522 rows x 384 floats; dynamic quantization
leaves a Gather's table in fp32). Saved with every initializer over 1 MB in a
data file beside the graph ("external data"), onnxruntime maps that file
instead of copying it (measured with onnxruntime 1.32), so a table row is
resident only once a token has looked it up, and the pages are the page cache's,
which the kernel can drop under pressure. The vectors are the same bit for bit.
Measured (2 cores, one int8 session, 20 prompts): 106 MB resident against 137.

Several graphs written together share the data file: a tensor they hold under the
same name with the same bytes is stored once. The int8 graph and its per-sequence
rewrite (``row_quantization``) hold the same word-embedding table, so the two take
one 47 MB file between them rather than one each, and their sessions map the same
pages. Imports ``onnx``: called in the child process that builds the cache
(``onnx_cache``), never in the service.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

MAP_OVER_BYTES = 1 << 20  # smaller initializers stay in the graph file
ALIGN = 1 << 16  # each tensor starts on a 64 KiB boundary, the widest mapping granularity (Windows)


def write_mapped(graphs: Sequence[tuple[Path, Path]], data: Path) -> list[Path]:
    """Write each ``(src, out)`` graph to ``out`` with its initializers over 1 MB in ``data``, shared.

    ``data`` is named in the graphs by its file name alone, so it must sit in the folder of every ``out``.
    The caller writes into a staging folder and renames (``onnx_cache``)."""
    import onnx
    from onnx.external_data_helper import set_external_data

    stored: dict[tuple[str, bytes], tuple[int, int]] = {}  # (name, sha256) -> (offset, length)
    models = []
    with data.open("wb") as sink:
        for src, out in graphs:
            if out.parent != data.parent:
                raise ValueError(f"{out} and {data} must share a folder (the graph names its data file alone)")
            model = onnx.load(str(src))
            for tensor in model.graph.initializer:
                if not tensor.HasField("raw_data") or len(tensor.raw_data) < MAP_OVER_BYTES:
                    continue
                key = (tensor.name, hashlib.sha256(tensor.raw_data).digest())
                if key not in stored:
                    sink.write(b"\0" * (-sink.tell() % ALIGN))
                    stored[key] = (sink.tell(), len(tensor.raw_data))
                    sink.write(tensor.raw_data)
                offset, length = stored[key]
                set_external_data(tensor, location=data.name, offset=offset, length=length)
                tensor.data_location = onnx.TensorProto.EXTERNAL
                tensor.ClearField("raw_data")
            models.append((model, out))
    for model, out in models:
        out.write_bytes(model.SerializeToString())
    return [out for _, out in models]
