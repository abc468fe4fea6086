"""Codes people tell each other (issue 36, round 9): door, gate, keypad and alarm codes, PINs and PUKs,
passcodes, combinations, a card's CVC, backup codes, recovery keys and phrases, an unlock pattern, in many
phrasings and languages; and the numbers near them that are no code (error and status codes, postcodes,
rooms, lockers, times, counts, instructions without a code) stay byte for byte. The values are made up."""

from __future__ import annotations

import time

import pytest

from kernel.privacy import redact
from tests.support.redaction_checks import assert_redacted_in_place
from tests.support.secrets_blind9 import BLIND9_ORDINARY
from tests.support.secrets_blind10 import BLIND10_ORDINARY
from tests.support.secrets_blind11 import BLIND11_ORDINARY, BLIND11_SECRETS

# a code after the noun that says what it opens
AFTER_A_NOUN = [
    ("the entry code for the side door is 5813#", "5813#"),
    ("Gate code: 2046 (the keypad is on the left pillar)", "2046"),
    ("lockbox code 7-7-3-1, keys on the hook inside", "7-7-3-1"),
    ("Key safe combination: 40-12-33", "40-12-33"),
    ("our Yale smart lock guest code is 318840, it expires Sunday", "318840"),
    ("disarm code for the house alarm: 6402", "6402"),
    ("The duress code is 7711, only use it if someone is with you", "7711"),
    ("Master code (installer): 550219", "550219"),
    ("my SIM PIN is 3307 and the PUK 66120945", "66120945"),
    ("iPad passcode: 271828", "271828"),
    ("voicemail PIN 80412", "80412"),
    ("new debit card PIN: 2719", "2719"),
    ("CVV 418 on the back", "418"),
    ("Amazon locker pickup code 552031, valid 3 days", "552031"),
    ("the code to the bike shed is 9034", "9034"),
    ("Le digicode de l'immeuble est 12B47", "12B47"),
    ("El código de la puerta es 4482", "4482"),
    ("Der Türcode lautet 7391", "7391"),
    ("De code van de kluis is 558201", "558201"),
    ("Kod do drzwi: 2291#", "2291#"),
    ("Portkoden är 1357", "1357"),
    ("O código do portão é 6640", "6640"),
    ("PIN-Code der EC-Karte: 9052", "9052"),
    ("Пин-код карты: 4821", "4821"),
    ("Код от домофона: 5512#", "5512#"),
    ("the garage code is nine one one four", "nine one one four"),
    ("2fa code: 730 118", "730 118"),
    ("<li>Your access code: <strong>K7Q2ZP9</strong></li>", "K7Q2ZP9"),
    ("door code is `2580#`, don't change it", "2580#"),
    ("**Alarm PIN:** **6651**", "6651"),
]

# a code after the thing it opens, or after a verb that opens
AFTER_A_THING = [
    ("Padlock: 3391", "3391"),
    ("suitcase lock → 707", "707"),
    ("keypad - 82046", "82046"),
    ("back gate: *4411#", "*4411#"),
    ("Wall safe: L12-R40-L7", "L12-R40-L7"),
    ("to get in, disarm it with 5578 at the panel", "5578"),
    ("the gun cabinet unlocks with 3302-8", "3302-8"),
    ("front door opens by typing 9021 on the pad", "9021"),
    ("I changed the combination to 11-27-03 on the storage unit lock", "11-27-03"),
    ("Studio 3. 7K41Q at the building door, then stairs", "7K41Q"),
    ("lucchetto: 4491", "4491"),
    ("Shed padlock changed → 8830, tell the gardener", "8830"),
    ("Storeroom door: 4417C (the old one still works too)", "4417C"),
    ("gym locker: 12-38-05", "12-38-05"),
    ("Keysafe 2215 then take the left key", "2215"),
    ("alarm 2104 before you open the back door", "2104"),
    ("the webinar host key is 551903", "551903"),
    ("the code 4 the shed is 7301", "7301"),
    ("shopping:\n- milk\n- 5521 (Ana's debit card PIN)\n- bread", "5521"),
    ("7713 (the gate code), don't post it on the group", "7713"),
    ("PIN for the server room alarm, as agreed in the meeting: 3-0-9-9-1", "3-0-9-9-1"),
    ("at the keypad, punch in 66108 and wait for the beep", "66108"),
    ("door code: it's on the note, just type 1234 and push", "1234"),
    ("the gate code is the year reversed, so enter 4202#", "4202#"),
]

