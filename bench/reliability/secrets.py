"""Reliability part: the secrets corpus through every write path of a real stack, then every way back out.

The four real processes (``tests/support/stack.py``, the README's way: no
token, loopback) receive every credential of ``tests/support/secrets_corpus.py``
(86 forms, evasions included) through: memory-bank add, update and tags;
the prompt hook (prompt and session id) and the stop hook; post-tool-use
observations (Bash and WebSearch); the MCP tools record_response and
add_to_memory_bank; archive reasons; ingest (text, title, file name, source);
import (content and metadata); and a cwd whose directory name is a token.

Then everything is read back through search (every collection), export,
get-context, the books and projects lists and the viewer's pages, the stack
is stopped, and every file under MNEMEX_HOME (stores, kg journal, logs) is
scanned. ``lost`` counts the secrets found anywhere (0 is the only good
value); ``failed`` counts write calls that were not answered 200. The
ordinary-text corpus (code and prose that merely mention passwords, commit
hashes, UUIDs...) is stored the same way, and the note says how many came
back changed (false positives).

The held-out corpora (``tests/support/secrets_heldout.py``, ``secrets_fresh.py``,
``secrets_final.py``, ``secrets_blind4.py`` to ``secrets_blind14.py``: each written
blind, each with 200 ordinary texts) go through the memory bank and the prompt
hook into projects of their own, and are read back through search, export and
get-context; the first is also looked for in every file under MNEMEX_HOME. The
rules were tuned on each of them but one after it was measured (``blind12`` to
``blind14`` last, together); ``blind8``, written blind after ``blind7`` was
released and never tuned on, is what says how redaction does on forms nobody listed.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import httpx

from bench.reliability import Row
from kernel.json_values import JSONObject, as_object, object_at, str_at
from kernel.privacy import redact
from tests.support.mcp_client import call_tools, text_of
from tests.support.secrets_blind4 import BLIND4_ORDINARY, BLIND4_SECRETS
from tests.support.secrets_blind5 import BLIND5_ORDINARY, BLIND5_SECRETS
from tests.support.secrets_blind6 import BLIND6_ORDINARY, BLIND6_SECRETS
from tests.support.secrets_blind7 import BLIND7_ORDINARY, BLIND7_SECRETS
from tests.support.secrets_blind8 import BLIND8_ORDINARY, BLIND8_SECRETS
from tests.support.secrets_blind9 import BLIND9_ORDINARY, BLIND9_SECRETS
from tests.support.secrets_blind10 import BLIND10_ORDINARY, BLIND10_SECRETS
from tests.support.secrets_blind11 import BLIND11_ORDINARY, BLIND11_SECRETS
from tests.support.secrets_blind12 import BLIND12_ORDINARY, BLIND12_SECRETS
from tests.support.secrets_blind13 import BLIND13_ORDINARY, BLIND13_SECRETS
from tests.support.secrets_blind14 import BLIND14_ORDINARY, BLIND14_SECRETS
from tests.support.secrets_corpus import ORDINARY, SECRETS, Secret
from tests.support.secrets_final import FINAL_ORDINARY, FINAL_SECRETS
from tests.support.secrets_fresh import FRESH_ORDINARY, FRESH_SECRETS
from tests.support.secrets_heldout import HELDOUT_ORDINARY, HELDOUT_SECRETS
from tests.support.stack import Stack, make_stack

FAMILY = "secrets"
CWD = "/srv/acme-secrets"
NAME_TOKEN = next(s for s in SECRETS if s.name == "github-oauth-token").needle
TOKEN_CWD = f"/srv/acme-checkouts/{NAME_TOKEN}"
ORDINARY_CWD = "/srv/acme-ordinary"
HELDOUT_CWD = "/srv/acme-heldout"
HeldOut = tuple[str, list[Secret], list[str], str]
# Each written blind after the rules were tuned on the corpora before it, then tuned on in turn (all but NEVER_TUNED).
LATER_CORPORA: list[HeldOut] = [
    ("fresh", FRESH_SECRETS, FRESH_ORDINARY, "/srv/acme-fresh"),
    ("final", FINAL_SECRETS, FINAL_ORDINARY, "/srv/acme-final"),
    ("blind4", BLIND4_SECRETS, BLIND4_ORDINARY, "/srv/acme-blind4"),
    ("blind5", BLIND5_SECRETS, BLIND5_ORDINARY, "/srv/acme-blind5"),
    ("blind6", BLIND6_SECRETS, BLIND6_ORDINARY, "/srv/acme-blind6"),
    ("blind7", BLIND7_SECRETS, BLIND7_ORDINARY, "/srv/acme-blind7"),
    ("blind9", BLIND9_SECRETS, BLIND9_ORDINARY, "/srv/acme-blind9"),
    ("blind10", BLIND10_SECRETS, BLIND10_ORDINARY, "/srv/acme-blind10"),
    ("blind11", BLIND11_SECRETS, BLIND11_ORDINARY, "/srv/acme-blind11"),
    ("blind12", BLIND12_SECRETS, BLIND12_ORDINARY, "/srv/acme-blind12"),
    ("blind13", BLIND13_SECRETS, BLIND13_ORDINARY, "/srv/acme-blind13"),
    ("blind14", BLIND14_SECRETS, BLIND14_ORDINARY, "/srv/acme-blind14"),
    ("blind8", BLIND8_SECRETS, BLIND8_ORDINARY, "/srv/acme-blind8"),
]
NEVER_TUNED: str | None = "blind8"  # the name of a corpus listed here that was never tuned on, when there is one
NDJSON = {"Content-Type": "application/x-ndjson"}
# Tokens that name themselves, so a tag holding one bare is still recognisable (a bare password is not).
TAGGABLE = [s for s in SECRETS if redact(s.needle) != s.needle and len(s.needle) <= 60]


class Writes:
    """Counts the write calls and the ones not answered 200."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self.tried = 0
        self.failed: list[str] = []

    def read(self, path: str, body: object) -> str:
        """A read's text; one not answered 200 counts as a failure (its error text would hide nothing)."""
        reply = self.http.post(path, json=body)
        if reply.status_code != 200:
            self.failed.append(f"{path}: {reply.status_code}")
        return reply.text

    def post(
        self,
        path: str,
        body: object = None,
        *,
        params: dict[str, str] | None = None,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> JSONObject:
        """The reply's JSON object; {} when the call failed (counted) or answered no JSON."""
        self.tried += 1
        try:
            if body is not None:
                reply = self.http.post(path, json=body, params=params, content=content, headers=headers)
            else:
                reply = self.http.post(path, params=params, content=content, headers=headers)
        except httpx.HTTPError as exc:
            self.failed.append(f"{path}: {type(exc).__name__}")
            return {}
        if reply.status_code != 200:
            self.failed.append(f"{path}: {reply.status_code}")
            return {}
        return as_object(reply.json()) if reply.headers.get("content-type", "").startswith("application/json") else {}


def _all(prefix: str, secrets: list[Secret] = SECRETS) -> str:
    return prefix + "\n" + "\n".join(f"- {s.name}: {s.text}" for s in secrets)


def _write_everything(writes: Writes, url: str) -> dict[str, list[str]]:
    ids: list[str] = []
    added = writes.post("/api/memory-bank/add", {"content": _all("Credentials the user pasted:"), "cwd": CWD})
    fact = writes.post("/api/memory-bank/add", {"content": "The staging database lives on db.internal", "cwd": CWD})
    if fact:
        fact_id = str_at(object_at(fact, "memory"), "id")
        writes.post("/api/memory-bank/update", {"id": fact_id, "content": _all("Updated:"), "cwd": CWD})
    tagged = writes.post(
        "/api/memory-bank/add",
        {"content": "Deploys need a review first", "cwd": CWD, "tags": [s.needle for s in TAGGABLE[:10]]},
    )
    ids += [str_at(object_at(r, "memory"), "id") for r in (added, fact, tagged) if r]
    for start in range(0, len(SECRETS), 15):
        chunk = SECRETS[start : start + 15]
        session = f"session-{start}-{TAGGABLE[start // 15].needle}"  # a session id that is a token
        prompt = "Please configure these:\n" + "\n".join(s.text for s in chunk)
        writes.post("/api/hooks/get-context", {"session_id": session, "prompt": prompt, "cwd": CWD})
        stopped = writes.post(
            "/api/hooks/stop",
            {"session_id": session, "cwd": CWD, "assistant_text": "Done with:\n" + "\n".join(s.text for s in chunk)},
        )
        if stopped:
            ids.append(str_at(stopped, "exchange_id"))
    for secret in SECRETS:
        writes.post(
            "/api/hooks/post-tool-use",
            {
                "session_id": "secret-tools",
                "cwd": CWD,
                "tool_name": "Bash",
                "tool_input": {"command": "curl -s https://api.acme.dev/v1/deploy", "description": secret.text},
                "tool_response": {"stdout": secret.text, "stderr": ""},
            },
        )
        writes.post(
            "/api/hooks/post-tool-use",
            {
                "session_id": "secret-tools",
                "cwd": CWD,
                "tool_name": "WebSearch",
                "tool_input": {"query": secret.text[:200]},
                "tool_response": "results",
            },
        )
    doomed = writes.post("/api/memory-bank/add", {"content": "Old VPN instructions", "cwd": CWD})
    if doomed:
        reason = "rotated: " + " ".join(s.text for s in SECRETS[:4])
        doomed_id = str_at(object_at(doomed, "memory"), "id")
        writes.post("/api/memory-bank/archive", {"id": doomed_id, "cwd": CWD, "reason": reason[:480]})
    writes.tried += 2
    try:
        results = call_tools(
            url,
            CWD,
            [
                ("record_response", {"key_takeaway": _all("Takeaway:"), "initial_score": "worked"}),
                ("add_to_memory_bank", {"content": _all("MCP fact:")}),
            ],
        )
        writes.failed += [f"mcp: {text_of(r)[:80]}" for r in results if r.is_error]
    except Exception as exc:  # an MCP transport failure is a failed write, not a crashed part
        writes.failed.append(f"mcp: {type(exc).__name__}")
    runbook = "# Runbook\n\n" + "\n\n".join(f"## {s.name}\n\n{s.text}\n\nRotate it quarterly." for s in SECRETS)
    writes.post(
        "/api/ingest",
        {"title": "Runbook", "filename": "runbook.md", "text": runbook, "source": SECRETS[2].text, "cwd": CWD},
    )
    writes.post(
        "/api/ingest",
        {
            "title": f"Deploy notes {NAME_TOKEN}",
            "filename": f"deploy-{NAME_TOKEN}.md",
            "text": "# Deploy\n\nThe deploy runs from CI after review.",
            "cwd": CWD,
        },
    )
    lines = [json.dumps({"type": "header", "format": "mnemex-export", "version": 1})]
    for number, secret in enumerate(SECRETS):
        record = {
            "collection": "history",
            "content": f"Imported note {number}: {secret.text}",
            "metadata": {"source": secret.text, "labels": [secret.text]},
        }
        lines.append(json.dumps({"type": "memory", "record": record}))
    writes.post("/api/import", params={"cwd": CWD}, content="\n".join(lines).encode(), headers=NDJSON)
    writes.post("/api/memory-bank/add", {"content": "Checkout notes for the mirror", "cwd": TOKEN_CWD})
    return {"ids": ids}


def _read_everything(http: httpx.Client) -> tuple[list[str], list[str]]:
    """Every reply a user or a client could see, as text (HTML unescaped), and the reads not answered 200."""
    out: list[str] = []
    failed: list[str] = []

    def keep(reply: httpx.Response) -> None:
        out.append(html.unescape(reply.text))
        if reply.status_code != 200:
            failed.append(f"{reply.request.url.path}: {reply.status_code}")

    for collection in ("working", "history", "patterns", "memory_bank", "books"):
        keep(http.post("/api/search", json={"cwd": CWD, "days_back": 1, "collections": [collection], "limit": 100}))
    keep(http.post("/api/search", json={"cwd": CWD, "query": "credentials token key password", "limit": 100}))
    keep(http.post("/api/hooks/get-context", json={"session_id": "reader", "prompt": "which credentials?", "cwd": CWD}))
    keep(http.get("/api/books", params={"cwd": CWD}))
    projects = http.get("/api/projects", params={"cwd": TOKEN_CWD})
    keep(projects)
    keep(http.post("/api/export"))
    for entry in projects.json().get("projects", []) if projects.status_code == 200 else []:
        for page in ("/ui/memories", "/ui/sessions", "/ui/books", "/ui/graph"):
            for collection in ("", "working", "history", "memory_bank", "books"):
                if collection and page != "/ui/memories":
                    continue
                params = {"project": entry["project"], **({"collection": collection} if collection else {})}
                keep(http.get(page, params=params))
    return out, failed


def _found(texts: list[str], secrets: list[Secret]) -> list[str]:
    joined = "\n".join(texts)
    lowered = joined.lower()
    hits = [s.name for s in secrets if s.evidence in joined]
    if NAME_TOKEN.lower()[:24] in lowered:
        hits.append("token-in-a-name")
    return hits


def _scan_home(home: Path, secrets: list[Secret]) -> tuple[int, int, dict[str, list[str]]]:
    """(files, bytes, {file: secrets found}) over every file under ``home``, logs included."""
    files = scanned = 0
    hits: dict[str, list[str]] = {}
    token = NAME_TOKEN.lower()[:24].encode()
    for path in home.rglob("*"):
        if token in str(path).lower().encode():
            hits.setdefault(str(path.relative_to(home)), []).append("token-in-a-file-name")
        if not path.is_file():
            continue
        data = path.read_bytes()
        files, scanned = files + 1, scanned + len(data)
        found = [s.name for s in secrets if s.evidence.encode() in data]
        if token in data.lower():
            found.append("token-in-a-name")
        if found:
            hits[str(path.relative_to(home))] = found
    return files, scanned, hits


def _ordinary_round_trip(writes: Writes, http: httpx.Client) -> list[str]:
    """Ordinary texts stored as facts and read back: the ones that came back changed."""
    changed = []
    for text in ORDINARY:
        added = writes.post("/api/memory-bank/add", {"content": text, "cwd": ORDINARY_CWD})
        if not added:
            continue
        shown = http.get(f"/api/memories/{str_at(object_at(added, 'memory'), 'id')}", params={"cwd": ORDINARY_CWD})
        if shown.status_code != 200 or shown.json().get("content") != text.strip():  # stored stripped
            changed.append(text[:40])
    return changed


def _heldout_round_trip(
    writes: Writes, http: httpx.Client, corpus: HeldOut = ("heldout", HELDOUT_SECRETS, HELDOUT_ORDINARY, HELDOUT_CWD)
) -> tuple[list[str], list[str], list[str]]:
    """A held-out corpus stored as facts and prompts, read back: (secrets shown, ordinary texts changed, and
    every write or read not answered 200: a corpus that was never stored must not pass as never shown)."""
    name, secrets, ordinary, cwd = corpus
    before = len(writes.failed)
    for number, secret in enumerate(secrets):
        writes.post("/api/memory-bank/add", {"content": secret.text, "cwd": cwd})
        if number % 10 == 0:
            chunk = "\n".join(s.text for s in secrets[number : number + 10])
            writes.post("/api/hooks/get-context", {"session_id": f"{name}-{number}", "prompt": chunk, "cwd": cwd})
    replies = [
        writes.read("/api/search", {"cwd": cwd, "days_back": 1, "collections": [c], "limit": 100})
        for c in ("memory_bank", "working", "history")
    ]
    replies.append(http.post("/api/export").text)
    replies.append(
        http.post("/api/hooks/get-context", json={"session_id": "r", "prompt": "which password?", "cwd": cwd}).text
    )
    joined = "\n".join(html.unescape(r) for r in replies)
    shown = [s.name for s in secrets if s.evidence in joined or json.dumps(s.evidence)[1:-1] in joined]
    changed = []
    for text in ordinary:
        added = writes.post("/api/memory-bank/add", {"content": text, "cwd": ORDINARY_CWD})
        if not added:
            continue
        got = http.get(f"/api/memories/{str_at(object_at(added, 'memory'), 'id')}", params={"cwd": ORDINARY_CWD})
        if got.status_code != 200 or got.json().get("content") != text.strip():
            changed.append(text[:40])
    return shown, changed, writes.failed[before:]


def run(workdir: Path) -> list[Row]:
    # Fourteen corpora and their ordinary texts (about 7,500 facts) are more than one user may keep by default
    # (1,000): a write refused at the cap would count as a secret never shown.
    stack: Stack = make_stack(workdir / "home", MNEMEX_MEMORY_BANK_CAP="20000")
    stack.home.mkdir(parents=True, exist_ok=True)
    for name in ("embedding", "memory", "kg", "gateway"):
        stack.start(name)
    rows: list[Row] = []
    try:
        stack.wait_healthy(120)
        with httpx.Client(base_url=stack.gateway_url, timeout=120) as http:
            writes = Writes(http)
            _write_everything(writes, stack.gateway_url)
            replies, read_failures = _read_everything(http)
            shown = _found(replies, SECRETS)
            write_calls, write_failures = writes.tried + len(replies), writes.failed + read_failures
            written = writes.tried
            markers = sum(r.count("[REDACTED:") for r in replies)
            changed = _ordinary_round_trip(writes, http)
            heldout_shown, heldout_changed, heldout_failed = _heldout_round_trip(writes, http)
            later = [(corpus, *_heldout_round_trip(writes, http, corpus)) for corpus in LATER_CORPORA]
        rows.append(
            Row(
                FAMILY,
                "corpus through every write path, read back (search, export, get-context, viewer)",  # tried: calls
                write_calls,
                len(write_failures),
                len(shown),
                f"{len(SECRETS)} secret forms, {written} writes, {len(replies)} reads "
                f"({sum(len(r) for r in replies) / 1e6:.1f} MB, {markers:,} redaction markers); "
                f"shown: {', '.join(shown) or 'none'}"
                + (f"; not 200: {', '.join(write_failures[:5])}" if write_failures else ""),
            )
        )
        rows.append(
            Row(
                FAMILY,
                "ordinary developer text stored and read back (false positives)",
                len(ORDINARY),
                len(changed),
                0,
                f"false positives: {len(changed)} of {len(ORDINARY)} ordinary texts changed"
                + (f" ({'; '.join(changed[:3])})" if changed else ""),
            )
        )
        rows.append(
            Row(
                FAMILY,
                "held-out corpus stored and read back (search, export, get-context)",
                len(HELDOUT_SECRETS) + len(HELDOUT_ORDINARY),
                len(heldout_changed) + len(heldout_failed),
                len(heldout_shown),
                f"{len(HELDOUT_SECRETS)} forms (a tuning set now): shown {len(heldout_shown)} "
                f"({', '.join(heldout_shown) or 'none'}); ordinary changed {len(heldout_changed)} of {len(HELDOUT_ORDINARY)}"
                + (f"; not 200: {', '.join(heldout_failed[:3])}" if heldout_failed else ""),
            )
        )
        for (name, secrets, ordinary, _), shown, changed, failed in later:
            rows.append(
                Row(
                    FAMILY,
                    f"{name} corpus ({'written blind, never tuned on' if name == NEVER_TUNED else 'written blind, tuned on since'}) "
                    "stored and read back (search, export, get-context)",
                    len(secrets) + len(ordinary),
                    len(changed) + len(failed),
                    len(shown),
                    f"{len(secrets)} forms: never stored or shown {1 - len(shown) / len(secrets):.1%} (target >= 98 %),"
                    f" shown {len(shown)}; ordinary changed {len(changed)} of {len(ordinary)}"
                    + (f"; not 200 ({len(failed)}): {', '.join(failed[:3])}" if failed else ""),
                )
            )
    finally:
        stack.stop()
    _, _, heldout_on_disk = _scan_home(stack.home, HELDOUT_SECRETS)
    files, scanned, on_disk = _scan_home(stack.home, SECRETS)
    lost_on_disk = sorted({name for names in on_disk.values() for name in names})
    rows.append(
        Row(
            FAMILY,
            "every file under MNEMEX_HOME after stop (stores, kg journal, logs)",
            len(SECRETS),
            0,
            len(lost_on_disk),
            f"{files} files, {scanned / 1e6:.1f} MB scanned; found: "
            + (", ".join(f"{k}: {v}" for k, v in list(on_disk.items())[:4]) or "none"),
        )
    )
    heldout_lost = sorted({n for names in heldout_on_disk.values() for n in names if n != "token-in-a-name"})
    rows.append(
        Row(
            FAMILY,
            "held-out corpus in any file under MNEMEX_HOME after stop",
            len(HELDOUT_SECRETS),
            0,
            len(heldout_lost),
            f"found: {', '.join(heldout_lost) or 'none'}",
        )
    )
    return rows
