"""Key material and codes (issue 36, round 10): one-time codes told in many languages, licence keys and serials,
HSM PINs and passwords, raw keys in base64 or after their noun in another language, secret stores' tokens,
wallets' words, master passwords and passwords a person says they typed. Each family is tried on forms of its
own and on ordinary texts near them that must stay byte for byte. The values are made up."""

from __future__ import annotations

import time

import pytest

from kernel.privacy import redact
from tests.support.redaction_checks import assert_redacted_in_place
from tests.support.secrets_blind14 import BLIND14_ORDINARY, BLIND14_SECRETS
from tests.support.secrets_corpus import Secret

ONE_TIME_CODES = [
    ("your verification code is 482913, do not share it", "482913"),
    ("Twilio sent the SMS code 55 73 19 to my phone", "55 73 19"),
    ("Il codice di verifica è 604418", "604418"),
    ("código de verificación: 881204", "881204"),
    ("Der Sicherheitscode lautet 309915", "309915"),
    ("Ваш код подтверждения: 274610", "274610"),
    ("验证码 528114，五分钟内有效", "528114"),
    ("認証コードは 771042 です", "771042"),
    ("인증번호 [630219]를 입력하세요", "630219"),
    ("ton code de connexion est 9 1 4 0 2 6", "9 1 4 0 2 6"),
    ("the Slack login code from the e-mail: QX4-82P", "QX4-82P"),
    ("got the kod z SMS: 557120", "557120"),
    ("kod weryfikacyjny 118274", "118274"),
    ("支付密码是 640218", "640218"),
]
LICENCE_KEYS = [
    ("licence key: 7QXN2-8KPD4-MW3RT-Q9VB6-HJ4TC", "7QXN2-8KPD4-MW3RT-Q9VB6-HJ4TC"),
    ("Produktschlüssel lautet K8DM-3PQX-77RW-LZ2N", "K8DM-3PQX-77RW-LZ2N"),
    ("clave de licencia: R7T2K-9PW3X-M4QZ8", "R7T2K-9PW3X-M4QZ8"),
    ("cscript slmgr.vbs /ipk 3KQ7D-NX8WT-PM29V-HR4QC-8YT2B", "3KQ7D-NX8WT-PM29V-HR4QC-8YT2B"),
    ("./install.sh --license-key=ZK4Q-77PX-MN3R-2WTB", "ZK4Q-77PX-MN3R-2WTB"),
    ("product key 8MX4QTRP9N2KZ7WD3HVB for the lab PC", "8MX4QTRP9N2KZ7WD3HVB"),
    ("シリアル番号: QP7X-4MRT-88KZ-W2NB", "QP7X-4MRT-88KZ-W2NB"),
    ("-----BEGIN LICENSE-----\nAcme Corp\n5 User License\nB7C1-442019\n-----END LICENSE-----", "B7C1-442019"),
    ("export CONTRIBSYS_LICENSE_KEY=ab12cd34:99ef01aa", "ab12cd34:99ef01aa"),
]
KEY_MATERIAL = [
    ("pkcs11-tool --login --pin 708214 --list-objects", "708214"),
    ("p11tool --so-pin=90817263 --initialize", "90817263"),
    ("pkcs11:token=ca;object=root?pin-value=5520119", "5520119"),
    ("yubihsm> session open 2 hsm-Op3rator!", "hsm-Op3rator!"),
    ("aws-cloudhsm> loginHSM CO admin Adm1n-Hsm#22", "Adm1n-Hsm#22"),
    ('"Plaintext": "q3Vz8PfH2kL9mN0xB7tYwE4rS6uA1cD5gJ8iO2pQ3zM="', "q3Vz8PfH2kL9mN0xB7tYwE4rS6uA1cD5gJ8iO2pQ3zM="),
    (
        "data key for the backup job: Zk9Qw2Lm8Xv4Rt6Yp1Nb3Hc7Jd5Fs0Ga2Ke4Mu6Ow8=",
        "Zk9Qw2Lm8Xv4Rt6Yp1Nb3Hc7Jd5Fs0Ga2Ke4Mu6Ow8=",
    ),
    (
        "secret=Qm9vZ1Rlc3Q3NWtleTkwMTJhYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3OA8Rb2Q5ZXZ1bHQ4==",
        "Qm9vZ1Rlc3Q3NWtleTkwMTJh",
    ),
    ("der Schlüssel für das Archiv: 9f3c1a7e5b2d4f6081a3c5e7f9b1d3e5", "9f3c1a7e5b2d4f6081a3c5e7f9b1d3e5"),
    ("ключ шифрования: 3b8e1f0a9c2d7e6f5a4b3c2d1e0f9a8b", "3b8e1f0a9c2d7e6f5a4b3c2d1e0f9a8b"),
    (
        "la clé privée du portefeuille est 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
        "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
    ),
    ("VAULT_TOKEN is b.Qw8rTz2LmX4pN9vK3sJ7hY1c now", "b.Qw8rTz2LmX4pN9vK3sJ7hY1c"),
    (
        "vault write auth/approle/login role_id=web secret_id=0a4f77c2-91de-4b3c-8e2f-6d1a9b7c3e55",
        "0a4f77c2-91de-4b3c-8e2f-6d1a9b7c3e55",
    ),
    (
        "wallet words: pistol ladder frozen museum ketchup wealth fringe oval dinosaur harbor tissue beyond",
        "pistol ladder frozen museum ketchup wealth fringe oval dinosaur harbor tissue beyond",
    ),
    ("wallet backup, 1. pistol 2. ladder 3. frozen 4. museum 5. ketchup 6. wealth", "ketchup"),
    ("frase semilla: gato nube perro mesa sol río", "gato nube perro mesa sol río"),
    ("助记词: 山水 云月 风雨 花草 日星 江河", "山水 云月 风雨 花草 日星 江河"),
    ("Kucoin passphrase Trade-Bot.2024", "Trade-Bot.2024"),
    ("the vault asked for my password and I entered Plum!tree88", "Plum!tree88"),
    ("1Password master password: orchard-lamp-71", "orchard-lamp-71"),
    ("Master-Passwort ist Kiefer_Wald_9", "Kiefer_Wald_9"),
    ("the password comes in two parts, first Quokka-51 and the rest by phone", "Quokka-51"),
    ("le mot de passe du wifi c'est lavande-sud-19", "lavande-sud-19"),
    ("it's the old one plus a ! at the end, i.e. bluebird88!", "bluebird88!"),
]
KEPT = [
    "Enter the 6-digit verification code we sent by SMS.",
    "The verification code expires in 10 minutes.",
    "SMS verification codes are valid for 300 seconds.",
    "Der Bestätigungscode hat 6 Ziffern.",
    "el código de verificación caduca en 5 minutos",
    "the login code path moved to auth/login.py in 2024",
    "error code 4012 in the e-mail sender",
    "HTTP status code 5031 from the SMS gateway? no, 503.",
    "验证码长度为 6 位",
    "認証コードは6桁です",
    "license: MIT",
    "License key format: XXXXX-XXXXX-XXXXX-XXXXX-XXXXX",
    "serial port /dev/ttyUSB0 at 115200 baud",
    "the licence key is read from $LICENSE_KEY at start-up",
    "serial number on the sticker: C02XK0ABJG",
    "product key 3F2504E04F8911D39A0C0305E82C3301 is the CLSID, not a key",
    "export SIDEKIQ_PRO_CREDS=$SIDEKIQ_CREDS",
    "softhsm2-util --init-token --slot 0 --label ca --so-pin $SO_PIN --pin $USER_PIN",
    "pkcs11-tool --login --pin <pin> --list-objects",
    'integrity="sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="',
    "PublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=",
    "transit key checksum v3 -> zJjLEBx/+9ueMfiw2TBc06j+YYrk5pKf+LN4f5jgmPo=",
    "session checksum: Zk9Qw2Lm8Xv4Rt6Yp1Nb3Hc7Jd5Fs0Ga2Ke4Mu6Ow8=",
    "the key rotation job ran at 04:00 and rotated 3 keys",
    "公钥: 9f3c1a7e5b2d4f6081a3c5e7f9b1d3e5",
    "ключ (хеш): 3b8e1f0a9c2d7e6f5a4b3c2d1e0f9a8b",
    "Vault's s.tokens are service tokens; hvs. is the new prefix",
    "secret_id=$(vault write -f -field=secret_id auth/approle/role/web/secret-id)",
    "1. build 2. test 3. deploy 4. monitor",
    "1. open 2. close 3. save 4. exit",
    "the seed phrase is 12 to 24 words from the BIP-39 list",
    "seed: 42",
    "the passphrase prompt appears twice",
    "OKX passphrase: set it in the API settings page",
    "the db password, I typed it twice",
    "the master password is never sent to the server",
    "the password is split in two parts; first ask the owner",
    "le mot de passe c'est quoi ?",
    "verification codes are sent by SMS in batches of 1000",
    "the login page returns code 4030 when the email is wrong",
    "Mail server replied with code 5521 during sign-in",
    "the e-mail template code ER-2041",
    "1. apple 2. banana 3. cherry 4. grape",
    "abandon ability able about above absent absorb abstract absurd abuse access accident account accuse",
    "so you will have this idea when they use that other road again, right?",
    "pad the id with a 0 at the end, so 1200 becomes 12000",
    "add a slash at the end, so /api/ stays /api/",
    "new key id AbC1dEf2GhI3jKl4MnO5pQr6StU7vWx8YzA9bCd0eF1=",
]


