"""The recognisers behind ``kernel.privacy.redact``, in the order they are applied (issue 36).

Most specific first:

- **self-naming tokens** (``kernel.redaction.self_naming_tokens``): ``ghp_``, ``AKIA``, PEM blocks, JWTs...;
- **commands and URLs** (``kernel.redaction.command_lines``): ``mysql -pPW``, ``curl -u user:PW``, a URL's password;
- **detect-secrets' rules** (``kernel.redaction.detect_secrets_rules``, taken as data);
- **context rules** (``kernel.redaction.context_rules``): the provider formats, then where a value stands;
- **authentication flows** (``kernel.redaction.auth_flows``): one-time links, a key's passphrase, OAuth's values;
- **codes people tell** (``access_codes``): door, alarm and locker codes, PINs; with them backup codes and
  recovery keys (``kernel.redaction.recovery_codes``), secrets spelled out, security answers;
- **keyed values** (``kernel.redaction.keyed_values``): a value given to a name that says it is secret;
- **random tokens** (``kernel.redaction.random_tokens``): a random token standing alone, whatever its context.

A pattern that starts with a literal runs only on a text that holds it (``literal_gate``). Every quantifier
is bounded, so the time to scan stays linear in the text's length (the memory service redacts a memory's
fields on its event loop; a stop's exchange and a book, the long texts, on its I/O pool). Plain module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from kernel.redaction.command_lines import COMMANDS
from kernel.redaction.random_tokens import PASSWORD_TOKEN, RANDOM_TOKEN, keep_password_token, keep_random_token
from kernel.redaction.recogniser import MARKER_PREFIX, Recogniser, inside_a_word, literal_gate, without_leading_boundary
from kernel.redaction.self_naming_tokens import ANYWHERE, TEXT_WORDS, TOKEN_FORMATS
from kernel.redaction.values import PROSE_WORDS, keep_url_password, placeholder_token

__all__ = ["MARKER_PREFIX", "Recogniser", "recognisers"]


def _keep_plain_word(match: re.Match[str]) -> bool:
    value = match.group(1)
    return value.isalpha() and (value.islower() or value.isupper() or value.istitle())


def _keep_command_value(match: re.Match[str]) -> bool:
    return inside_a_word(match) or keep_url_password(match)


def _formats_and_commands() -> list[Recogniser]:
    out = []
    for kind, pattern, group in [(k, p, 0) for k, p in TOKEN_FORMATS] + COMMANDS:
        groups = group if isinstance(group, tuple) else (group,)
        body, bounded = without_leading_boundary(pattern)
        flags = re.DOTALL if kind in ("private-key", "putty-key") else 0
        keep: Callable[[re.Match[str]], bool] | None = None
        if kind == "url-password":
            keep = keep_url_password
        elif kind == "basic-auth":
            keep = _keep_plain_word  # "authorization basic authentication" is prose
        elif kind in ("curl-user", "cli-flag"):
            keep = _keep_command_value  # curl -u "$USER:$TOKEN", --token \ (a continued line): no value here
        elif bounded and kind not in ANYWHERE:
            keep = inside_a_word
        if group == 0 and kind not in _BLOCKS:
            keep = _or_placeholder(keep)
        elif group != 0:
            keep = _or_prose_word(keep, groups)
        out.append(Recogniser(kind, re.compile(body, flags), groups, keep, text_words=TEXT_WORDS.get(kind, ())))
    return out


# Formats that span lines, whose bodies may repeat a character at length (an OpenSSH key's runs of 'A').
_BLOCKS = frozenset(("private-key", "putty-key"))


def _or_placeholder(keep: Callable[[re.Match[str]], bool] | None) -> Callable[[re.Match[str]], bool]:
    """``keep``, and keep a token whose body is a placeholder (``ghp_xxxx...``, ``AKIAXXXXXXXXXXXXXXXX``)."""

    def keep_placeholder(match: re.Match[str]) -> bool:
        return placeholder_token(match.group(0)) or (keep is not None and keep(match))

    return keep_placeholder


def _or_prose_word(
    keep: Callable[[re.Match[str]], bool] | None, groups: tuple[int, ...]
) -> Callable[[re.Match[str]], bool]:
    """``keep``, and keep a command's value (the first of ``groups`` that took part) that is a word of a sentence
    about the command or a table's border, not a password."""

    def keep_prose_word(match: re.Match[str]) -> bool:
        value = next((v for v in (match.group(g) for g in groups) if v is not None), "")
        if not value.strip("|+-=:"):
            return True  # a table's border: "| Host | Login | Password |" is no netrc line
        return value.lower() in PROSE_WORDS or (keep is not None and keep(match))

    return keep_prose_word


