"""The families issue 36's sixth blind corpus caught out, each tried on forms of its own (other languages,
tools and shapes than the corpus's) and on ordinary texts near them that must stay. The values are made up."""

from __future__ import annotations

import pytest

from kernel.privacy import redact

# a password named in another language, the noun inflected ("lösenordet", "şifresi", "пароля")
INFLECTED_FOUND = [
    ("passordet til ruteren er Trolltind-77", "Trolltind-77"),
    ("sunucu şifresi: Karadeniz#Mavi9", "Karadeniz#Mavi9"),
    ("das Passwortes Wert lautet Zugspitze_2962", "Zugspitze_2962"),
    ("mật khẩu là Halong-Bay-88", "Halong-Bay-88"),
    ("kata sandi adalah Merapi!2930", "Merapi!2930"),
    ("adgangskoden er Kattegat+41", "Kattegat+41"),
]


@pytest.mark.parametrize(("text", "secret"), INFLECTED_FOUND)
def test_a_password_named_in_another_language_is_redacted(text: str, secret: str) -> None:
    assert secret not in redact(text)


INFLECTED_KEPT = [
    "lösenordet måste bytas varje månad",
    "şifresi değiştirildi, yenisini sor",
    "mật khẩu là bí mật",
    "das Passwort ist zu kurz",
]


@pytest.mark.parametrize("text", INFLECTED_KEPT)
def test_prose_about_a_password_in_another_language_stays(text: str) -> None:
    assert redact(text) == text