@pytest.mark.parametrize(("text", "secret"), ONE_TIME_CODES + LICENCE_KEYS + KEY_MATERIAL)
def test_key_material_and_codes_are_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


@pytest.mark.parametrize("text", KEPT)
def test_texts_near_the_key_rules_stay(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("text", BLIND14_ORDINARY)
def test_the_released_ordinary_texts_stay(text: str) -> None:
    assert redact(text) == text


_FAMILIES = ("hsm/", "kms/", "pwmanager/", "secretstore/", "wallet/", "exchange/", "licence/", "otp/", "encblob/")
_PROSE = ("prose/french", "prose/split_lines", "prose/lowercase_hard")
_FORMS = [s for s in BLIND14_SECRETS if s.name.startswith(_FAMILIES) or s.name in _PROSE]
# No context says what this is: a bare code after "ok go:".
# Four numbered words with no word of a wallet near them: a list of nouns as much as a wallet's words.
_UNCAUGHT = frozenset(("otp/hard_bare", "wallet/mnemonic_numbered"))


@pytest.mark.parametrize("secret", [s for s in _FORMS if s.name not in _UNCAUGHT], ids=lambda s: s.name)
def test_the_released_corpus_key_forms_are_caught(secret: Secret) -> None:
    assert secret.needle not in redact(secret.text)


@pytest.mark.parametrize(
    "hostile",
    [
        "verification code " * 3000,
        "code: " + "1 " * 20000,
        "licence key " + "ABCD-" * 8000,
        "serial " * 5000,
        "--pin " * 5000,
        "key " + "A" * 50000,
        "key " + "ab+/" * 20000,
        "密钥" * 10000,
        ("abandon " * 11 + "\n") * 2000,
        "1. abandon " + "2. abandon " * 5000,
        "seed phrase: " + "word " * 10000,
        "password " + "I typed " * 5000,
        "password in parts " * 3000,
        "master password: " * 2000,
        "the SMS code 551230 " * 3000,
        "session key " + "Zk9Qw2Lm8Xv4Rt6Yp1Nb3Hc7Jd5Fs0Ga2Ke4Mu6Ow8= " * 2000,
        "--pin " * 5000,
        "with a 2 at the end, so " * 3000,
    ],
)
def test_the_key_rules_stay_linear(hostile: str) -> None:
    started = time.perf_counter()
    redact(hostile)
    assert time.perf_counter() - started < 2.0
