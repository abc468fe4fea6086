"""One-time-password seeds and recovery codes (issue 36).

- **a TOTP/HOTP seed**: base32 (``A-Z2-7``, 16 characters or more) on a line that speaks of one-time
  passwords (``pyotp.TOTP('...')``, "2FA secret: ...", "authenticator setup key ..."), written whole or in the
  groups of four an authenticator's "can't scan the QR code?" page shows (``KPRY 4ME6 O3JE TRSA``);
- **recovery codes**: the list of codes under a line that names them ("GitHub recovery codes:",
  "backup codes", "scratch codes"), one or two to a line, bulleted or numbered; a single code in two halves too.

A seed must hold both letters and base32 digits (2-7), so capitalised words and constants stay; a list
of codes must hold digits. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.places import Place

_OTP_WORDS = (
    "totp",
    "hotp",
    "otp",
    "2fa",
    "mfa",
    "two-factor",
    "two factor",
    "authenticator",
    "setup key",
    "secret key",
    "base32",
)
_CODE_LINE = r"[ \t]{0,8}(?:[-*•]|\d{1,2}[.)])?[ \t]{0,4}[A-Za-z0-9]{4,12}(?:[- ][A-Za-z0-9]{4,12})?[ \t]{0,8}"


def _not_base32_random(match: re.Match[str]) -> bool:
    """Keep a run without base32 digits or without letters: a word in capitals, a constant, a number."""
    value = match.group(1).replace(" ", "").replace("-", "")
    digits = sum(c in "234567" for c in value)
    letters = sum(c.isalpha() for c in value)
    return digits < 2 or letters < 4 or len(set(value)) < 8


def _no_digits(match: re.Match[str]) -> bool:
    """Keep a list of words ("- print them", "- store them offline"): codes hold digits."""
    lines = [line for line in match.group(1).splitlines() if line.strip()]
    if len(lines) == 1:  # one code alone under its heading: a code's two halves ("rpbbr-euo00"), not "1Password"
        return _ONE_CODE.fullmatch(lines[0].strip()) is None or not any(c.isdigit() for c in lines[0])
    return sum(any(c.isdigit() for c in line) for line in lines) * 2 < len(lines)


_ONE_CODE = re.compile(r"(?:[-*\u2022]|\d{1,2}[.)])?[ \t]{0,4}[A-Za-z0-9]{4,12}[- ][A-Za-z0-9]{4,12}")


OTP: list[Place] = [
    Place(
        "otp-seed",
        r"(?<![A-Za-z0-9_])((?-i:[A-Z2-7]{16,64}|[a-z2-7]{16,64}|[A-Z2-7]{4}(?:[ -][A-Z2-7]{4}){3,15}|"
        r"[a-z2-7]{4}(?:[ -][a-z2-7]{4}){3,15}))(?![A-Za-z0-9_])",
        1,
        _not_base32_random,
        line_words=_OTP_WORDS,
    ),
    Place(
        "recovery-codes",
        r"(?i)\b(?:recovery|backup|scratch|emergency|one-time|single-use)[ \t]+codes?\b[^\n]{0,120}\n"
        rf"((?:{_CODE_LINE}\n){{0,31}}{_CODE_LINE}(?=\n|$))",
        1,
        _no_digits,
        text_words=("recovery", "backup", "scratch", "emergency", "one-time", "single-use"),
        gate=re.compile(r"codes?\b[^\n]{0,120}\n"),
    ),
]
