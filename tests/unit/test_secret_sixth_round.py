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


# a name that means secret, where nothing is given to it
NO_VALUE_KEPT = [
    'token := os.Getenv("API_TOKEN")',
    "secret := vault.Read(path)",
    "arn:aws:secretsmanager:us-east-2:210987654321:secret:billing/stripe-AbCdEf",
    "[fr] api_key_help.html: Spelling",
    "the password: bob's laptop had it saved",
    "the secret: carol\u2019s notebook",
    "Did you see the pin on her jacket? Is Wonder-Woman her hero?",
    "my pin on the board. Was Iron-Man 3 any good?",
    "podman login without -p and it prompts",
    "use skopeo login with -p only in CI",
]


@pytest.mark.parametrize("text", NO_VALUE_KEPT)
def test_a_secret_name_with_no_value_stays(text: str) -> None:
    assert redact(text) == text


# the same shapes, holding a secret
WITH_VALUE_FOUND = [
    ('password := "Mx7$kQ2pLr"', "Mx7$kQ2pLr"),
    ("api_key_help.html: Bq8Tz3Wr9Lm2Kx7Vp4Nc", "Bq8Tz3Wr9Lm2Kx7Vp4Nc"),
    ("the secret: carol42!x", "carol42!x"),
    ("podman login -u ci -p Fw3Lk9Qs registry.example.com", "Fw3Lk9Qs"),
    ("the pin for the alarm is 4Kx-7729", "4Kx-7729"),
]


@pytest.mark.parametrize(("text", "secret"), WITH_VALUE_FOUND)
def test_the_same_shapes_with_a_secret_are_redacted(text: str, secret: str) -> None:
    assert secret not in redact(text)