def _mixed(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


# detect-secrets rules with no distinctive prefix: only a value with letters and digits counts (APPLICATIONS
# is not an Artifactory password).
_NEEDS_MIXED = frozenset(
    "ArtifactoryDetector DiscordBotTokenDetector TelegramBotTokenDetector TwilioKeyDetector MailchimpDetector "
    "JwtTokenDetector".split()
)


# Rules that would try every position: they run only on a text that holds their literal part.
_BORROWED_REGEX_GATES = {"MailchimpDetector": re.compile(r"-us\d"), "ArtifactoryDetector": re.compile("AKC|AP[0-9A-F]")}
_BORROWED_GATES: dict[str, tuple[str, ...]] = {
    "NpmDetector": ("_authtoken",),
    "DiscordBotTokenDetector": (".",),
    "TelegramBotTokenDetector": (":",),
}


def _borrowed() -> list[Recogniser]:
    """detect-secrets' rules (``kernel.redaction.detect_secrets_rules``), after the formats written here."""
    from kernel.redaction.detect_secrets_rules import DETECT_SECRETS_RULES, KEYWORD_RULES

    out = []
    for plugin, pattern, flags in DETECT_SECRETS_RULES:
        if plugin in KEYWORD_RULES and pattern.startswith("(?:(?<="):
            continue  # subsumed by the keyed values below (see kernel.redaction.detect_secrets_rules)
        # an unbounded ".+" (NpmDetector's) would make a line of many "//" quadratic: bound it
        compiled = re.compile(pattern.replace(".+", ".{1,200}").replace(".*", ".{0,200}"), flags)
        groups = (1,) if compiled.groups else (0,)
        keep: Callable[[re.Match[str]], bool] | None = None
        if plugin in _NEEDS_MIXED:
            keep = _not_mixed
        elif plugin == "BasicAuthDetector":
            keep = keep_url_password
        keep = _or_placeholder(keep)
        gate: tuple[str, ...] = _BORROWED_GATES.get(plugin, ("aws",) if pattern.startswith("aws") else ())
        if plugin in KEYWORD_RULES:
            gate = ("cloudant.com", "softlayer.com")
        kind = f"detect-secrets:{plugin}"
        regex_gate = _BORROWED_REGEX_GATES.get(plugin)
        out.append(Recogniser(kind, compiled, groups, keep, trim=groups == (0,), text_words=gate, gate=regex_gate))
    return out


def _not_mixed(match: re.Match[str]) -> bool:
    return not _mixed(match.group(0))


def recognisers() -> list[Recogniser]:
    """Every recogniser, in the order they are applied."""
    from kernel.redaction.access_codes import code_recognisers
    from kernel.redaction.auth_flows import auth_flow_recognisers
    from kernel.redaction.context_rules import context_recognisers
    from kernel.redaction.keyed_values import keyed_recognisers

    strong = ("pass", "pwd", "secret", "key", "token", "conn", "_auth")
    out = [replace(r, line_words=strong) if r.kind == "typed-default" else r for r in _formats_and_commands()]
    out += _borrowed()
    out += context_recognisers()
    out += auth_flow_recognisers()
    out += code_recognisers()
    out += keyed_recognisers()
    out.append(Recogniser("random-token", RANDOM_TOKEN, keep=keep_random_token))
    out.append(Recogniser("password-token", PASSWORD_TOKEN, keep=keep_password_token))
    # A pattern that starts with a literal is skipped on a text without it (a substring test of the whole text).
    return [
        r if r.line_words or r.text_words or r.gate else replace(r, text_words=literal_gate(r.pattern.pattern))
        for r in out
    ]
