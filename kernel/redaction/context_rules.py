"""The context rules, compiled (issue 36): secrets recognised by where they stand.

No format can say that ``hunter2`` is a password; its place can. The rules live by what they recognise:

- ``kernel.redaction.provider_formats``: provider formats the self-naming tokens do not cover;
- ``kernel.redaction.command_lines``: a password handed to a tool on a command line;
- ``kernel.redaction.source_code``: credentials in source code (calls, setters, split strings);
- ``kernel.redaction.literals``: a literal reached through code (a credential's constructor, an env lookup's fallback);
- ``kernel.redaction.http_headers``: HTTP headers, cookies, ``Authorization:`` schemes;
- ``kernel.redaction.keyed_values``: a key named ``pass``, a token named in prose or config;
- ``kernel.redaction.passphrases`` and ``kernel.redaction.prose``: passwords written in sentences
  (``kernel.redaction.prose_languages``: in other languages than English);
- ``kernel.redaction.places``: URLs, XML pairs, setters, SQL, query strings...;
- ``device_configs``: network devices' configurations (Cisco-style, IPsec secrets, SNMP communities), with
  servers' and installers' dialects (``kernel.redaction.server_configs``) and logins given as a pair
  (``kernel.redaction.login_pairs``);
- ``kernel.redaction.urls``: a token as a URL's path segment, an OAuth code in a redirect;
- ``tools``: CI logs and secret stores (and ``command_output``: a secret a command prints);
- ``kernel.redaction.directory_binds``: a password given to a directory (LDAP, Active Directory) bind;
- ``kernel.redaction.otp``: one-time-password seeds and recovery codes;
- ``kernel.redaction.tool_files``: developer tools' own files (property lists, composer's auth.json, NATS seeds);
- ``kernel.redaction.web_handovers``: web and product work (browser storage, app passwords, staging sites' basic
  auth, agency handovers) and ``kernel.redaction.web_services``: webhook and deploy-hook URLs, web services' keys;
- ``kernel.redaction.payment_numbers``: a card number (Luhn) and an IBAN (mod 97) told in a text;
- ``kernel.redaction.data_tools``: data and ML work (notebook parameters, secret stores, Spark and Hadoop settings,
  MATLAB/R name-value pairs, SAS encodings, keys in groups); ``kernel.redaction.connection_pairs``: a user and a
  password given together in shorthand (``creds are loader:X``, ``analyst / X @ host``, a list of a login's values);
- ``kernel.redaction.licence_keys``: licence keys and serials; ``kernel.redaction.key_material``: HSM PINs, raw
  keys, secret stores' tokens, wallets' words, master passwords; ``kernel.redaction.one_time_codes``: one-time
  codes told in a sentence, in many languages;
- ``kernel.redaction.encoded_values``: a secret as hex bytes, a private key in hex, a JSON Web Token in pieces;
- ``kernel.redaction.tables``: the rows of a name/value table;
- ``told_to_people``: a secret told to a person (chat, notes, minutes, handover docs, lists, corrections);
- ``kernel.redaction.incident_chat``: a secret in an incident's chat, a runbook or a support ticket.

Entropy (``kernel.redaction.entropy``) is used only in those contexts, so hashes, UUIDs and ids in ordinary
text stay as they are. Every pattern stays on one line (``one_line``) and every quantifier is bounded;
``kernel.redaction.multiline_blocks`` handles what spans lines. Plain module.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kernel.redaction.command_lines import COMMAND_LINES
from kernel.redaction.connection_pairs import CONNECTION_PAIRS
from kernel.redaction.data_tools import DATA_TOOLS
from kernel.redaction.device_configs import DEVICES
from kernel.redaction.directory_binds import DIRECTORY_BINDS
from kernel.redaction.encoded_values import ENCODED
from kernel.redaction.http_headers import AUTHORIZATION, HEADERS
from kernel.redaction.incident_chat import INCIDENTS
from kernel.redaction.key_material import KEY_MATERIAL
from kernel.redaction.keyed_values import NAMED_VALUES
from kernel.redaction.licence_keys import LICENCES
from kernel.redaction.literals import LITERALS
from kernel.redaction.one_time_codes import ONE_TIME_CODES
from kernel.redaction.otp import OTP
from kernel.redaction.passphrases import PASSPHRASES
from kernel.redaction.payment_numbers import PAYMENT_NUMBERS
from kernel.redaction.places import PLACES
from kernel.redaction.prose import PROSE
from kernel.redaction.provider_formats import FORMAT_GATES, FORMATS
from kernel.redaction.recogniser import Recogniser, literal_gate
from kernel.redaction.self_naming_tokens import TOKEN_PIECES
from kernel.redaction.source_code import CODE, CREDENTIAL_CALLS
from kernel.redaction.tables import NAME_VALUE_ROWS
from kernel.redaction.told_to_people import TOLD
from kernel.redaction.tool_files import TOOL_FILES
from kernel.redaction.tools import TOOLS
from kernel.redaction.urls import URL_SECRETS
from kernel.redaction.values import placeholder_token
from kernel.redaction.web_handovers import WEB_HANDOVERS
from kernel.redaction.web_services import WEB_SERVICES

_LEADING = re.compile(r"^(\(\?i\))?(\\b|\(\?<!\[[^\]]{1,20}\]\))")


def _guarded(
    pattern: str, keep: Callable[[re.Match[str]], bool] | None
) -> tuple[str, Callable[[re.Match[str]], bool] | None]:
    """``pattern`` without its leading boundary (``\\b`` or a one-class look-behind), and a keep check that
    does the boundary's work on each match: the regex engine can then skip to the positions where the
    pattern's first characters are, instead of trying the boundary at every position."""
    leading = _LEADING.match(pattern)
    if not leading or leading.group(1):
        return pattern, keep  # a case-blind pattern gets no literal skip anyway: its \\b prunes positions
    before = re.compile(r"\w" if leading.group(2) == r"\b" else leading.group(2)[4:-1])
    body = pattern[leading.end() :]

    def guarded(match: re.Match[str]) -> bool:
        at = match.start()
        if at and before.match(match.string, at - 1):
            return True  # inside a word: not this pattern's match
        return keep(match) if keep is not None else False

    return body, guarded


