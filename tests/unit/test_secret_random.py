"""A random token standing alone is redacted whatever its context (``kernel.redaction.random_tokens``), and what only
looks random (digests, public keys, ids, base64 of text, URLs) stays. The values are made up."""

from __future__ import annotations

import base64
import hashlib
import time

import pytest

from kernel.privacy import redact

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _token(seed: str, length: int, alphabet: str = _ALPHABET) -> str:
    raw = b"".join(hashlib.sha256(f"random-test:{seed}:{n}".encode()).digest() for n in range(length // 32 + 1))
    return "".join(alphabet[b % len(alphabet)] for b in raw[:length])


KEY_A = _token("a", 40)
KEY_B = _token("b", 32)
KEY_C = _token("c", 48, _ALPHABET + "_-")
KEY_D = _token("d", 40, _ALPHABET + "+/")
KEY_E = _token("e", 52, _ALPHABET.replace("0", "").replace("O", "").replace("I", "").replace("l", ""))

FOUND = [
    (f'client = vendor.Client("{KEY_A}")', KEY_A),
    (f"curl -u [REDACTED:twilio-key]:{KEY_B} https://api.example.com/", KEY_B),
    (f"tool auth set-default {KEY_C}", KEY_C),
    (f"here is what the admin sent me: {KEY_D} (valid until friday)", KEY_D),
    (f'import_key {KEY_E} "label" false', KEY_E),
    (f'TOKEN = (\n    "{KEY_A[:20]}"\n    "{KEY_D}"\n)', KEY_D),
    (f"{KEY_B}.", KEY_B),
    (f"export UPSTREAM_BLOB={KEY_C}", KEY_C),
    ("the kiosk shows Q7tR2mXb9KwP4zN8hJ3v on boot", "Q7tR2mXb9KwP4zN8hJ3v"),
    (f"render target={KEY_A} mode=fast", KEY_A),
    # runs of lower-case letters that only look pronounceable ("jutqamf", "xsobac") are no words
    ("mc alias set local http://127.0.0.1:9000 ops Rk7PjutqamfWx2Lz9TbNc4Qv+XsobacD8h", "Rk7PjutqamfWx2Lz9TbNc4Qv"),
    # a prefix shaped like a typed id does not make what it carries one: an id's body has no '+' or '/'
    (f"session-15-{KEY_D}", KEY_D),
    (f"resumed run-7_{KEY_D} after the crash", KEY_D),
]


@pytest.mark.parametrize(("text", "secret"), FOUND)
def test_a_random_token_standing_alone_is_redacted(text: str, secret: str) -> None:
    assert secret not in redact(text)


_DIGEST_B64 = base64.b64encode(hashlib.sha256(b"file").digest()).decode()
_TEXT_B64 = base64.b64encode(b"Hello from the nightly build, all 42 tests passed").decode()
_PNG_B64 = base64.b64encode(b"\x89PNG\r\n\x1a\n" + hashlib.sha512(b"img").digest()).decode()
_SSH_PUBLIC = base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + hashlib.sha256(b"k").digest()).decode()

KEPT = [
    f"fingerprint SHA256:{_DIGEST_B64.rstrip('=')} (ED25519)",
    f"golang.org/x/text v0.14.0 h1:{_DIGEST_B64}",
    f"PublicKey = {_DIGEST_B64}",
    f"echo {_TEXT_B64} | base64 -d",
    f"<img src='data:image/png;base64,{_PNG_B64}'>",
    f"ssh-ed25519 {_SSH_PUBLIC} ops@host",
    f"ssh-ed25519 {_SSH_PUBLIC[:50]} ops@host",
    f"x-amz-request-id: {KEY_A}",
    f'"trace_id": "{KEY_B}"',
    f'{{"kty": "RSA", "n": "{KEY_C}", "e": "AQAB"}}',
    f"see https://docs.example.com/view/{KEY_A}/edit for the draft",
    f"cat /var/cache/build/{KEY_B}/log.txt",
    f"evt_{KEY_A[:24]} was delivered twice",
    f"integrity sha512-{KEY_D}",
    "the test TestLoginRedirectsAfterSessionExpiry42 is flaky",
    "getUserPreferencesFromRemoteStorageAsync() returns a promise",
    "-----BEGIN PUBLIC KEY-----\n" + _token("p", 64, _ALPHABET + "+/") + "\n" + KEY_D + "==\n-----END PUBLIC KEY-----",
    "the commit 3f9a1c2e7b4d8e6f0a5c3b2d1e9f8a7b6c5d4e3f fixed it",
    "short tokens like Ab3dE5gH7jK9 stay as they are",
    "checkpoint BertForSequenceClassification2Heads loaded",
    f"callback at /oauth/done?state={KEY_A}",
    f"REQUEST_ID={KEY_B} failed",
    "created subnet-0cc2d79ae4EXAMPLE in the VPC",
    "undefined symbol Decimal8toStringB5cxx11Ev in libblink",
    "registerServiceWorkerInBackground42Times is flaky",
]


@pytest.mark.parametrize("text", KEPT)
def test_what_only_looks_random_stays(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "Ab1" * 16_000,
        (KEY_A + " ") * 1_200,
        ("a" * 299 + " ") * 160,
        ("x=" + KEY_B + ";") * 1_400,
    ],
    ids=["one-run", "many-tokens", "long-words", "glued-pairs"],
)
def test_random_tokens_stay_linear_on_hostile_input(text: str) -> None:
    started = time.process_time()
    redact(text)
    assert time.process_time() - started < 1.5, f"{len(text):,} chars"


