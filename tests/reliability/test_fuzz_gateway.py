"""Bad input at the HTTP edge: schemathesis over the gateway's OpenAPI, plus raw bodies and MCP.

Every operation gets positive and negative examples; the raw-body endpoints
(ingest, import) and the MCP JSON-RPC endpoint get hypothesis-generated
bodies. Zero 5xx. The long run: ``python -m tests.reliability.fuzz_api``.
"""

from __future__ import annotations

import pytest

from tests.reliability.fuzz_api import RAW_FUZZERS, FuzzReport, fuzz_openapi
from tests.reliability.inproc import InprocStack

pytestmark = pytest.mark.slow

EXAMPLES = 10  # per operation and mode; derandomized, so CI runs the same cases every time


def test_schemathesis_finds_no_server_errors(stack: InprocStack) -> None:
    report = FuzzReport()
    fuzz_openapi(stack.gateway.url, EXAMPLES, report)
    print(f"schemathesis: {report.requests} requests over {len(report.per_operation)} operation/modes")
    assert len(report.per_operation) >= 30, sorted(report.per_operation)  # ~18 operations x 2 modes
    assert report.requests >= 200
    assert 422 in report.statuses and 200 in report.statuses, report.statuses
    assert not report.findings, "\n".join(report.findings)


@pytest.mark.parametrize(
    "target",
    [
        "ingest",
        "mcp",
        "import",
    ],
)
def test_raw_bodies_find_no_server_errors(target: str, stack: InprocStack) -> None:
    report = FuzzReport()
    RAW_FUZZERS[target](stack.gateway.url, EXAMPLES * 2, report)
    print(f"{target}: {report.requests} requests")
    assert report.requests >= EXAMPLES * 2
    assert not report.findings, "\n".join(report.findings)


@pytest.mark.parametrize(
    "header",
    [
        b'{"type": "header", "format": "not-mnemex"}',
        b'{"type": "header", "format": "mnemex-export", "version": "two"}',
    ],
)
def test_import_with_a_foreign_header_is_rejected_with_422(header: bytes, stack: InprocStack) -> None:
    reply = stack.gateway.client.post(
        "/api/import", content=header + b"\n", headers={"Content-Type": "application/x-ndjson"}
    )
    assert reply.status_code == 422, reply.text
    assert "mnemex-export" in reply.json()["error"]