# backup codes, recovery keys and phrases, an unlock pattern
RECOVERY = [
    ("Google backup codes: 4829 1033, 7721 0459", "7721 0459"),
    ("my scratch code is 93812055", "93812055"),
    ("Dropbox recovery code = x7kq-29fm-a8pl", "x7kq-29fm-a8pl"),
    ("Backup-Codes für GitLab: 8f3a1c92 77bd21e0", "77bd21e0"),
    ("códigos de recuperación: 55120983, 11893420", "11893420"),
    ("recovery key: 104225-330781-662104-990214-117706-884105-331290-506644", "104225-330781-662104-990214"),
    ("Recovery key for the Mac is 8KQF-2JXA-PL4M-77DW-ZC9R-TQ1N", "8KQF-2JXA-PL4M-77DW-ZC9R-TQ1N"),
    (
        "phrase de récupération : canal dizzy elder frost jungle kettle meadow noble olive piano radar salad",
        "canal dizzy elder frost jungle kettle meadow noble olive piano radar salad",
    ),
    (
        "written on the card in the drawer:\nvapor wagon yellow zebra anchor bright cousin donkey eager fabric gentle timber",
        "vapor wagon yellow zebra anchor bright cousin donkey eager fabric gentle timber",
    ),
    ("phone unlock pattern is Z from top left, then 5", "Z from top left"),
    ("Entsperrmuster: 1-5-9-6-3", "1-5-9-6-3"),
    ("alarm is two-zero-eight-one, or 2 0 8 1 on the keypad", "2 0 8 1"),
]


# a secret spelled out, dictated, warned about or given in halves
SPELLED = [
    ("the wifi password, spelled: Tango-oscar-romeo-four-two-golf", "Tango-oscar-romeo-four-two-golf"),
    ("pw is sierra hotel uniform five five lima", "sierra hotel uniform five five lima"),
    ("Kennwort buchstabiert: Ludwig Otto Richard 4 4", "Ludwig Otto Richard 4 4"),
    ("code spelled out: k 7 x q 2 m", "k 7 x q 2 m"),
    ("upper-case K then elp3r99 then a hash sign", "elp3r99"),
    ("careful, that's a one not an l: W1ndmill-l1ght", "W1ndmill-l1ght"),
    ("last part: Gh7Kp2", "Gh7Kp2"),
]

# the answer to a security question
ANSWERS = [
    ("security question (favourite teacher) -> Mrs. Albright", "Albright"),
    ("Bank security answer: Copperfield", "Copperfield"),
    ("memorable word = pineapple42", "pineapple42"),
    ("Sicherheitsfrage Haustier, Antwort: Bello", "Bello"),
    ("mother's maiden name is Vandermeer, in case they ask", "Vandermeer"),
]


@pytest.mark.parametrize(("text", "secret"), AFTER_A_NOUN + AFTER_A_THING + RECOVERY + SPELLED + ANSWERS)
def test_a_code_told_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


# numbers near those nouns that open nothing
KEPT = [
    "Error code 4711 means the keypad lost power.",
    "The door controller returned status code 503 again",
    "exit code 137 (OOM killed), the alarm fired twice",
    "HTTP code 404 on /gate/status",
    "zip code 94107, the door is round the back",
    "Postal code: 10115",
    "El código postal es 28001 y la puerta es verde",
    "Il codice fiscale va inserito: RSSMRA80A01H501U",
    "country code 44, area code 0207",
    "Use promo code SPRING2026 at checkout, the gate opens at 9",
    "Sort code 20-00-00 is on the card statement",
    "PIN must be 4 digits",
    "The PIN is 6 digits long",
    "Enter the 6-digit code we sent to your phone",
    "Your verification code has expired, request a new one",
    "Connect the LED to pin 13 and the door sensor to pin 2",
    "pin 1.2.3 of the lock library",
    "The alarm is set for 0630",
    "alarm 0715, then coffee",
    "set the alarm to 2330",
    "My locker is 218, the code is on the sticker inside",
    "Room 704, the safe is in the wardrobe",
    "Flat 12, door 3, gate B52",
    "Gate: A12 (boarding 07:45)",
    "The safe holds 1500 euros",
    "alarm: 1500 events per day on the panel",
    "Combination locks ship set to 0000",
    "Combination lock, factory default 0000",
    "Locker: 218, second row",
    "PIN length: 6 digits",
    "PIN attempts: 3",
    "code review: 1234 lines changed on the door service",
    "Error code lookup: 4711 at the gate",
    "Код ошибки 4711 на двери",
    "Почтовый индекс 101000, дверь слева",
    "access code 2024 for the conference",
    "The access code is <b>required</b> to join",
    "Error code `404` on the door API",
    "type 2024 as the year in the form",
    "enter 1000 in the amount field",
    "press enter 3 times",
    "pin: 1.2.3.4 in requirements, the lock file pins the rest",
    "door code changed: 2026-11-20, ask Maria for it",
    "El código de error es 5001 en la puerta",
    "Il codice di errore è 1234, la porta è chiusa",
    "Le code postal est 75020, porte B",
    "Fehlercode 4711 an der Haustür",
    "HTTP response code: 200 from the lock API",
    "the installer exit code 1603 on the office laptop",
    "locker 12 at the station",
    "Room door: 12B",
    "Alarm: 0645 on weekdays",
    "alarm 0700 tomorrow",
    "the alarm 3390 events per day",
    "404 (error code) again on the gate API",
    "2024 (code freeze) for the door firmware",
    "Order 5531 (promo code applied) ships to the front door",
    "ssh host key: 2048 bits, RSA",
    "GPIO pin 1234 drives the LED",
    "entry code 2023",
    "The lock is a 2024 model",
    "Door opens at 0800, closes at 1800",
    "1400 at the front door, don't be late",
    "the code review is 2 days late",
    "the code is 2000 lines long, the lock file too",
    "Call 0800 123 456 if the door buzzer is broken",
    "Invoice INV-4471 for the new gate",
    "Ticket #88213: alarm panel offline",
    "Store your recovery codes offline.",
    "You have 8 backup codes left",
    "Recovery key saved to iCloud on 2026-11-20",
    "BitLocker recovery key ID: 1A2B3C4D",
    "unlock pattern: at least 4 dots",
    "Tablet unlock pattern: disabled",
    "the quick brown fox jumps over the lazy dog and then runs away fast",
    "apple banana cherry grape lemon mango melon olive peach pear plum",
    "tags: python django flask fastapi celery redis postgres docker nginx gunicorn uvicorn sentry",
    "Train ICE 1951 to platform 4, the doors open on the left",
    "The combination of 3 and 4 gives 7",
    "The building code 2018 requires two exits per floor",
    "Press the button: the gate opens with a 10 second delay",
    "open the file with 4096 bytes of buffer",
    "python django flask fastapi celery redis postgres docker nginx gunicorn uvicorn sentry",
    "what when where which while with within without would about after again",
    "Security question: What was your first pet's name?",
    "Security answers are case-sensitive.",
    "the security answer is stored hashed, like a password",
    "Security questions → see the policy page",
    "What's your memorable word? (asked at login)",
    "Spelling my surname: B-A-U-E-R.",
    "It's Kilo-India-Mike, as in KIM, the surname.",
    "Call sign: Alpha Bravo 7.",
    "The NATO alphabet: Alpha, Bravo, Charlie, Delta, Echo…",
    "The password alphabet drill: Alpha Bravo Charlie Delta Echo",
    "Mike Oscar and Victor met Romeo at the bar",
    "Spell it out: capital letters first, then digits.",
    "Capital A, then the rest of the name in lowercase",
    "it's a zero not an O in the model name",
    "first half: 2-1 to Arsenal",
    "second part: Setup and installation",
    "The code path is a b c d e f in order",
    "pass x 1 y 2 z 3 to the function",
]


