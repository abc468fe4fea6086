"""The CLI's only way to the data: HTTP calls to the gateway (stdlib ``urllib``).

Every failure becomes a ``CliFailure`` whose message says what to do: the
stack is down, the token is wrong, the input was rejected (with the
gateway's own explanation), or the gateway failed (with where its log is).
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from typing import IO

from kernel.config import Settings, home_id
from kernel.json_values import JSONValue, parse_value
from mnemex.cli.output import CliFailure, err, escape

DEFAULT_TIMEOUT = 30.0
_home_noted = False  # the other-home note is printed once per command
Body = bytes | IO[bytes] | Iterable[bytes]


class GatewayClient:
    def __init__(self, settings: Settings, timeout: float = DEFAULT_TIMEOUT, cwd: str | None = None) -> None:
        self.settings = settings
        self.base_url = settings.gateway_url
        self.timeout = timeout
        self.cwd = cwd if cwd is not None else os.getcwd()

    # -- JSON calls -----------------------------------------------------
    def get(self, path: str, params: Mapping[str, object] | None = None, timeout: float | None = None) -> JSONValue:
        return self._json(self._open("GET", path, {"cwd": self.cwd, **(params or {})}, None, {}, timeout))

    def post(
        self,
        path: str,
        body: Mapping[str, object] | None = None,
        params: Mapping[str, object] | None = None,
        timeout: float | None = None,
    ) -> JSONValue:
        payload = json.dumps({"cwd": self.cwd, **(body or {})}).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        return self._json(self._open("POST", path, params or {}, payload, headers, timeout))

    def post_stream(
        self,
        path: str,
        data: Body,
        content_type: str,
        params: Mapping[str, object] | None = None,
        timeout: float | None = None,
        length: int | None = None,
    ) -> JSONValue:
        """POST a body that may be a file or an iterator of chunks (chunked upload)."""
        headers = {"Content-Type": content_type}
        if length is not None:
            headers["Content-Length"] = str(length)
        return self._json(self._open("POST", path, {"cwd": self.cwd, **(params or {})}, data, headers, timeout))

    def post_lines(
        self,
        path: str,
        body: Mapping[str, object] | None = None,
        params: Mapping[str, object] | None = None,
        timeout: float | None = None,
    ) -> Iterator[JSONValue]:
        """POST JSON; the NDJSON answer, one decoded object per line, as each line arrives.

        ``timeout`` bounds each wait for the next line, not the whole answer."""
        payload = json.dumps({"cwd": self.cwd, **(body or {})}).encode("utf-8")
        reply = self._open("POST", path, params or {}, payload, {"Content-Type": "application/json"}, timeout)
        with reply:
            while True:
                try:
                    raw = reply.readline()
                except (OSError, http.client.HTTPException) as exc:
                    raise unreachable(self.base_url, exc) from None
                if not raw:
                    return
                if raw.strip():
                    yield parse_value(raw)

    def stream_lines(
        self, method: str, path: str, params: Mapping[str, object] | None = None, timeout: float | None = None
    ) -> Iterator[bytes]:
        """A streamed response, line by line (for JSONL export)."""
        reply = self._open(
            method, path, {"cwd": self.cwd, **(params or {})}, b"" if method == "POST" else None, {}, timeout
        )
        with reply:
            yield from reply

    # -- plumbing -------------------------------------------------------
    def url(self, path: str, params: Mapping[str, object] | None = None) -> str:
        query = {k: v for k, v in (params or {}).items() if v is not None}
        suffix = "?" + urllib.parse.urlencode(query, doseq=True) if query else ""
        return f"{self.base_url}{path}{suffix}"

    def _open(
        self,
        method: str,
        path: str,
        params: Mapping[str, object],
        data: Body | None,
        headers: dict[str, str],
        timeout: float | None,
    ) -> http.client.HTTPResponse:
        if self.settings.token:
            headers = {**headers, "Authorization": f"Bearer {self.settings.token}"}
        request = urllib.request.Request(self.url(path, params), data=data, headers=headers, method=method)
        try:
            reply: http.client.HTTPResponse = urllib.request.urlopen(request, timeout=timeout or self.timeout)
        except urllib.error.HTTPError as exc:
            self._check_home(exc.headers.get("x-mnemex-home"))
            raise http_failure(exc.code, exc.read(), self.settings) from None
        except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
            raise unreachable(self.base_url, exc) from None
        try:
            self._check_home(reply.headers.get("x-mnemex-home"))
        except CliFailure:
            reply.close()
            raise
        return reply

    def _check_home(self, served: str | None) -> None:
        """Another home's stack answered: refuse when MNEMEX_HOME names a home that does not exist (a typo,
        whose answers would silently be another home's memories); else say so once."""
        global _home_noted
        mine = home_id(self.settings.home)
        if not served or served == mine:
            return
        explicit_home = bool(os.environ.get("MNEMEX_HOME"))
        if explicit_home and not self.settings.home.exists():
            raise CliFailure(
                f"MNEMEX_HOME is {self.settings.home}, which does not exist, and the stack answering at "
                f"{self.base_url} serves another home: check MNEMEX_HOME for a typo (or unset it); "
                "`mnemex status` shows which home runs"
            )
        if not _home_noted and not (os.environ.get("MNEMEX_GATEWAY_ADDR") or os.environ.get("MNEMEX_GATEWAY_PORT")):
            _home_noted = True
            home = escape(str(self.settings.home))
            err.print(
                f"[yellow]note:[/] the stack at {escape(self.base_url)} serves another mnemex home than {home}; "
                "these answers come from that home (set MNEMEX_HOME to match it, or MNEMEX_GATEWAY_ADDR to another "
                "stack)"
            )

    @staticmethod
    def _json(reply: http.client.HTTPResponse) -> JSONValue:
        with reply:
            raw = reply.read()
        return parse_value(raw) if raw else None


