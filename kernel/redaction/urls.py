"""Credentials carried in a URL beyond its user part (issue 36), beside ``kernel.redaction.places``.

- **a token as a path segment** after one that names it: conda's ``/t/<token>/``, ``/token/<token>``,
  ``/api-key/<key>`` (a random or hex token only: ``/t/how-to-rotate-keys/1234`` is a forum's path);
- **an incoming webhook's path**: Mattermost's ``/hooks/<id>``, Zapier's ``/hooks/catch/<account>/<hook>/``,
  Make's ``hook.<zone>.make.com/<id>``, IFTTT's ``/with/key/<key>`` (a segment mixing letters and digits);
- **an OAuth authorization code** in the redirect a provider sends back: ``/callback?code=...&state=...``
  (only where the URL says callback, authorize, login or carries a ``state``: ``/search?code=python`` stays);
  and a function's key in any URL (Azure Functions' ``/api/<name>?code=<key>``): a random ``code`` of 32 characters
  or more.

Plain data and keep checks.
"""

from __future__ import annotations

import re
import urllib.parse

from kernel.redaction.entropy import high_entropy, token_shaped
from kernel.redaction.places import Place
from kernel.redaction.values import looks_random


def _keep_not_hex_token(match: re.Match[str]) -> bool:
    return not token_shaped(match.group(1))


_HEX = re.compile(r"[0-9a-fA-F]+")  # a commit's or a file's hash, given as a code to look up

# A URL an OAuth provider redirects to: its path says callback or authorize, or its query carries a state.
_OAUTH_URL = re.compile(r"(?i)callback|oauth|authori[sz]e|/auth\b|redirect|signin|sign-in|login|sso|[?&]state=")


def _keep_oauth_code(match: re.Match[str]) -> bool:
    """Keep ``?code=404`` and the code of a URL that is not an OAuth redirect (``/search?code=python``)."""
    value = urllib.parse.unquote(match.group(1))
    if len(value) >= 32 and high_entropy(value) and not _HEX.fullmatch(value):
        return False  # a function's key (Azure Functions' ?code=, 56 characters of base64): a key in any URL
    text = match.string
    start = max(
        text.rfind(" ", 0, match.start()), text.rfind("\n", 0, match.start()), text.rfind('"', 0, match.start())
    )
    end = min((at for at in (text.find(" ", match.end()), text.find("\n", match.end())) if at != -1), default=len(text))
    if not _OAUTH_URL.search(text, start + 1, end):
        return True
    return len(value) < 8 or not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value))


def _keep_hook_path(match: re.Match[str]) -> bool:
    """A webhook's path is its secret when one segment mixes letters and digits (Mattermost's 26-character id,
    Zapier's catch ids); a numeric id (GitHub's hooks/412345678), words or a version (hooks/pre-receive, v2) are not."""
    segments = [s for s in match.group(1).split("/") if s]
    random_segment = any(len(s) >= 7 and looks_random(s) for s in segments)
    return not random_segment or sum(len(s) for s in segments) < 12


URL_SECRETS: list[Place] = [
    # an incoming webhook's URL, whose path is the secret: Mattermost and Rocket.Chat /hooks/<id>[/<token>], Zapier
    # /hooks/catch/<account>/<hook>/, a Make hook.<zone>.make.com/<id>, IFTTT /with/key/<key>
    Place(
        "webhook-url",
        r"(?i)(?:/(?:hooks?|webhooks?)(?:/catch)?|\bhook\.[a-z0-9]{2,6}\.make\.com|/with/key)/"
        r"([A-Za-z0-9_-]{3,128}+(?:/[A-Za-z0-9_-]{3,128}+){0,2}/?)(?=[?#\s'\")\]>,;]|$)",
        1,
        _keep_hook_path,
        line_words=("hook", "/with/key/"),
    ),
    # a token as a URL's path segment, after one that names it: conda's /t/<token>/, /token/<token>, /bot<token>/
    Place(
        "url-path-token",
        r"(?i)/(?:t|token|tokens|key|keys|auth|secret|access[_-]?token|api[_-]?key)/([A-Za-z0-9_-]{20,256})(?=[/?#\s'\"]|$)",
        1,
        _keep_not_hex_token,
        line_words=("/t/", "/token", "/key", "/auth/", "/secret", "/access", "/api"),
    ),
    # an OAuth authorization code in the redirect a provider sends back ("/callback?code=...&state=...")
    Place("oauth-code", r"[?&]code=([^&#\s'\"<>]{6,512})", 1, _keep_oauth_code, line_words=("code=",)),
]
