"""A random token standing alone in any text, whatever names it or none (issue 36).

The other recognisers need a context: a prefix that names the vendor, a name that says secret, a flag,
a URL's password. Each blind corpus missed keys whose context none of them knew (a key passed to a client's
constructor, the rest of a key split over string literals, a command's positional argument, a sentence in
prose). What those share is the value itself: 20 characters or more of mixed case and digits with no words in
them (``kernel.redaction.entropy.high_entropy``), standing alone between spaces or quotes. What looks the same
but is public stays: a value inside a URL or a path, a hash or key fingerprint after its ``SHA256:``/``h1:``
label, a value named an id (``x-amz-version-id: ...``), a typed object id (``evt_...``, ``sha512-...``),
base64 that decodes to text or to a known binary (an SSH or DER public key, an image), base64 of a digest's
size (32 or 64 bytes: a checksum, a public key), and a ``data:`` URI's payload (``url(data:font/woff2;base64,...)``:
the file it embeds). Base64 whose decoded text gives a credential a value (a Docker config's ``"auth"``, a JSON or
env file's password, a private key) is a secret wherever it stands (``holds_a_credential``).

A shorter value (8 to 40 characters) counts when it is shaped as a generated password: two upper-case and two
lower-case letters, two digits and a symbol, no word in it; a version, a file name, an address, a typed id stay.
Plain module.
"""

from __future__ import annotations

import base64
import binascii
import math
import re

from kernel.redaction.entropy import high_entropy, mostly_words, shannon, wordlike
from kernel.redaction.values import named_public

# Standing alone: after the start, a space, a quote or an opening bracket (or a marker's ']:', the user part
# of "user:secret" already redacted), up to a space, a quote, a closing bracket or a sentence's end.
RANDOM_TOKEN = re.compile(
    r"(?<![^\s\"'`(\[{,>:=])[A-Za-z0-9][A-Za-z0-9+/_\-]{19,300}={0,2}"
    r"(?=[.!?,;:]?(?:[\s\"'`)\]},<]|$))",
    re.MULTILINE,
)
# A password as a generator makes one: 8 to 40 characters mixing upper and lower case, digits and a symbol,
# standing alone the same way. Never '=' or '/' or '&' (an assignment, a path, a query) in it.
PASSWORD_TOKEN = re.compile(
    r"(?<![^\s\"'`(\[{,>])(?=[^\s\"'`]{0,39}?\d)(?=[^\s\"'`]{0,39}?[A-Z])(?=[^\s\"'`]{0,39}?[!#$%*+\-.:;?@^_~])"
    r"[A-Za-z0-9][A-Za-z0-9!#$%*+\-.:;?@^_~]{6,38}[A-Za-z0-9!#$%*?@^_~]"
    r"(?=[.,;:]?(?:[\s\"'`)\]},<\uff0c\u3002\u3001]|$))",
    re.MULTILINE,
)
_LETTER_RUN = re.compile(r"[a-z]{4,}|[A-Z][a-z]{3,}")
_NOT_A_PASSWORD = re.compile(r"@|::|\d\.\d|\.[a-z]{2,4}$")  # an address, a C++/Rust path, a version, a file
_TYPED_ID = re.compile(r"[a-z]{2,8}[_-]|sha\d{3}-")  # evt_..., subnet-..., sha512-...
# A key's algorithm and its id, as gpg --list-keys prints them (rsa4096/..., ed25519/..., cv25519/..., nistp256/...)
_KEY_ID = re.compile(r"[a-z]{2,10}\d{3,5}[a-z]?/(?:0x)?[0-9A-F]{8,40}")
# Ids whose shape names them: a Twilio-style resource SID (two capitals, 32 hex: SM... a message, CA... a call) and a
# Cloudflare Ray id (16 hex and the data centre's code: 8a1b2c3d4e5f6a7b-FRA).
_SHAPED_ID = re.compile(r"[A-Z]{2}[0-9a-f]{32}|[0-9a-f]{16}-[A-Z]{3}")
_BASE64_MARK = re.compile(r"[+/]")
_ID_PREFIX = re.compile(r"(?:[a-z]{2,12}[_-]|\d{1,6}[_-])+")  # session-15-, evt_, subnet-
_DIGEST_ID = re.compile(r"sha\d{3}-")  # an integrity digest (sha512-<base64>) is public
_LONG = 28
_LETTER_RUN_5 = re.compile(r"[a-z]{5}|[A-Z]{5}")
_NAMED_ID = re.compile(r"(?i)(?:id|ids|hash|sum|digest|fingerprint|checksum)[\"']?\s*[:=]\s*[\"']?$")
_JWK_PUBLIC_PART = re.compile(r"\"(?:n|e|x|y|x5t|x5c)\"\s*:\s*\[?\"$")  # a JSON Web Key's public modulus, curve point
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/]{48,100}")
_BINARY_HEADS = (b"\x00\x00\x00", b"0\x81", b"0\x82", b"0\x83", b"\x89PNG", b"GIF8", b"\xff\xd8", b"PK")
# DER's short form: a SEQUENCE, its length, then the tag of what it holds (a SEQUENCE, an INTEGER, an OID)
_DER_SHORT = re.compile(rb"0[\x00-\x7f][\x02\x03\x04\x06\x30\xa0]", re.DOTALL)
_DIGEST_SIZES = frozenset((16, 20, 32, 48, 64))


