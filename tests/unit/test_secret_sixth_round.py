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


# credential positions: Samba's user%password, a URL's appid, a wallet's recovery words
POSITIONS_FOUND = [
    ("rpcclient -U 'CORP\\\\ops_sync%Vn3#rT8!qZ' 10.0.4.2", "Vn3#rT8!qZ"),
    ("smbmap -H 10.1.1.5 --user=backup%Lq7-Wd2xPz", "Lq7-Wd2xPz"),
    ("winexe -U admin%hunter2x //server cmd", "hunter2x"),
    ("GET https://maps.example.net/v3/geocode?address=Oslo&app_id=5f1c9e0b7a2d48c6b3e1f09a8d7c6b5e", "5f1c9e0b7a2d"),
    (
        "seed phrase (ledger backup): quartz mango velvet arrow sunset hollow crane pepper meadow orbit glide fossil",
        "quartz mango velvet arrow sunset hollow crane pepper meadow orbit glide fossil",
    ),
    (
        "mnemonic = 'lemon canyon drift humble tiger pulse ocean wagon frost ember piano rally'",
        "lemon canyon drift humble tiger pulse ocean wagon frost ember piano rally",
    ),
    (
        "the recovery words for the hot wallet are\nbrave cactus ladder noble pixel ranch smoke thunder usual violin wisdom yard",
        "brave cactus ladder noble pixel ranch smoke thunder usual violin wisdom yard",
    ),
]


@pytest.mark.parametrize(("text", "secret"), POSITIONS_FOUND)
def test_a_credential_in_its_position_is_redacted(text: str, secret: str) -> None:
    assert secret not in redact(text)


POSITIONS_KEPT = [
    "smbclient -L //fileserver -U guest",
    "the discount is 15% -U shows the user list",
    "https://graph.example.com/v2/apps?app_id=1234567890123",
    "the seed phrase is written on paper and you should never type these words into any website at all ok",
    "write down your recovery phrase: the wallet shows twelve words and you must keep them offline forever please",
    "mnemonic devices help students remember long lists",
]


@pytest.mark.parametrize("text", POSITIONS_KEPT)
def test_what_only_sits_near_a_credential_position_stays(text: str) -> None:
    assert redact(text) == text


_HEX64 = "9c2e41f07ab35d68e1904c7f2b8a6d3015e9c47a2f80b6d1e3c5a7094f6b2d81"

WALLET_KEYS_FOUND = [
    f"const signer = new Wallet('0x{_HEX64}', provider)",
    f"account = Account.from_key('0x{_HEX64}')",
    f"const acct = privateKeyToAccount(`0x{_HEX64}`)",
    f"kp := keypair.FromSecretKey(ctx, {_HEX64})",
]


@pytest.mark.parametrize("text", WALLET_KEYS_FOUND)
def test_a_raw_private_key_given_to_a_signer_is_redacted(text: str) -> None:
    assert _HEX64 not in redact(text)


WALLET_HEX_KEPT = [
    f"tx hash 0x{_HEX64} confirmed in block 1902221",
    f"explorer.getTransaction('0x{_HEX64}')",
    f"sha256sum: {_HEX64}  release.tar.gz",
    f"account balance at block 0x{_HEX64[:8]} is 3 ETH",
]


@pytest.mark.parametrize("text", WALLET_HEX_KEPT)
def test_a_hash_given_to_anything_else_stays(text: str) -> None:
    assert redact(text) == text


# a flag with one dash whose name says password (X11, Java, OpenSSL style), and flags followed by prose
SINGLE_DASH_FOUND = [
    ("x0vncserver -display :1 -passwd ocelot93 -forever", "ocelot93"),
    ("jarsigner -storepass walrus71 app.jar signer", "walrus71"),
    ("pscp -pw heron-55x backup.tgz ops@10.2.0.8:/srv", "heron-55x"),
    ("vendor-cli -admin_password=Gecko2021 reset", "Gecko2021"),
]


@pytest.mark.parametrize(("text", "secret"), SINGLE_DASH_FOUND)
def test_a_single_dash_password_flag_is_redacted(text: str, secret: str) -> None:
    assert secret not in redact(text)


FLAG_PROSE_KEPT = [
    "use -pass when asked for the export password",
    "the -pw option and the -passwd flag do the same",
    "podman login reads it from the prompt if -p is left out",
    "run with --password only in a test",
]


@pytest.mark.parametrize("text", FLAG_PROSE_KEPT)
def test_a_flag_followed_by_prose_stays(text: str) -> None:
    assert redact(text) == text


# a snake_case name that says secret, its value after a space (a CLI's "set NAME VALUE", a config listing)
SPACED_FOUND = [
    ("mytool config set smtp_password Larch-4471", "Larch-4471"),
    ("rclone config create b2 account 0042aa application_key K004xYzq8Lm2", "K004xYzq8Lm2"),
    ("settings: webhook_secret  wh7-Qa91-Zt", "wh7-Qa91-Zt"),
]


@pytest.mark.parametrize(("text", "secret"), SPACED_FOUND)
def test_a_snake_case_secret_name_and_a_spaced_value_is_redacted(text: str, secret: str) -> None:
    assert secret not in redact(text)


SPACED_KEPT = [
    "if api_key is None: raise",
    "ssh -i ~/.ssh/deploy_key deploy@10.9.8.7 uptime",
    "set max_token_count 4096",
    "the access_token expires after 3600s",
    "rotate the db_password whenever someone leaves",
    "print(secret_key.hex())",
]


@pytest.mark.parametrize("text", SPACED_KEPT)
def test_a_snake_case_secret_name_in_code_or_prose_stays(text: str) -> None:
    assert redact(text) == text


# a password fed by a here-string or a process substitution
FED_FOUND = [
    ("x11vncpasswd -f <<< 'otter-88k' > pw", "otter-88k"),
    ('kinit svc_etl@EXAMPLE.ORG <<< "Marten_5521"', "Marten_5521"),
    ("restic --password-file <(echo badger7731) snapshots", "badger7731"),
    ("openconnect --passwd-on-stdin x; vpn --auth-file <(printf 'ops\\nlynx-4410')", "lynx-4410"),
]


@pytest.mark.parametrize(("text", "secret"), FED_FOUND)
def test_a_password_fed_by_a_here_string_or_a_substitution_is_redacted(text: str, secret: str) -> None:
    assert secret not in redact(text)


FED_KEPT = [
    "wc -w <<< 'count these words'",
    "diff <(echo left) <(echo right)",
    'kinit ops@EXAMPLE.ORG <<< "$KRB_PASSWORD"',
    "restic --password-file <(echo $RESTIC_PW) check",
]


@pytest.mark.parametrize("text", FED_KEPT)
def test_a_here_string_of_anything_else_stays(text: str) -> None:
    assert redact(text) == text