def one_line(pattern: str) -> str:
    """``pattern`` with each ``\\s`` outside a character class made ``[ \\t]``: a flag and its value, a key and
    its value, are on one line (``--with-token`` at a line's end does not take the next line's first word)."""
    out, in_class, at = [], False, 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            pair = pattern[at : at + 2]
            out.append("[ \\t]" if pair == "\\s" and not in_class else pair)
            at += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class and pattern[at - 1] not in "[^":
            in_class = False
        out.append(char)
        at += 1
    return "".join(out)


def _keep_placeholder(match: re.Match[str]) -> bool:
    return placeholder_token(match.group(0))


def context_recognisers() -> list[Recogniser]:
    """The provider formats, then the context rules (each gated on its words)."""
    out = []
    for kind, pattern in FORMATS:
        body, keep = _guarded(pattern, _keep_placeholder)
        gate = FORMAT_GATES.get(kind) or literal_gate(body)
        out.append(Recogniser(kind, re.compile(body), keep=keep, text_words=gate))
    places = COMMAND_LINES + CREDENTIAL_CALLS + DIRECTORY_BINDS + LITERALS + AUTHORIZATION + NAMED_VALUES + PASSPHRASES
    places += PLACES + DEVICES + URL_SECRETS + CODE + HEADERS + PROSE + TOOLS + OTP + NAME_VALUE_ROWS + TOKEN_PIECES
    places += TOOL_FILES + ENCODED + DATA_TOOLS + CONNECTION_PAIRS
    places += TOLD + INCIDENTS
    places += WEB_HANDOVERS + WEB_SERVICES + PAYMENT_NUMBERS
    places += LICENCES + KEY_MATERIAL + ONE_TIME_CODES
    for place in places:
        # a rule that spans lines writes its line break out (\n), which one_line leaves as it is; and as a rule is
        # about one line, its ^ and $ are a line's ends (MULTILINE), also where it runs over the whole text
        body, keep = _guarded(one_line(place.pattern), place.keep)
        groups = place.group if isinstance(place.group, tuple) else (place.group,)
        out.append(
            Recogniser(
                place.kind,
                re.compile(body, re.MULTILINE),
                groups,
                keep,
                line_words=place.line_words,
                text_words=place.text_words,
                gate=place.gate,
            )
        )
    return out
