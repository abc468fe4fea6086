"""The one check a secret-recognition case makes: the secret is gone, redaction is idempotent, and the
lines around it come through as they were."""

from __future__ import annotations

from kernel.privacy import redact


def assert_redacted_in_place(text: str, secret: str) -> None:
    cleaned = redact(text)
    assert secret not in cleaned, cleaned
    assert redact(cleaned) == cleaned
    inside = redact(f"log line 1\n{text}\nlog line 3")
    assert secret not in inside and inside.startswith("log line 1\n") and inside.endswith("\nlog line 3")
