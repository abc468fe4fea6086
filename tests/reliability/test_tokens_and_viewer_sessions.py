"""Per-user tokens and viewer sessions on a real gateway (in process, over HTTP) with real backends.

- Revocation fails closed and takes effect on the next request: ``mnemex tokens
  revoke`` (the real CLI), a line removed by hand, a malformed file, a deleted file.
- One user's sign-ins, however many and from however many addresses, never end
  another user's viewer session; sign-ins are rate-limited per client.
- The session cookie is ``Secure`` when a trusted proxy says the viewer is
  served over https.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from gateway.user_tokens import add_token
from tests.reliability import inproc
from tests.support.loop_thread import LoopThread

ROOT = Path(__file__).resolve().parents[2]
SHARED = "operator-" + "Zq8vK2mW" * 4


@dataclasses.dataclass(frozen=True)
class Team:
    url: str  # the gateway
    file: Path  # its user tokens file
    alice: str  # each user's token
    bob: str
    mallory: str


@pytest.fixture()
def team(stack: inproc.InprocStack, loop_thread: LoopThread, tmp_path: Path) -> Iterator[Team]:
    """A gateway over the module's stack with a shared token and a tokens file of alice, bob and mallory."""
    tokens_file = tmp_path / "user_tokens"
    tokens = {user: add_token(tokens_file, user) for user in ("alice", "bob", "mallory")}
    settings = inproc.settings_for(
        stack.home, "operator", stack.embedding_addr, stack.memory_addr, stack.kg_addr, SHARED
    )
    settings = dataclasses.replace(settings, user_tokens_file=tokens_file)
    stop, url = loop_thread.run(inproc.serve_gateway(settings))
    try:
        yield Team(url, tokens_file, tokens["alice"], tokens["bob"], tokens["mallory"])
    finally:
        loop_thread.run(stop())


def status_with(url: str, token: str) -> int:
    with httpx.Client(base_url=url, timeout=60) as client:
        return client.get("/api/projects", headers={"Authorization": f"Bearer {token}"}).status_code


def tokens_cli(file: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMEX_")}
    env["MNEMEX_HOME"] = str(file.parent)
    return subprocess.run(
        [sys.executable, "-m", "mnemex.cli", "tokens", *args, "--file", str(file)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_token_revoked_with_the_cli_is_refused_on_the_next_request(team: Team) -> None:
    url, file = team.url, team.file
    assert status_with(url, team.bob) == 200 and status_with(url, team.alice) == 200
    listed = tokens_cli(file, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [t["user"] for t in json.loads(listed.stdout)["tokens"]] == ["alice", "bob", "mallory"]
    assert team.bob not in listed.stdout
    revoked = tokens_cli(file, "revoke", "bob", "--json")
    assert revoked.returncode == 0 and json.loads(revoked.stdout)["revoked"] == 1, revoked.stderr
    assert status_with(url, team.bob) == 401
    assert status_with(url, team.alice) == 200
    again = tokens_cli(file, "revoke", "bob")
    assert again.returncode == 1 and "no token for user 'bob'" in again.stderr


def test_a_malformed_or_deleted_tokens_file_fails_closed_with_a_log_line(
    team: Team, caplog: pytest.LogCaptureFixture
) -> None:
    url, file = team.url, team.file
    alice_line = next(line for line in file.read_text().splitlines() if line.startswith("alice "))
    with caplog.at_level(logging.ERROR, logger="mnemex.gateway.tokens"):
        file.write_text(f"{alice_line}\nmallory\n")  # bob's line removed, a malformed one added
        assert status_with(url, team.bob) == 401
        assert status_with(url, team.alice) == 401  # nothing from a file that cannot be trusted
        assert status_with(url, SHARED) == 200  # the operator's shared token still works
    logged = [r.getMessage() for r in caplog.records if r.name == "mnemex.gateway.tokens"]
    assert len(logged) == 1 and str(file) in logged[0] and "line 2" in logged[0], logged
    file.write_text(f"{alice_line}\n")
    assert status_with(url, team.alice) == 200
    file.unlink()
    assert status_with(url, team.alice) == 401
    assert status_with(url, SHARED) == 200


def sign_in(client: httpx.Client, token: str, headers: dict[str, str] | None = None) -> httpx.Response:
    client.get("/ui/login")
    return client.post(
        "/ui/login", data={"token": token, "csrf": client.cookies["mnemex_csrf"], "next": "/ui"}, headers=headers or {}
    )


def test_a_thousand_sign_ins_by_one_user_sign_nobody_else_out(team: Team) -> None:
    """mallory signs in 1,001 times, each from its own address behind the (trusted) local proxy."""
    url = team.url
    with httpx.Client(base_url=url, timeout=60) as alice, httpx.Client(base_url=url, timeout=60) as mallory:
        assert sign_in(alice, team.alice).status_code == 303
        assert alice.get("/ui/memories").status_code == 200
        mallory.get("/ui/login")
        csrf = mallory.cookies["mnemex_csrf"]
        statuses = set()
        for n in range(1001):
            reply = mallory.post(
                "/ui/login",
                data={"token": team.mallory, "csrf": csrf, "next": "/ui"},
                headers={"X-Forwarded-For": f"10.{n // 65536}.{n // 256 % 256}.{n % 256}"},
            )
            statuses.add(reply.status_code)
            mallory.cookies.delete("mnemex_ui")
        assert statuses == {303}
        assert alice.get("/ui/memories").status_code == 200, "alice was signed out by mallory's sign-ins"


def test_sign_in_attempts_are_rate_limited_per_client(team: Team) -> None:
    url = team.url
    guesser = {"X-Forwarded-For": "203.0.113.7"}
    with httpx.Client(base_url=url, timeout=60) as client:
        replies = [sign_in(client, "guess-" + str(n), guesser) for n in range(12)]
        assert [r.status_code for r in replies[:10]] == [401] * 10
        assert replies[10].status_code == 429 and int(replies[10].headers["retry-after"]) >= 1
        assert "Too many sign-in attempts" in replies[10].text
        assert sign_in(client, team.alice, guesser).status_code == 429  # even the right token, for a while
    with httpx.Client(base_url=url, timeout=60) as other:
        assert sign_in(other, team.alice, {"X-Forwarded-For": "198.51.100.9"}).status_code == 303


def test_the_cookies_are_secure_when_a_trusted_proxy_says_https(team: Team) -> None:
    url = team.url
    proxied = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "192.0.2.44"}
    with httpx.Client(base_url=url, timeout=60) as client:
        form = client.get("/ui/login", headers=proxied)
        assert "; Secure" in form.headers["set-cookie"]  # the CSRF cookie
        csrf = form.headers["set-cookie"].split(";", 1)[0].split("=", 1)[1]
        client.cookies.clear()  # a Secure cookie is not sent over this plain-http hop: the proxy's browser sends it
        signed = client.post(
            "/ui/login",
            data={"token": team.alice, "csrf": csrf, "next": "/ui"},
            headers={**proxied, "Cookie": f"mnemex_csrf={csrf}"},
        )
        assert signed.status_code == 303 and "; Secure" in signed.headers["set-cookie"]
    with httpx.Client(base_url=url, timeout=60) as plain:
        signed = sign_in(plain, team.alice, {"X-Forwarded-For": "192.0.2.45"})
        assert signed.status_code == 303 and "Secure" not in signed.headers["set-cookie"]
