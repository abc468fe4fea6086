"""Fuzz the live gateway: schemathesis over its OpenAPI document, plus raw-body and MCP fuzzing.

Used by ``test_fuzz_gateway.py`` with a small, derandomized budget, and as a
command for the long run against any gateway::

    .venv/bin/python -m tests.reliability.fuzz_api --examples 200
    .venv/bin/python -m tests.reliability.fuzz_api --url http://127.0.0.1:27300 --examples 500

(without --url it starts an in-process stack in a temporary MNEMEX_HOME).
A *finding* is any 5xx, or a response that is not JSON where JSON is promised.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import httpx
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

if TYPE_CHECKING:
    from schemathesis import GenerationMode

# Paths whose bodies are read raw (no schema in OpenAPI): fuzzed by hand below.
RAW_BODY_PATHS = ("/api/ingest", "/api/import")


@dataclass
class FuzzReport:
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    findings: list[str] = field(default_factory=list)
    per_operation: dict[str, int] = field(default_factory=dict)

    def record(self, label: str, status: int, detail: str) -> None:
        self.requests += 1
        self.statuses[status] += 1
        self.per_operation[label] = self.per_operation.get(label, 0) + 1
        if status >= 500 and len(self.findings) < 50:
            self.findings.append(f"{label} -> {status}: {detail[:300]}")


def _settings(examples: int, derandomize: bool) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=derandomize,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


def fuzz_openapi(url: str, examples: int, report: FuzzReport, derandomize: bool = True) -> None:
    import schemathesis
    from schemathesis import GenerationMode

    schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    assert operations, "the gateway's OpenAPI lists no operations"
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                _operation_test(url, operation, mode, examples, report, derandomize)()
            except Exception as exc:  # an unsatisfiable schema is not a server failure
                if "Unsatisfiable" not in type(exc).__name__:
                    raise


class _Reply(Protocol):
    status_code: int
    text: str


class _Case(Protocol):
    """What the fuzzer uses of a schemathesis ``Case``."""

    body: object

    def call(self, base_url: str | None = None, *, timeout: float) -> _Reply: ...


class _Operation(Protocol):
    """What the fuzzer uses of a schemathesis ``APIOperation`` (generic over its schema's types)."""

    label: str

    def as_strategy(self, generation_mode: GenerationMode = ...) -> st.SearchStrategy[object]: ...


def _operation_test(
    url: str, operation: _Operation, mode: GenerationMode, examples: int, report: FuzzReport, derandomize: bool
) -> Callable[[], None]:
    label = f"{operation.label} [{mode.value}]"

    @_settings(examples, derandomize)
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case: _Case) -> None:
        response = case.call(base_url=url, timeout=60)
        report.record(label, response.status_code, f"{case.body!r:.200} -> {response.text}")

    return run


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=20,
)
INGEST_FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "title": st.text(max_size=80),
        "filename": st.text(max_size=80),
        "text": st.text(max_size=500),
        "data_base64": st.text(max_size=200)
        | st.binary(max_size=300).map(lambda b: __import__("base64").b64encode(b).decode()),
        "source": st.text(max_size=50),
        "cwd": st.text(max_size=80),
    },
)
RECORD = st.fixed_dictionaries(
    {"type": st.sampled_from(["memory", "kg", "header", "end", "weird"])},
    optional={
        "record": st.fixed_dictionaries(
            {},
            optional={
                "collection": st.sampled_from(["working", "history", "patterns", "memory_bank", "books", "nope"])
                | st.text(max_size=10),
                "content": st.text(max_size=200) | JSON_VALUES,
                "id": st.text(max_size=60),
                "metadata": JSON_VALUES,
                "scope": JSON_VALUES,
                "embedding": st.text(max_size=40),
            },
        ),
        "graph": JSON_VALUES,
        "format": st.text(max_size=20),
        "version": JSON_VALUES,
    },
)
MCP_MESSAGE = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0", ""])},
    optional={
        "id": st.integers() | st.text(max_size=10) | st.none(),
        "method": st.sampled_from(["tools/list", "tools/call", "initialize", "resources/list", "nope"])
        | st.text(max_size=20),
        "params": st.fixed_dictionaries(
            {},
            optional={
                "name": st.sampled_from(
                    [
                        "search_memory",
                        "add_to_memory_bank",
                        "score_response",
                        "update_memory",
                        "archive_memory",
                        "record_response",
                        "query_kg",
                        "get_context_insights",
                        "nope",
                    ]
                ),
                "arguments": st.dictionaries(
                    st.sampled_from(
                        [
                            "query",
                            "id",
                            "content",
                            "outcome",
                            "limit",
                            "days_back",
                            "memory_scores",
                            "related",
                            "cwd",
                            "entities",
                            "tags",
                        ]
                    ),
                    JSON_VALUES,
                    max_size=4,
                ),
            },
        )
        | JSON_VALUES,
    },
)