# Pairs of consonants English words are made of; a run holding another pair ("xsobac", "jutqamf") is random letters.
_WORD_PAIRS = frozenset(
    """th ch sh ph wh gh ck ng nk nd nt nc ns nf nv nz st sp sc sk sm sn sl sw tr pr br cr dr fr gr wr bl cl fl gl pl
    ll ss tt ff mm nn pp rr dd gg bb cc zz rd rt rk rm rn rs rl rc rg rv rb rp rf rh rw lt ld lk lm lf lp ls lv lb lc
    ct pt ft mp mb mn ts ds ms ks ps ls xt xp xc sq tw dw kn gn wn wl wk ws wd hm hn hr hl ht tch""".split()
)
_CONSONANT_PAIR = re.compile(r"(?=([b-df-hj-np-tv-z]{2}))")


def unlike_a_word(letters: str) -> bool:
    """Letters no word is made of: a 'q' without its 'u', or three pairs of consonants English words never join
    ("Lyonenweqp"); one odd pair may be another language's word ("abgelaufen")."""
    run = letters.lower()
    if re.search(r"q(?!u)", run):
        return True
    return sum(pair not in _WORD_PAIRS for pair in _CONSONANT_PAIR.findall(run)) >= 3


def _reads_as_word(run: str) -> bool:
    """A run of lower-case letters that reads as a word: ``wordlike``, no 'q' without its 'u', and every pair of
    consonants one English words are made of."""
    if not wordlike(run) or re.search(r"q(?!u)", run):
        return False
    return all(pair in _WORD_PAIRS for pair in _CONSONANT_PAIR.findall(run))


# A credential in a decoded text: JSON's "auth"/"password", an env file's PASSWORD=, a key's armour.
_CREDENTIAL_INSIDE = re.compile(
    r"(?i)[\"']?(?:auths?|password|passwd|passphrase|secret|token|api_?key|_authtoken|client_secret|"
    r"aws_secret_access_key)[\"']?[ \t]*[:=][ \t]*[\"']?[^\s\"'{}\[\],]{4}|PRIVATE KEY-----"
)
_DECODED_CREDENTIAL_LEAST = 40  # a shorter base64 is not decoded for a credential


def holds_a_credential(raw: bytes) -> bool:
    """Decoded base64 that is text giving a credential a value: a Docker config's ``{"auths": {"h": {"auth":
    "..."}}}``, a JSON or env file with a password, a private key's armour."""
    text = raw.decode("utf-8", "replace")
    return _CREDENTIAL_INSIDE.search(text) is not None


def _public_base64(value: str) -> bool:
    """Base64 (or base64url) of text, of a known binary, or of a digest's size."""
    standard = value.replace("-", "+").replace("_", "/")
    head = base64.b64decode(standard[:8])
    if head.startswith(_BINARY_HEADS) or _DER_SHORT.match(head):
        return True  # a known binary (a truncated public key still opens as one)
    try:
        raw = base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    if len(raw) in _DIGEST_SIZES:
        return True
    printable = sum(32 <= byte < 127 or byte in (9, 10, 13) for byte in raw)
    return printable * 10 >= len(raw) * 9


