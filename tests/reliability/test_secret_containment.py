"""Containment, part 2: secrets never reach storage, logs or any reply.

Pushes the secrets corpus (86 forms, evasions included) through every write
path (memory-bank add and update, the prompt and stop hooks, post-tool-use
observations, MCP record_response / add_to_memory_bank / update_memory,
archive reasons, ingest with a secret in the title, the file name and the
source, import, session ids, tags, and a cwd whose directory name is a
token), reads everything back through the API, then stops the stack and
scans every raw file under MNEMEX_HOME. The scan is the module's last test:
it stops the module's stack. Part 1 (hostile memories and markup) is
``test_containment.py``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kernel.json_values import as_object
from tests.reliability import inproc
from tests.reliability.inproc import InprocStack
from tests.support.json_read import json_list, json_str
from tests.support.loop_thread import LoopThread
from tests.support.mcp_client import call_tools, text_of
from tests.support.secrets_corpus import SECRETS, Secret

SECRET_PROJECT = "/srv/acme-secrets"
# Tokens that identify themselves (a tag carries the bare value, with no key name around it).
TAG_SECRETS = [
    s
    for s in SECRETS
    if s.name
    in ("aws-access-key-id", "github-pat-classic", "gitlab-pat", "npm-token", "huggingface-token", "google-api-key")
]


NDJSON = {"Content-Type": "application/x-ndjson"}


def _all_secrets(prefix: str) -> str:
    return prefix + "\n" + "\n".join(f"- {s.name} -> {s.text}" for s in SECRETS)


def _bodies(replies: list[object]) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in replies)


def _leaks(text: str, secrets: list[Secret] = SECRETS) -> list[str]:
    return [s.name for s in secrets if s.evidence in text]


# The WebSearch observation quotes its query: a value followed by a quote (these two) was once kept.
QUOTED_VALUE_MISSES = {"dotenv-password", "shopify-token"}
REDACTED = list(SECRETS)
# Names a secret must never reach: a session id, a book's title and file name, a tag, a cwd's directory name.
NAME_TOKEN = next(s for s in SECRETS if s.name == "github-oauth-token").needle
NAME_KEYED = next(s for s in SECRETS if s.name == "password-short")
TOKEN_CWD = f"/srv/acme-checkouts/{NAME_TOKEN}"


@dataclass
class SecretWrites:
    """What the write paths stored, for reading back."""

    ids: list[str] = field(default_factory=list)
    archived: str = ""  # an archived fact's id (not shown by id)
    book: str = ""  # titles as stored
    named_book: str = ""
    token_dir_id: str = ""  # a fact stored from a directory named by a token


@pytest.fixture(scope="module")
def secret_writes(stack: InprocStack) -> SecretWrites:
    """Every write path, each carrying the corpus. Returns ids and titles for reading back."""
    gateway = stack.gateway
    cwd = SECRET_PROJECT
    out = SecretWrites()
    # memory-bank add, then update with different secret-laden text
    added = gateway.ok("/api/memory-bank/add", {"content": _all_secrets("Credentials the user pasted:"), "cwd": cwd})
    out.ids.append(json_str(added, "memory", "id"))
    fact = gateway.ok("/api/memory-bank/add", {"content": "The staging database lives on db.internal", "cwd": cwd})
    gateway.ok(
        "/api/memory-bank/update",
        {"id": json_str(fact, "memory", "id"), "content": _all_secrets("Updated with:"), "cwd": cwd},
    )
    out.ids.append(json_str(fact, "memory", "id"))
    # the prompt hook records the prompt; stop stores the exchange
    for index, half in enumerate((SECRETS[:15], SECRETS[15:])):
        session = f"secret-session-{index}"
        prompt = "Please configure these:\n" + "\n".join(s.text for s in half)
        gateway.ok("/api/hooks/get-context", {"session_id": session, "prompt": prompt, "cwd": cwd})
        stopped = gateway.ok(
            "/api/hooks/stop",
            {"session_id": session, "cwd": cwd, "assistant_text": "Done. I used:\n" + "\n".join(s.text for s in half)},
        )
        out.ids.append(json_str(stopped, "exchange_id"))
        stopped = gateway.ok(
            "/api/hooks/stop",
            {"session_id": session + "-explicit", "cwd": cwd, "user_text": prompt, "assistant_text": "ok"},
        )
        out.ids.append(json_str(stopped, "exchange_id"))
    # post-tool-use observations (stored in the background)
    for secret in SECRETS:
        gateway.ok(
            "/api/hooks/post-tool-use",
            {
                "session_id": "secret-tools",
                "cwd": cwd,
                "tool_name": "Bash",
                "tool_input": {"command": "curl -s https://api.acme.dev/v1/deploy", "description": secret.text},
                "tool_response": {"stdout": secret.text, "stderr": ""},
            },
        )
        gateway.ok(
            "/api/hooks/post-tool-use",
            {
                "session_id": "secret-tools",
                "cwd": cwd,
                "tool_name": "WebSearch",
                "tool_input": {"query": secret.text[:110]},
                "tool_response": "results",
            },
        )
    # archive with a secret in the reason
    doomed = gateway.ok("/api/memory-bank/add", {"content": "Old VPN instructions for the billing team", "cwd": cwd})
    gateway.ok(
        "/api/memory-bank/archive",
        {
            "id": json_str(doomed, "memory", "id"),
            "cwd": cwd,
            "reason": "rotated: " + " ".join(s.text for s in SECRETS[:3])[:480],
        },
    )
    out.ids.append(json_str(doomed, "memory", "id"))
    out.archived = json_str(doomed, "memory", "id")
    # MCP tools
    results = call_tools(
        gateway.url,
        cwd,
        [
            (
                "record_response",
                {"key_takeaway": _all_secrets("Takeaway: the deploy needed"), "initial_score": "worked"},
            ),
            ("add_to_memory_bank", {"content": _all_secrets("MCP fact:") + "\nvia MCP"}),
        ],
    )
    for result in results:
        assert not result.is_error, text_of(result)
        out.ids.append(json_str(as_object(result.structured_content), "memory", "id"))
    updated = call_tools(
        gateway.url, cwd, [("update_memory", {"id": out.ids[-1], "content": _all_secrets("MCP update:")})]
    )
    assert not updated[0].is_error, text_of(updated[0])
    # ingest: text, title and source
    book_text = "# Runbook\n\n" + "\n\n".join(f"## {s.name}\n\n{s.text}\n\nRotate it quarterly." for s in SECRETS)
    ingested = gateway.ok(
        "/api/ingest",
        {
            "title": "Runbook",
            "filename": "runbook.md",
            "text": book_text,
            "source": f"wiki export {SECRETS[2].text}",
            "cwd": cwd,
        },
    )
    out.book = json_str(ingested, "title")
    # names: a book's title and file name, a session id, a tag, and a cwd whose directory is a token
    named = gateway.ok(
        "/api/ingest",
        {
            "title": f"Deploy notes {NAME_TOKEN}",
            "filename": f"deploy-{NAME_TOKEN}.md",
            "text": "# Deploy\n\nThe deploy runs from CI after review.",
            "cwd": cwd,
        },
    )
    out.named_book = json_str(named, "title")
    session = f"session-{NAME_TOKEN}-{NAME_KEYED.text}"
    gateway.ok("/api/hooks/get-context", {"session_id": session, "prompt": "how does the deploy run?", "cwd": cwd})
    stopped = gateway.ok(
        "/api/hooks/stop", {"session_id": session, "cwd": cwd, "assistant_text": "From CI, after review."}
    )
    out.ids.append(json_str(stopped, "exchange_id"))
    tagged = gateway.ok(
        "/api/memory-bank/add",
        {"content": "Deploys need a review first", "cwd": cwd, "tags": [NAME_TOKEN, NAME_KEYED.text]},
    )
    out.ids.append(json_str(tagged, "memory", "id"))
    in_token_dir = gateway.ok("/api/memory-bank/add", {"content": "Checkout notes for the mirror", "cwd": TOKEN_CWD})
    out.token_dir_id = json_str(in_token_dir, "memory", "id")
    # import: content, string metadata, list metadata, and a kg graph
    lines = [json.dumps({"type": "header", "format": "mnemex-export", "version": 1})]
    for index, secret in enumerate(SECRETS):
        lines.append(
            json.dumps(
                {
                    "type": "memory",
                    "record": {
                        "collection": "history",
                        "content": f"Imported note {index}: {secret.text}",
                        "metadata": {"source": secret.text, "origin": f"pasted {secret.text}"},
                    },
                }
            )
        )
    reply = gateway.client.post("/api/import", params={"cwd": cwd}, content="\n".join(lines).encode(), headers=NDJSON)
    assert reply.status_code == 200, reply.text
    assert reply.json()["imported"] == len(SECRETS), reply.json()
    time.sleep(0.5)  # post-tool-use stores after responding
    return out


def test_secrets_are_redacted_on_every_write_path_read_back_through_the_api(
    stack: InprocStack, secret_writes: SecretWrites
) -> None:
    gateway = stack.gateway
    cwd = SECRET_PROJECT
    replies: list[object] = []
    for memory_id in secret_writes.ids:
        if memory_id == secret_writes.archived:
            continue  # archived memories are not shown by id; the export below carries it
        reply = gateway.get(f"/api/memories/{memory_id}", cwd=cwd)
        assert reply.status_code == 200, (memory_id, secret_writes.ids.index(memory_id), reply.text)
        replies.append(reply.json())
    for collection in ("working", "history", "memory_bank", "books"):
        found = gateway.ok("/api/search", {"cwd": cwd, "days_back": 1, "collections": [collection], "limit": 100})
        assert json_list(found, "memories"), collection
        replies.append(found)
    replies.append(gateway.ok("/api/search", {"cwd": cwd, "query": "credentials token key password", "limit": 100}))
    replies.append(
        gateway.ok(
            "/api/hooks/get-context",
            {"session_id": "secret-read", "prompt": "which credentials?", "cwd": cwd, "limit": 50},
        )
    )
    replies.append(gateway.get("/api/books", cwd=cwd).json())
    replies.append(gateway.get("/api/projects", cwd=TOKEN_CWD).json())
    replies.append(gateway.get(f"/api/memories/{secret_writes.token_dir_id}", cwd=TOKEN_CWD).json())
    export = gateway.client.post("/api/export")
    assert export.status_code == 200
    replies.append(export.text)
    observations = [
        m
        for r in replies
        if isinstance(r, dict)
        for m in r.get("memories", [])
        if (m.get("metadata") or {}).get("type") == "observation"
    ]
    assert len(observations) >= 10, "the observations were stored"
    assert "[REDACTED:" in _bodies(replies)
    assert not _leaks(_bodies(replies), REDACTED)
    assert NAME_TOKEN.lower()[:24] not in _bodies(replies).lower(), "a name (project id, title, tag...) kept a token"


def test_quoted_secrets_in_observations_are_redacted(stack: InprocStack, secret_writes: SecretWrites) -> None:
    exported = stack.gateway.client.post("/api/export").text
    assert not _leaks(exported, [s for s in SECRETS if s.name in QUOTED_VALUE_MISSES])


def test_a_book_titled_with_a_secret_is_removed_by_the_title_the_user_gave(stack: InprocStack) -> None:
    """Titles are stored redacted; removing by the title as typed (with the secret) still finds the book."""
    title = f"Rotation notes {NAME_TOKEN}"
    ingested = stack.gateway.ok(
        "/api/ingest", {"title": title, "filename": "rotation.md", "text": "# Rotation\n\nQuarterly.", "cwd": "/srv/b"}
    )
    assert NAME_TOKEN not in json_str(ingested, "title")
    removed = stack.gateway.post("/api/books/remove", {"title": title, "cwd": "/srv/b"})
    assert removed.status_code == 200, removed.text
    assert removed.json()["removed_chunks"] == 1


def scan_home(home: Path, secrets: list[Secret]) -> tuple[int, dict[str, list[str]]]:
    """(bytes scanned, {file: [secret names found in it]}) over every file under ``home``."""
    hits: dict[str, list[str]] = {}
    scanned = 0
    for path in home.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        scanned += len(data)
        for secret in secrets:
            if secret.evidence.encode() in data:
                hits.setdefault(str(path.relative_to(home)), []).append(secret.name)
    return scanned, hits


def test_no_secret_reaches_any_file_under_mnemex_home(stack: InprocStack, secret_writes: SecretWrites) -> None:
    """Stops the module's stack (so everything is flushed), then reads every byte under MNEMEX_HOME."""
    stack.stop()
    scanned, hits = scan_home(stack.home, REDACTED)
    assert scanned > 100_000, "the scan saw the stores"
    assert not hits, f"secrets on disk: {hits}"
    lowered = NAME_TOKEN.lower()[:24].encode()  # a project id is a lower-cased slug of the directory name
    in_names = [str(p) for p in stack.home.rglob("*") if lowered in str(p).lower().encode()]
    in_files = [str(p) for p in stack.home.rglob("*") if p.is_file() and lowered in p.read_bytes().lower()]
    assert not in_names and not in_files, (in_names, in_files)


