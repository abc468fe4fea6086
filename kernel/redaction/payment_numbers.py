"""Payment numbers told in a text (issue 36): a card number and a bank account's IBAN.

A card number is 13 to 19 digits, whole or in groups of four, on a line that speaks of a card
(card, Visa, Mastercard, Amex, credit, debit, Karte, carte, tarjeta, cartão), that passes the Luhn check or is
told with its expiry or security code; the test
numbers the payment providers' docs print (4242 4242 4242 4242, 4111 1111 1111 1111...) stay, as any number made of
one or two digits repeated does. An IBAN is a country's two letters, two check digits and up to 30 letters and
digits, whole or in groups of four, whose check (ISO 13616, mod 97) holds; the examples the standard and the banks
print (DE89 3704 0044 0532 0130 00, GB82 WEST 1234 5698 7654 32) stay. Plain module.
"""

from __future__ import annotations

import re

from kernel.redaction.places import Place

# Test card numbers the payment providers' docs print (Stripe, Adyen, Braintree, PayPal): public.
_TEST_CARDS = frozenset(
    "4242424242424242 4000056655665556 5555555555554444 2223003122003222 5200828282828210 378282246310005 "
    "371449635398431 6011111111111117 6011000990139424 3056930009020004 36227206271667 3566002020360505 "
    "6200000000000005 4111111111111111 4012888888881881 4000000000000002 4000000000009995 5105105105105100 "
    "4000000000000077 4000002500003155 4000000000003220 5454545454545454 4988438843884305".split()
)
_DOCUMENTED_IBANS = frozenset(("DE89370400440532013000", "GB82WEST12345698765432", "GB29NWBK60161331926819"))


def _luhn(digits: str) -> bool:
    total = 0
    for at, char in enumerate(reversed(digits)):
        value = int(char) * (2 if at % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _keep_card(match: re.Match[str]) -> bool:
    digits = re.sub(r"[ -]", "", match.group(1))
    if not 13 <= len(digits) <= 19 or len(set(digits)) <= 2 or digits in _TEST_CARDS:
        return True
    if _luhn(digits):
        return False
    # a number that fails the check is still a card's when its expiry or its security code is told with it
    return _EXPIRY_AFTER.search(match.string, match.end(), match.end() + 40) is None


_EXPIRY_AFTER = re.compile(
    r"(?i)\b(?:exp(?:iry|ires|\.)?|valid(?:[ \t]thru)?|cvc|cvv|cvv2|ablauf|expira)\b|\b\d{2}/\d{2}\b"
)


def _keep_iban(match: re.Match[str]) -> bool:
    iban = match.group(1).replace(" ", "")
    if iban in _DOCUMENTED_IBANS or len(iban) < 15:
        return True
    rearranged = iban[4:] + iban[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 != 1


PAYMENT_NUMBERS: list[Place] = [
    Place(
        "card-number",
        r"(?<![\w-])(\d{4}(?:[ -]\d{4}){2}[ -]\d{1,7}|\d{13,19})(?![\w-])",
        1,
        _keep_card,
        line_words=(
            "card",
            "visa",
            "mastercard",
            "amex",
            "credit",
            "debit",
            "karte",
            "carte",
            "tarjeta",
            "cart\u00e3o",
            "cc",
        ),
    ),
    Place(
        "iban",
        r"\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?)\b",
        1,
        _keep_iban,
        gate=re.compile(r"\b[A-Z]{2}\d{2} ?[A-Z0-9]{4}"),
    ),
]