def fuzz_ingest(url: str, examples: int, report: FuzzReport, derandomize: bool = True) -> None:
    with httpx.Client(base_url=url, timeout=60) as client:

        @_settings(examples, derandomize)
        @given(body=INGEST_FIELDS | JSON_VALUES, raw=st.binary(max_size=400), as_json=st.booleans())
        def ingest(body: object, raw: bytes, as_json: bool) -> None:
            if as_json:
                reply = client.post("/api/ingest", json=body)
            else:
                reply = client.post("/api/ingest", content=raw, headers={"Content-Type": "application/json"})
            report.record("POST /api/ingest [raw]", reply.status_code, reply.text)
            files = {"file": ("f.txt" if as_json else "f.pdf", raw)}
            reply = client.post(
                "/api/ingest", files=files, data={"title": str(body)[:50]}, headers={"X-Mnemex-Client": "fuzz"}
            )
            report.record("POST /api/ingest [multipart]", reply.status_code, reply.text)

        ingest()


def fuzz_import(url: str, examples: int, report: FuzzReport, derandomize: bool = True) -> None:
    with httpx.Client(base_url=url, timeout=60) as client:

        @_settings(examples, derandomize)
        @given(lines=st.lists(RECORD | JSON_VALUES, max_size=6), junk=st.binary(max_size=200), keep=st.booleans())
        def import_lines(lines: list[object], junk: bytes, keep: bool) -> None:
            body = "\n".join(json.dumps(line) for line in lines).encode() + b"\n" + junk
            reply = client.post(
                "/api/import",
                content=body,
                params={"keep_user": str(keep).lower(), "cwd": "/fuzz"},
                headers={"Content-Type": "application/x-ndjson"},
            )
            report.record("POST /api/import [raw]", reply.status_code, reply.text)

        import_lines()


def fuzz_mcp(url: str, examples: int, report: FuzzReport, derandomize: bool = True) -> None:
    with httpx.Client(base_url=url, timeout=60) as client:

        @_settings(examples, derandomize)
        @given(message=MCP_MESSAGE | JSON_VALUES)
        def mcp(message: object) -> None:
            reply = client.post(
                "/mcp", json=message, headers={"Accept": "application/json, text/event-stream", "X-Mnemex-Cwd": "/fuzz"}
            )
            report.record("POST /mcp [json-rpc]", reply.status_code, reply.text)

        mcp()


RAW_FUZZERS = {"ingest": fuzz_ingest, "import": fuzz_import, "mcp": fuzz_mcp}


def run_all(url: str, examples: int, derandomize: bool = True) -> FuzzReport:
    report = FuzzReport()
    fuzz_openapi(url, examples, report, derandomize)
    for fuzzer in RAW_FUZZERS.values():
        fuzzer(url, examples, report, derandomize)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="a running gateway; default: start an in-process stack")
    parser.add_argument("--examples", type=int, default=200, help="examples per operation and mode")
    args = parser.parse_args()
    started = time.monotonic()
    stack = None
    url = args.url
    if not url:
        from kernel import offline

        offline.apply()
        from tests.reliability.standalone import start_standalone

        stack = start_standalone(Path(tempfile.mkdtemp(prefix="mnemex-fuzz-")))
        url = stack.gateway.url
    try:
        report = run_all(url, args.examples, derandomize=False)
    finally:
        if stack is not None:
            stack.stop()
    print(
        f"fuzz: {report.requests} requests over {len(report.per_operation)} operations "
        f"in {time.monotonic() - started:.0f} s; statuses {dict(sorted(report.statuses.items()))}"
    )
    print(f"5xx findings: {len(report.findings)}")
    for finding in report.findings:
        print("  " + finding)
    raise SystemExit(1 if report.findings else 0)


if __name__ == "__main__":
    main()