@pytest.mark.parametrize("text", KEPT)
def test_a_number_that_opens_nothing_stays(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("text", BLIND9_ORDINARY + BLIND10_ORDINARY + BLIND11_ORDINARY)
def test_the_released_ordinary_texts_hold_no_code(text: str) -> None:
    cleaned = redact(text)
    assert not any(f"[REDACTED:{kind}]" in cleaned for kind in _KINDS), cleaned


_KINDS = (
    "access-code",
    "backup-codes",
    "recovery-key",
    "seed-phrase",
    "unlock-pattern",
    "spelled-secret",
    "security-answer",
)


_CODE_FAMILIES = (
    "door/",
    "alarm/",
    "phone/",
    "voicemail/",
    "locker/",
    "backup_codes/",
    "recovery_key/",
    "totp/",
    "spelled/",
)
_ANSWER_FORMS = ("bank/security_answer",)
_CODE_FORMS = [s for s in BLIND11_SECRETS if s.name.startswith(_CODE_FAMILIES)] + [
    s
    for s in BLIND11_SECRETS
    if s.name
    in (
        "bank/card_pin",
        "bank/card_full",
        "bank/brokerage",
        "bank/swedish",
        "bank/online_login",
        "bank/telephone_banking",
        "recovery_phrase/no_keyword",
        "recovery_phrase/german",
        *_ANSWER_FORMS,
    )
]


@pytest.mark.parametrize("secret", _CODE_FORMS, ids=[s.name for s in _CODE_FORMS])
def test_the_released_corpus_codes_are_caught(secret: object) -> None:
    from tests.support.secrets_corpus import Secret

    assert isinstance(secret, Secret)
    assert secret.needle not in redact(secret.text)


@pytest.mark.parametrize(
    "hostile",
    [
        "door code " * 3000,
        "code: " + "1-" * 20000,
        "backup codes: " + "abcd1234 " * 5000,
        "alarm " + "four " * 10000,
        "recovery key: " + "ABCD-" * 8000,
        ("anchor " * 11 + "\n") * 2000,
        "unlock pattern: " + "L " * 20000,
        "the safe opens with " * 2000,
        "PIN for " + "the gate, " * 5000,
        "password: " + "kilo-" * 10000,
        "spelling: " + "a 1 " * 10000,
        "security question " + "what " * 10000,
        "alarm is " + "1 " * 20000,
    ],
)
def test_the_code_rules_stay_linear(hostile: str) -> None:
    started = time.perf_counter()
    redact(hostile)
    assert time.perf_counter() - started < 2.0