def unreachable(url: str, exc: BaseException) -> CliFailure:
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return CliFailure(
            f"the mnemex gateway at {url} did not answer in time: check `mnemex status`, "
            "or retry with a longer --timeout"
        )
    return CliFailure(
        f"the mnemex stack is not running (nothing answers at {url}): start it with `mnemex up` "
        "(or `mnemex up --detach`), or point MNEMEX_GATEWAY_ADDR at a running gateway"
    )


def error_text(raw: bytes) -> str:
    """The gateway's explanation: ``{"error": ...}`` or FastAPI's ``{"detail": ...}``."""
    try:
        body = json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace").strip()[:500]
    if isinstance(body, dict):
        if isinstance(body.get("error"), str):
            return str(body["error"])
        detail = body.get("detail")
        if isinstance(detail, str):
            return detail
        if isinstance(detail, list):
            parts = []
            for item in detail:
                if isinstance(item, dict):
                    where = ".".join(str(p) for p in item.get("loc", ()) if p != "body")
                    parts.append(f"{where}: {item.get('msg', '')}" if where else str(item.get("msg", "")))
            return "; ".join(parts)
    return str(body)[:500]


def http_failure(status: int, raw: bytes, settings: Settings) -> CliFailure:
    text = error_text(raw)
    if status == 401:
        return CliFailure("the gateway rejected the request's token: set MNEMEX_TOKEN to the stack's token")
    if status == 413:
        return CliFailure(f"too large for the gateway: {text}")
    if status in (400, 404, 409, 422):
        return CliFailure(text or f"the gateway refused the request (HTTP {status})")
    if status == 503:
        return CliFailure(f"{text}: a backend service is down; check `mnemex status`")
    log = settings.home / "logs" / "gateway.log"
    return CliFailure(f"the gateway failed (HTTP {status}): {text}. Its log is {log}")