PASSWORDS_FOUND = [
    ("la contraseña del wifi es Wq4#Tz9mKp2", "Wq4#Tz9mKp2"),
    ("ログインは Hx72Lq_vR8tN です", "Hx72Lq_vR8tN"),
    ("vncserver -SecurityTypes VncAuth -pw Zr5.Tq-83kWm", "Zr5.Tq-83kWm"),
    ("ftp.login('deploy', 'Km8!Rv2xPq$s')", "Km8!Rv2xPq$s"),
    ('auth(("svc", Some("Bt3~Wk9_Xq.Lm")))', "Bt3~Wk9_Xq.Lm"),
    ("password below:\n\nJv6*Nq3RtYp!W\n", "Jv6*Nq3RtYp!W"),
    ("数据库的密码是 Pz8%Kd4mQw2x，别外传", "Pz8%Kd4mQw2x"),
    # short ones (8 to 11 characters) where nearly every character differs
    ("the cold wallet sits behind Tq7!xK2m now", "Tq7!xK2m"),
    ("wifi: guest network, Rb4#Lz9wQ", "Rb4#Lz9wQ"),
]


@pytest.mark.parametrize(("text", "secret"), PASSWORDS_FOUND)
def test_a_generated_password_standing_alone_is_redacted(text: str, secret: str) -> None:
    assert secret not in redact(text)


PASSWORDS_KEPT = [
    "upgrade to Build-2024.11_RC3 before friday",
    "download SHA256SUMS.txt and Release-2.53.16b1.tar",
    "mail Ops.Team42@example.org about it",
    "customer cus_Q7w3E9r5T2 renewed",
    "std::vector<Foo2>::iterator Ab3::Cd4 is wrong",
    "the field Hello_World_42 is renamed",
    "ticket JIRA-4821 and PR-77 are linked",
    "MAX_RETRIES=12 and LANG=en_US.UTF-8",
    "version 3.12.1-Beta2 is out",
    "see RFC-8446 and ISO-27001 for the details",
    "the iPad-Air2 case and the Pixel-7a cable",
    "flights LH-2041 and BA-117x were late",
]


@pytest.mark.parametrize("text", PASSWORDS_KEPT)
def test_what_only_looks_like_a_password_stays(text: str) -> None:
    assert redact(text) == text
