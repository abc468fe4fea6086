"""Bad input at the REST edge that fuzzing will not find by chance.

- ingest: path traversal in the file name is refused with a clear message;
  files over 10 MB get 413 whatever the encoding (JSON text, base64,
  multipart, chunked without Content-Length) before any backend work;
- texts within the documented limits (a long assistant answer, a long fact)
  are stored, not turned into 503s.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator

import httpx
import pytest

from tests.reliability.inproc import InprocStack

UPLOAD = {"X-Mnemex-Client": "test"}  # a multipart upload says it comes from a client (gateway/web_guard.py)


TEN_MB = 10 * 1024 * 1024
PROJECT = "/srv/bad-input"

# Regression: ingest used to store a file name with path components ('../../etc/passwd.md') as given.
TRAVERSAL_NAMES = [
    "../../../etc/passwd.md",
    "..\\..\\windows\\win.ini.txt",
    "/etc/shadow.txt",
    "notes/../../x.md",
    "a\x00b.md",
]


@pytest.mark.parametrize("filename", TRAVERSAL_NAMES)
def test_ingest_refuses_path_traversal_in_the_file_name(filename: str, stack: InprocStack) -> None:
    reply = stack.gateway.post(
        "/api/ingest", {"title": "Traversal", "filename": filename, "text": "# hi\n\nbody", "cwd": PROJECT}
    )
    assert reply.status_code == 422, reply.text
    assert "file name" in reply.json()["error"] or "filename" in reply.json()["error"]


def test_multipart_ingest_refuses_path_traversal(stack: InprocStack) -> None:
    reply = stack.gateway.client.post(
        "/api/ingest",
        files={"file": ("../../../etc/passwd.md", b"# hi\n\nbody")},
        data={"cwd": PROJECT},
        headers=UPLOAD,
    )
    assert reply.status_code == 422, reply.text


def _assert_too_large(reply: httpx.Response) -> None:
    status = reply.status_code
    text = reply.text
    assert status == 413, (status, text[:300])
    assert "10 MB" in text or "10,485,760" in text, text[:300]


def test_ingest_over_10_mb_is_refused_in_every_encoding(stack: InprocStack) -> None:
    client = stack.gateway.client
    too_big = b"a" * (TEN_MB + 1)
    _assert_too_large(
        client.post(
            "/api/ingest", json={"title": "big", "filename": "big.txt", "text": too_big.decode(), "cwd": PROJECT}
        )
    )
    _assert_too_large(
        client.post(
            "/api/ingest",
            json={"title": "big", "filename": "big.pdf", "data_base64": base64.b64encode(too_big).decode()},
        )
    )
    _assert_too_large(
        client.post("/api/ingest", files={"file": ("big.md", too_big)}, data={"cwd": PROJECT}, headers=UPLOAD)
    )

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit must count streamed bytes
        yield b'{"title": "big", "filename": "big.txt", "text": "'
        for _ in range(15):
            yield b"a" * (1024 * 1024)
        yield b'"}'

    _assert_too_large(client.post("/api/ingest", content=chunks(), headers={"Content-Type": "application/json"}))
    books = client.get("/api/books", params={"cwd": PROJECT}).json()["books"]
    assert not [b for b in books if b["title"] == "big"]


def test_bodies_over_the_limit_are_refused_on_every_other_route(stack: InprocStack) -> None:
    big = "x" * (3 * 1024 * 1024)
    for path in ("/api/hooks/get-context", "/api/hooks/stop", "/api/memory-bank/add", "/api/search", "/mcp"):
        reply = stack.gateway.client.post(path, json={"prompt": big, "assistant_text": big, "content": big})
        assert reply.status_code == 413, (path, reply.status_code)


def test_an_empty_or_unsupported_file_gets_a_clear_422(stack: InprocStack) -> None:
    client = stack.gateway.client
    empty = client.post("/api/ingest", files={"file": ("empty.md", b"")}, data={"cwd": PROJECT}, headers=UPLOAD)
    assert empty.status_code == 422 and "empty" in empty.json()["error"]
    binary = client.post(
        "/api/ingest", files={"file": ("tool.exe", b"MZ\x90\x00")}, data={"cwd": PROJECT}, headers=UPLOAD
    )
    assert binary.status_code == 422 and ".pdf" in binary.json()["error"], binary.text
    fake_pdf = client.post(
        "/api/ingest", files={"file": ("fake.pdf", b"not a pdf")}, data={"cwd": PROJECT}, headers=UPLOAD
    )
    assert fake_pdf.status_code == 422, fake_pdf.text


# Regression: memory used to send whole texts to the embedding service, which refuses more than 8,192
# chars, so a stop with a long answer or a long fact (both within the gateway's limits) got 503.


def test_a_long_answer_is_recorded(stack: InprocStack) -> None:
    answer = "\n".join(f"Step {i}: update the retry budget in services/upload/worker.py and rerun" for i in range(400))
    reply = stack.gateway.post("/api/hooks/stop", {"session_id": "long", "cwd": PROJECT, "assistant_text": answer})
    assert reply.status_code == 200 and reply.json()["exchange_id"], reply.text


def test_a_long_fact_within_the_limit_is_stored(stack: InprocStack) -> None:
    content = " ".join(f"fact part {i} about the deploy pipeline" for i in range(400))  # ~14,000 of 20,000 allowed
    reply = stack.gateway.post("/api/memory-bank/add", {"content": content, "cwd": PROJECT})
    assert reply.status_code == 200, reply.text


# Regression (found by tests.reliability.fuzz_api): a cwd with a path component over 255 bytes made
# projects.git_root raise OSError(ENAMETOOLONG), a 500 on every endpoint that takes cwd.


def test_a_cwd_with_an_over_long_component_is_not_a_server_error(stack: InprocStack) -> None:
    cwd = "/srv/" + "a" * 300 + "/src"
    for reply in (
        stack.gateway.get("/api/books", cwd=cwd),
        stack.gateway.post("/api/hooks/get-context", {"session_id": "long-cwd", "prompt": "hi", "cwd": cwd}),
    ):
        assert reply.status_code < 500, reply.text[:200]