# Regression: tags and list-valued import metadata used to be stored without redact().
def test_secrets_in_tags_and_list_metadata_are_redacted(
    loop_thread: LoopThread, embedding_addr: str, tmp_path: Path
) -> None:

    own = inproc.start(loop_thread, embedding_addr, tmp_path / "tags-home")
    try:
        gateway = own.gateway
        added = gateway.ok(
            "/api/memory-bank/add",
            {
                "content": "Tagged note about the CI credentials",
                "tags": [s.needle for s in TAG_SECRETS],
                "cwd": SECRET_PROJECT,
            },
        )
        record = {
            "collection": "history",
            "content": "Imported note about CI",
            "metadata": {"labels": [s.needle for s in TAG_SECRETS]},
        }
        reply = gateway.client.post(
            "/api/import",
            params={"cwd": SECRET_PROJECT},
            content=json.dumps({"type": "memory", "record": record}).encode(),
            headers=NDJSON,
        )
        assert reply.status_code == 200 and reply.json()["imported"] == 1, reply.text
        shown = gateway.get(f"/api/memories/{json_str(added, 'memory', 'id')}", cwd=SECRET_PROJECT).json()
        exported = gateway.client.post("/api/export").text
    finally:
        own.stop()
    leaks = _leaks(json.dumps(shown) + exported, TAG_SECRETS)
    _, on_disk = scan_home(own.home, TAG_SECRETS)
    assert not leaks and not on_disk, f"through the API: {leaks}; on disk: {on_disk}"