# Where a data: URI's base64 payload starts: "url(data:font/woff2;base64,", "src=\"data:image/png;base64,".
_DATA_URI = re.compile(r"(?i)\bdata:[\w.+-]{0,40}/?[\w.+-]{0,60}(?:;[\w.+-]{1,40}=?[\w.+-]{0,40}){0,4};base64,\Z")


def _decodes_to_a_credential(value: str) -> bool:
    """``value`` is base64 (or base64url) of a text that gives a credential a value."""
    standard = value.replace("-", "+").replace("_", "/")
    try:
        raw = base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return holds_a_credential(raw)


def keep_random_token(match: re.Match[str]) -> bool:
    """True for a match that is not a random secret (see the module's docstring)."""
    value = match.group(0).rstrip("=")
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    before = match.string[line_start : match.start()]
    if before.endswith(":") and not before.endswith("]:"):
        return True  # after a label's colon with no space (SHA256:..., h1:...); "]:" is a marker's user part
    if before.endswith("=") and not before[-2:-1].isalnum() and before[-2:-1] != "_":
        return True  # only a name's '=' (NAME=...), not '==' or ' ='
    chunk = before[max(before.rfind(" "), before.rfind("\t")) + 1 :]
    if chunk.endswith("=") and ("?" in chunk or "&" in chunk or ";" in chunk or "://" in chunk):
        return True  # a URL's query, a cookie: their values are the query and cookie rules' to judge
    if len(value) >= _DECODED_CREDENTIAL_LEAST and _decodes_to_a_credential(value):
        return False  # a Docker config, an env file, a JSON login, encoded: whatever its context
    if _DATA_URI.search(before[-120:]):
        return True  # a data: URI's payload is the file it embeds (a font, an image)
    prefix = _ID_PREFIX.match(value)
    carried = value[prefix.end() :] if prefix and not _DIGEST_ID.match(value) else ""
    if len(carried) >= 20 and _BASE64_MARK.search(carried):
        value = carried  # "session-15-<base64 of random bytes>": a typed id's body is letters and digits, so the
        # prefix only carries a token, which is judged on its own
    elif (
        _TYPED_ID.match(value)
        or _KEY_ID.fullmatch(value)
        or _NAMED_ID.search(before[-40:])
        or _JWK_PUBLIC_PART.search(before[-12:])
    ):
        return True
    if _SHAPED_ID.fullmatch(value) or named_public(match):
        return True  # a resource's SID, a Ray id; a key the words before call public (a CAPTCHA's site key)
    if not before and _BASE64_LINE.fullmatch(
        match.string, match.string.rfind("\n", 0, line_start - 1) + 1, line_start - 1
    ):
        return True  # the last line of a multi-line base64 body (a public key, a certificate)
    if len(value) < _LONG and _LETTER_RUN_5.search(value):
        return True  # a shorter token shows no run of five letters of one case (a name's words, EXAMPLE)
    if not high_entropy(value, _reads_as_word) or mostly_words(value, 0.5, _reads_as_word):  # a mangled C++ name
        return True
    return _public_base64(value)


def keep_password_token(match: re.Match[str]) -> bool:
    """True for a match that is not a generated password: one that lacks a class of characters (two upper, two
    lower, two digits, a symbol), holds a word, reads as a version, a file name, an address or a typed id."""
    value = match.group(0)
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    digits = sum(c.isdigit() for c in value)
    if upper < 2 or lower < 2 or digits < 2 or value.isalnum():
        return True
    if _NOT_A_PASSWORD.search(value) or _TYPED_ID.match(value) or _SHAPED_ID.fullmatch(value) or named_public(match):
        return True
    if any(wordlike(run.lower()) for run in _LETTER_RUN.findall(value)) or mostly_words(value, share=0.5):
        return True
    return shannon(value) < min(3.4, 0.95 * math.log2(len(value)))  # (a short one: nearly every character differs)
