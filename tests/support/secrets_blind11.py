"""Eleventh held-out secrets corpus, written blind for issue 36.

Written blind: its author read none of the redaction rules, no other corpus beyond the ``Secret``
structure, ``SeededDraw`` and the head of ``secrets_blind7`` (for its format), and never ran the
redactor on these forms.  It must never be used to tune rules.

The forms are people telling and pasting secrets: chat messages, emails, notes, meeting minutes,
tickets, onboarding docs and handover notes, in several languages and registers, for personal and
shared accounts (streaming, banking, wifi, door and alarm codes, phone PINs, voicemail, lockers),
2FA backup codes, recovery phrases and keys, quoted replies and forwarded messages, lists and
tables, dictated or spelled out, hinted and corrected, plus the same people pasting tokens from
tools.  Values are drawn from SeededDraw("blind11") or written by hand; none is live.  The ordinary
texts contain no secret but sit near them.
"""

from __future__ import annotations

import base64

from tests.support.secrets_corpus import ALNUM, Secret, SeededDraw, b64url_text

_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_HEX = "0123456789abcdef"
_DIGITS = "0123456789"
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_B64URL = ALNUM + "-_"


def family_of(name: str) -> str:
    """The category of a form: the part of its name before the slash."""
    return name.split("/", 1)[0]


_DRAW = SeededDraw("blind11")
_s = _DRAW.chars

BLIND11_SECRETS: list[Secret] = []


def _add(name: str, template: str, needle: str) -> None:
    """A form whose text is ``template`` with ``§`` replaced by ``needle``."""
    BLIND11_SECRETS.append(Secret(name, template.replace("§", needle), needle))


_WORDS = (
    "absent orbit velvet harbor cactus tribe lunar gossip window marble tiny sponsor "
    "embark fossil quarter ribbon walnut glide pepper summit oxygen rescue famous beyond "
    "canal dizzy elder frost jungle kettle meadow noble olive piano radar salad timber "
    "unfold vapor wagon yellow zebra anchor bright cousin donkey eager fabric gentle"
).split()


def _phrase(seed: str, n: int) -> str:
    idx = _s(seed, n, ALNUM[:48])
    return " ".join(_WORDS[ALNUM.index(c)] for c in idx)


# --- chat: plain telling in chat, casual and terse ---
_add("chat/slack_casual", "hey can u log into the shared figma? pw is §  (don't tell design lol)", "Pinguin!Sommer22")
_add("chat/terse", "netflix: dad@familyhome.net / §", "couchpotato1987")
_add(
    "chat/lowercase_no_punct",
    "ok the router admin login is admin and the pass is § just type it",
    "m4rmalade" + "toast",
)
_add("chat/emoji", "🔑 § 🔑 that's the one for the nas, enjoy", _s("chat-emoji", 14))
_add(
    "chat/teams_reply",
    "[10:42] Priya S.: the vpn password got reset, new one: §\n[10:43] Tom: thx",
    "Winter_is_c0ming!",
)
_add(
    "chat/whatsapp",
    "[27/11/26, 19:03] Mum: The amazon password is § darling, the capital J matters",
    "Jasmine" + "tea2019",
)
_add(
    "chat/discord", "@here staging db user is `app_rw` and pass `§`, rotate after the demo pls", _s("chat-discord", 20)
)
_add("chat/no_keyword", "for the kids' ipad: §", "Dinosaur-Roar-77")
_add("chat/after_username", "user: ops-bot\n§\n(second line is the pw obviously)", _s("chat-after-user", 16))
_add("chat/sms_style", "pswd 4 the gym app → §", "flexTime#2026")

# --- email ---
_add(
    "email/formal",
    "Dear Ms. Okafor,\n\nAs requested, your temporary password for the client portal is §. "
    "You will be asked to change it at first login.\n\nKind regards,\nIT Service Desk",
    "Tmp-" + _s("email-formal", 10),
)
_add(
    "email/signoff",
    "Hi all — account for the conference booth laptop is booth@acme-events.com, password: §\nCheers, Lena",
    "Booth2026Berlin!",
)
_add(
    "email/subject_line",
    "Subject: wifi for Saturday\n\nNetwork is GardenParty, code § — see you there!",
    "lemonade-sprinkler",
)
_add(
    "email/html_pasted",
    "<p>Your one-time access code: <b>§</b></p><p>It expires in 24 hours.</p>",
    _s("email-html", 8, _UPPER),
)
_add(
    "email/ps",
    "Thanks for the help with the invoice!\n\nP.S. the login for the accounting box is still § if you need it",
    "Ledger" + "Lion$88",
)
_add(
    "email/reply_above",
    "Got it, works now.\n\nOn Tue, 24 Nov 2026 at 09:12, Marc <marc@ex.org> wrote:\nTry § (no spaces)",
    "7yF" + _s("email-reply", 9),
)
_add(
    "email/bullet",
    "Access details:\n• URL: https://crm.example.org\n• User: sales-team\n• Password: §\n• MFA: ask Jo",
    _s("email-bullet", 12),
)
_add(
    "email/german_formal",
    "Sehr geehrter Herr Bauer,\nIhr Initialpasswort lautet: §\nBitte ändern Sie es nach der ersten Anmeldung.",
    "Start#" + _s("email-de", 8, _DIGITS),
)

# --- wifi ---
_add("wifi/fridge_note", "WLAN: Müller_5G\nSchlüssel: §", "Zitronenkuchen2024")
_add("wifi/airbnb", "Welcome! Wifi network 'SeaBreeze_Guest', pass: § (all lowercase)", "sandcastle" + "42")
_add("wifi/wpa_conf", 'network={\n    ssid="HomeNet"\n    psk="§"\n}', "rainyday" + _s("wifi-wpa", 6, _LOWER))
_add("wifi/office_onboarding", "Guest wifi: ACME-Guest / Staff wifi: ACME-Corp, key §", _s("wifi-office", 16, _UPPER))
_add("wifi/spanish", "La contraseña del wifi es § (con mayúscula al principio)", "Paella" + "Valencia99")
_add(
    "wifi/french", "Le code wifi de la Livebox c'est §, il est sous la box aussi", _s("wifi-fr", 26, "0123456789ABCDEF")
)
_add("wifi/qr_string", "scan this or type it: WIFI:T:WPA;S:Cafe_Lumen;P:§;;", "latte" + "artIsLife")
_add("wifi/nmcli", "$ nmcli dev wifi connect Attic-AP password §", _s("wifi-nmcli", 12))
_add("wifi/hint_only_value", "the attic one is just §, all caps", "ATTICBATS" + "2")

# --- door codes ---
_add("door/building", "Building door code is § then press the bell for 3B", "4711#")
_add("door/keypad_star", "front gate: *§# , back gate same but with 0 at the end", "2580")
_add("door/italian", "Il codice del portone è §, poi secondo piano a sinistra", "1948")
_add("door/office_garage", "garage keypad → § (changed Monday)", "739164")
_add("door/lockbox", "Keys are in the lockbox by the meter, combo §", "3-1-8-5")
_add("door/no_keyword", "Flat 12, Rue des Lilas. § at the street door, the lift is broken", "B52X7")
_add("door/dutch", "De deurcode is § en de sleutel ligt onder de mat", "8023A")
_add("door/smart_lock", "Nuki guest code for the cleaner: § (valid Thursdays only)", "662019")

# --- alarm codes ---
_add("alarm/house_sitter", "Alarm: disarm with § within 30 seconds of opening the door", "9137")
_add("alarm/duress", "Normal code § — do NOT use 9999 (that's the duress one)", "4468")
_add("alarm/office", "If the alarm goes off after 7pm, panel code is §, then call Securitas", "082315")
_add("alarm/portuguese", "O código do alarme é § — desliga antes de abrir a varanda", "5521")
_add("alarm/terse", "alarm §\nlights auto\nplants water Tue", "3390")
_add("alarm/master", "Installer/master code for the Ajax hub: § (don't share with tenants)", "123987")
_add("alarm/spelled", "alarm is four-seven-two-six, I mean § if you want digits", "4 7 2 6")

# --- phone PIN / SIM ---
_add("phone/pin", "my phone pin is § in case I pass out lol", "170392")
_add("phone/sim_puk", "SIM PUK from the card: § — the PIN is default", "48210937")
_add("phone/unlock_pattern", "Tablet unlock pattern: §", "L-shape then 5-9")
_add("phone/work_phone", "Work phone passcode: §. Company Portal will ask you to change it.", "020406")
_add("phone/polish", "Kod PIN do telefonu służbowego: §", "7315")
_add("phone/carrier_account", "Carrier account PIN (for port-out): §, they'll ask for it on the phone", "58837120")

# --- voicemail ---
_add("voicemail/box", "Voicemail: dial *86, mailbox 5550137, PIN §", "24680")
_add("voicemail/desk_phone", "Desk phone voicemail password reset to §#", "901122")
_add("voicemail/handover", "- VM PIN for the support line: § (ext 204)", "31415")
_add("voicemail/german", "Mailbox-PIN fürs Diensthandy: §", "6047")

# --- lockers / safes ---
_add("locker/gym", "Locker 218, combo §", "14-32-07")
_add("locker/school", "Oskar's locker is 47 and the code is §, he always forgets", "3912")
_add("locker/hotel_safe", "Safe in room 704 — I set it to §", "865201")
_add("locker/bike_lock", "Bike lock: § (rolled left to right)", "6061")
_add("locker/office_safe", "Petty cash safe: § turn left twice, then right", "R24-L11-R38")
_add("locker/parcel", "DHL Packstation pickup code §, locker 12", "803647")
_add("locker/gun_safe", "the safe in the basement closet opens with §", "7745-19")

# --- banking ---
_add("bank/online_login", "Sparkasse online banking: Anmeldename haus-weber, PIN §", "29384")
_add("bank/card_pin", "Card PIN is § — shred this message", "8361")
_add("bank/card_full", "Card: 4539 1488 0343 6467, exp 09/29, CVC §", "713")
_add("bank/telephone_banking", "Telephone banking passcode: § (they ask for digits 2, 4 and 5)", "5092817")
_add("bank/security_answer", "Security question 'first pet' → §", "Mr. Whiskerbottom")
_add("bank/iban_and_pw", "IBAN DE44 5001 0517 5407 3249 31, online password §", "Konto" + _s("bank-iban", 7) + "!")
_add(
    "bank/joint_account", "joint account app: login is our email, pw §, 2FA goes to my phone", "Honeymoon" + "Bali2019"
)
_add("bank/paypal", "PayPal: mira.k@mailbox.org / §", "Pay" + _s("bank-paypal", 10) + "$")
_add("bank/brokerage", "Trade Republic PIN: §", "4492")
_add("bank/swedish", "BankID-koden är § om du behöver logga in åt mig", "384902")

# --- streaming / subscriptions ---
_add("streaming/family_share", "Disney+: family@thekims.net\npw: §\nProfiles: Mina, Joon, Kids", "mickey" + "ears4ever")
_add("streaming/spotify", "spotify duo login → jana.p / §", "Rock" + "ing_Jana_95")
_add("streaming/hbo", "hbo max is § same email as always", "Dragons&Wine2")
_add("streaming/profile_pin", "Netflix profile lock PIN for the grown-ups: §", "5813")
_add("streaming/japanese", "アマプラのパスワードは § です", "sakura" + "mochi88")
_add("streaming/steam", "steam acc: gamer_dude_99\npass: §\ndon't buy anything!!!", _s("stream-steam", 11))
_add("streaming/cable", "TV parental PIN: §", "0852")

# --- 2FA backup codes ---
_backup = [_s(f"backup-{i}", 8, _LOWER) for i in range(10)]
_add(
    "backup_codes/google_list",
    "Google backup codes (each usable once):\n"
    + "\n".join(f"{c[:4]} {c[4:]}" for c in _backup[:5])
    + "\nKeep them safe.",
    f"{_backup[2][:4]} {_backup[2][4:]}",
)
_add("backup_codes/github_inline", "github recovery codes: § " + " ".join(_backup[6:9]), _backup[5])
_add("backup_codes/one_in_chat", "use backup code § — i've crossed out the ones I used", _backup[9])
_gh_codes = [_s(f"gh-rc-{i}", 5, _HEX) + "-" + _s(f"gh-rc-b{i}", 5, _HEX) for i in range(4)]
_add("backup_codes/hyphenated", "recovery codes\n" + "\n".join(_gh_codes), _gh_codes[1])
_add("backup_codes/numeric", "Backup verification codes: 8394 2016, §, 4410 7723", "5127 9930")
_add("backup_codes/microsoft", "Microsoft recovery code: §", "-".join(_s(f"ms-rc-{i}", 5, _UPPER) for i in range(5)))
_add(
    "backup_codes/table",
    "| # | code | used |\n|---|------|------|\n| 1 | § | no |\n| 2 | (used) | yes |",
    _s("bc-table", 10, _DIGITS),
)
_add("backup_codes/french", "codes de secours 2FA : §, garde-les précieusement", _s("bc-fr", 8, _DIGITS))

# --- seed/recovery phrases ---
_add("recovery_phrase/bip39_12", "wallet seed (write it down!!): §", _phrase("seed-12", 12))
_add("recovery_phrase/numbered", "1. " + _phrase("seed-num-a", 1) + "\n2. §\n3. ...", _phrase("seed-num", 4))
_add("recovery_phrase/24_words", "Ledger recovery phrase:\n§", _phrase("seed-24", 24))
_add("recovery_phrase/no_keyword", "§\nthat's it, don't lose the paper", _phrase("seed-nokw", 12))
_add("recovery_phrase/german", "Wiederherstellungsphrase für die Metamask: §", _phrase("seed-de", 12))
_add("recovery_phrase/comma", "seed words: §", ", ".join(_phrase("seed-comma", 12).split()))
_add("recovery_phrase/passphrase_25th", "and the 25th-word passphrase on top of the seed is §", "correct-horse-battery")

# --- recovery keys ---
_bitlocker = "-".join(_s(f"bl-{i}", 6, _DIGITS) for i in range(8))
_add("recovery_key/bitlocker", "BitLocker recovery key for LAPTOP-0193: §", _bitlocker)
_filevault = "-".join(_s(f"fv-{i}", 4, _UPPER) for i in range(6))
_add("recovery_key/filevault", "FileVault recovery key is §, I took a photo", _filevault)
_add("recovery_key/apple_id", "Apple ID recovery key: §", "-".join(_s(f"ak-{i}", 4, _UPPER) for i in range(7)))
_add("recovery_key/1password", "1Password Secret Key: §", "A3-" + "-".join(_s(f"op-{i}", 5, _UPPER) for i in range(6)))
_add("recovery_key/veracrypt", "veracrypt volume pass: §", "Th3 Quick Brown Fox Jumps!")
_add("recovery_key/luks", "LUKS passphrase for /dev/nvme0n1p3 → §", _s("luks", 22))
_add("recovery_key/proton", "Proton recovery phrase: §", _phrase("proton", 12))
_add("recovery_key/bitwarden", "bitwarden master pw: §", "Vault-" + _s("bw", 12) + "-2026")

# --- quoted replies ---
_add("quoted/gt_quote", "> > the password is §\n> thanks, that worked\nglad to hear!", "Chamomile" + "77!")
_add(
    "quoted/outlook",
    "Works now, thx.\n\n-----Original Message-----\nFrom: Admin\nSent: Monday\nSubject: RE: login\n\nNew pw: §",
    "Reset" + _s("q-outlook", 9),
)
_add("quoted/slack_quote", "> creds for the printer portal: admin / §\nthis still valid?", "HPprint" + "er!23")
_add("quoted/nested", ">>> key=§\n>> did you rotate it?\n> not yet", _s("q-nested", 24, _HEX))
_add("quoted/gmail", "On Wed, Nov 25, Anna wrote:\n> Wifi pass: §\n> Door: ask the concierge", "Hamster" + "wheel2")
_add("quoted/inline_quote", 'you said "§" but that doesn\'t work for me', "Blue.Moon.88")

# --- forwarded ---
_add(
    "forwarded/fwd_header",
    "Fwd: credentials\n---------- Forwarded message ---------\nFrom: hosting@provider.io\n\nFTP user: web123\nFTP pass: §",
    _s("fwd-ftp", 14),
)
_add("forwarded/fw_short", "FW: new hire\n\n> Laptop login: jdoe / §", "Welcome" + _s("fwd-laptop", 4, _DIGITS) + "!")
_add(
    "forwarded/chain",
    "see below ↓\n\nBegin forwarded message:\n\n> SFTP key passphrase: §",
    "ocean tide " + _s("fwd-chain", 6, _LOWER),
)
_add(
    "forwarded/vendor",
    "Forwarding from the vendor. Their support portal:\nuser acme_support\npass §\n\nThanks, Karl",
    _s("fwd-vendor", 10) + "#",
)
_add("forwarded/sms", "Forwarded SMS from +44 7700 900123: 'Your Barclays passcode is §. Never share it.'", "719204")

# --- lists & tables ---
_add(
    "table/markdown",
    "| service | user | pass |\n|---|---|---|\n| wiki | team | § |\n| jira | team | (SSO) |",
    "Wiki" + _s("tbl-md", 8),
)
_add("table/csv", "name,username,password,url\nRouter,admin,§,http://192.168.1.1", _s("tbl-csv", 13))
_add("table/tsv", "Hulu\tkim.family\t§\nPeacock\tkim.family\t(same as hulu?)", "Sunflower" + "Field#5")
_add(
    "table/ascii",
    "+--------+-----------+\n| NAS    | § |\n+--------+-----------+",
    "synology" + _s("tbl-ascii", 3, _DIGITS),
)
_add(
    "table/bitwarden_export",
    "folder,favorite,type,name,notes,fields,login_uri,login_username,login_password\n,,login,Bank,,,"
    "https://bank.example,jk,§",
    _s("tbl-bw", 18),
)
_add("table/bullets", "- router: admin / §\n- printer: no password\n- nas: see 1password", "R0uter" + _s("tbl-bul", 5))
_add("table/kv_colon", "Account: shared-marketing\nPwd.....: §\nOwner...: Sam", "Mark3ting" + _s("tbl-kv", 5))
_add("table/numbered", "1) VPN: §\n2) Jira: SSO\n3) Wiki: SSO", _s("tbl-num", 12) + "%")
_add("table/html", "<tr><td>admin</td><td>§</td></tr>", "Adm!n" + _s("tbl-html", 8))

# --- spelled out / dictated ---
_add("spelled/nato", "It's § — all lowercase except the first letter", "Kilo-echo-lima-papa-nine-three")
_add("spelled/letters_spaced", "spelling it out: §", "p a s s a t 2 0 0 8")
_add("spelled/dictated_call", "as I said on the call: capital M, then §, then exclamation mark", "arathon2024")
_add("spelled/hyphen_chars", "pw: §", "R-o-s-e-n-g-a-r-t-e-n-7")
_add("spelled/german_buchstabiert", "Das Passwort buchstabiert: §", "Anton Berta Cäsar 1 2 3")
_add(
    "spelled/digits_words", "the PIN is § (I'm writing it in words because of the screen reader)", "eight three one one"
)
_add("spelled/split_lines", "first half: Xq8Lz\nsecond half: §\n(join them)", "Rt4Wm9")
_add("spelled/voice_transcript", "[transcript] ...yeah so the code is § okay got it...", "seven seven four nine two")
_add("spelled/zero_vs_o", "note it's a zero not an O: §", "L0cksmith" + "_0ne")

# --- hinted ---
_add("hinted/same_as", "it's the same as the wifi but with § at the end", "!!Zq")
_add("hinted/pattern", "pw is our street name + house number + §", "#Hb7")
_add("hinted/initials", "the safe code = grandma's birthday, §", "0312")
_add("hinted/obvious_guess", "the admin password is just §, I know, I know", "password123")
_add("hinted/year_suffix", "use the usual one but Winter instead of Summer: §", "Winter" + "Gull2026")
_add("hinted/reversed", "the code backwards is 1897, so type §", "7981")
_add("hinted/keyboard_walk", "It's the keyboard walk one: §", "1qaz2wsx3edc")

# --- corrections ---
_add("correction/sorry_typo", "sorry, it's § not Hazelnut92 — typo", "Hazelnut29")
_add("correction/edit", "pw: Tulip88 *edit*: it's § now, IT made me change it", "Tulip" + "89Orange")
_add("correction/capital", "Ah wait, capital T: §", "TrainSpotter" + "!5")
_add("correction/missing_char", "you're missing the last char, full thing is §", _s("corr-missing", 15))
_add("correction/german", "Korrektur: das richtige Passwort ist §, nicht das von gestern", "Brezel" + "Salz#12")
_add("correction/strike", "~~Sunshine1~~ §", "Moonshine" + "2!")
_add("correction/old_new", "old: expired\nnew: §", _s("corr-oldnew", 12) + "!")

# --- meeting minutes ---
_add(
    "minutes/action_items",
    "Minutes 2026-11-20\nAttendees: RS, KL, MB\n- Shared zoom host key is § (KL to rotate)\n- Budget: ok",
    "482913",
)
_add(
    "minutes/decisions",
    "Decision: keep the shared staging password (§) until the SSO migration.",
    "Stag!ng" + _s("min-dec", 6),
)
_add("minutes/terse", "AOB: alarm changed → §. New keys for Lisa.", "6274")
_add(
    "minutes/french",
    "Compte rendu — réunion du bureau\n3. Le mot de passe du compte Canva est désormais §",
    "Canva" + _s("min-fr", 6) + "*",
)
_add("minutes/zoom", "Zoom host key: §; meeting passcode posted in the invite", "719355")
_add("minutes/board", "Treasurer noted the online banking token PIN is §; only she and the chair know it.", "55017")

# --- tickets ---
_add("ticket/jira", "PROJ-4821 Repro: log in as qa_user1 / §, open Settings → crash", "QAtest" + _s("tk-jira", 5))
_add(
    "ticket/helpdesk",
    "Ticket #88213: User reports locked out. Reset to §, told user by phone.",
    "Helpdesk" + _s("tk-hd", 4, _DIGITS),
)
_add("ticket/github_issue", "**Steps:** `curl -u admin:§ http://localhost:8080/api`", _s("tk-gh", 16))
_add("ticket/comment", "Comment by ops: service account svc-backup, new password §. Closing.", _s("tk-com", 20))
_add(
    "ticket/zendesk", "Internal note: customer's WP admin: editor / §  (given for debugging)", "WPress" + _s("tk-zd", 7)
)
_add("ticket/typo", "pasword for the tset env is §  cna you check", "tseTenv" + _s("tk-typo", 4, _DIGITS))
_add(
    "ticket/spanish", "Incidencia: no funciona el acceso. Usuario soporte, clave §", "Soporte" + _s("tk-es", 5, _DIGITS)
)

# --- onboarding docs ---
_add(
    "onboarding/first_day",
    "Welcome! Your laptop login is firstname.lastname, initial password §",
    "Acme!" + _s("onb-first", 6, _DIGITS),
)
_add("onboarding/shared_accounts", "## Shared accounts\n\n**Canva**: team@startup.io — `§`", _s("onb-canva", 12))
_add("onboarding/kitchen", "Kitchen fridge lock: §. Coffee machine has no code.", "2244")
_add("onboarding/bike_room", "Bike room door: § (ask reception if it changed)", "5090B")
_add("onboarding/wiki_table", "| Tool | Login |\n| Postman team | postman@co.com / § |", "P0stman" + _s("onb-pm", 6))
_add("onboarding/printer", "Printer PIN for releasing jobs: your employee number + §", "00917")
_add("onboarding/japanese", "初期パスワード: § (初回ログイン時に変更してください)", "Init" + _s("onb-ja", 8))

# --- handover notes ---
_add(
    "handover/leaving",
    "Handover from Jonas: the AWS root acct recovery email pw is §. Please change ASAP.",
    "Jonas" + _s("ho-leave", 9),
)
_add("handover/oncall", "On-call notes: pager app PIN §; escalation is Sam then me.", "1290")
_add(
    "handover/domain",
    "Domain registrar (Namecheap) – user acmeco, pass §, 2FA on the shared phone",
    _s("ho-domain", 14),
)
_add("handover/terse", "grafana admin § / prom no auth / es elastic:changeme-not", _s("ho-terse", 11))
_add("handover/house", "Cat food in the pantry. Alarm § then the door. Wifi on the fridge.", "1357")
_add("handover/shared_phone", "Shared support phone unlock: §. Authenticator app is on it.", "909090")
_add("handover/german", "Übergabe: Root-Passwort für den alten Server ist §", "Serv3r" + _s("ho-de", 7))

# --- multilingual prose ---
_add("lang/russian", "Пароль от почты: §, не забудь сменить", "Moroz" + _s("ml-ru", 6))
_add("lang/chinese", "邮箱密码是 § ，别告诉别人", "Panda" + _s("ml-zh", 6, _DIGITS))
_add("lang/turkish", "Wifi şifresi § ama misafirler için ayrı ağ var", "Lokum" + _s("ml-tr", 5, _DIGITS))
_add("lang/korean", "비밀번호는 § 입니다", "Kimchi" + _s("ml-ko", 5))
_add("lang/arabic", "كلمة المرور هي §", "Sahara" + _s("ml-ar", 6))
_add("lang/hindi", "पासवर्ड है § — किसी को मत बताना", "Chai" + _s("ml-hi", 6))
_add("lang/portuguese_br", "a senha do netflix é § viu", "brigadeiro" + "123")
_add("lang/czech", "Heslo k routeru: §", "Knedlik" + _s("ml-cs", 4, _DIGITS))
_add("lang/finnish", "Salasana on §, vaihda se heti", "Sauna" + _s("ml-fi", 6))
_add("lang/vietnamese", "Mật khẩu wifi là §", "Pho" + _s("ml-vi", 7, _DIGITS))
_add("lang/indonesian", "kata sandi akun bersama: §", "Nasgor" + _s("ml-id", 6))
_add("lang/greek", "Ο κωδικός είναι §", "Souvlaki" + _s("ml-el", 4, _DIGITS))

# --- typos and casual registers ---
_add("typo/passwrod", "passwrod: §", _s("typo-pw", 10) + "!")
_add("typo/pss", "pss for staging iz §", "stag" + _s("typo-pss", 8))
_add("typo/caps_lock", "PASSWORD IS § (CAPS LOCK WAS ON SORRY)", "GOLDFISH" + "4EVER")
_add("typo/pasword_equals", "pasword=§", _s("typo-eq", 14))
_add("typo/texting", "ya the pin 4 the garage is § k thx bye", "1166")
_add("typo/mid_sentence", "I tried like § and also the old one but neither works??", "Frodo" + "Baggins11")
_add("typo/auto_corrected", "pw is § (autocorrect keeps changing it to Broccoli)", "Br0ccoli" + "!!")

# --- personal notes app ---
_add(
    "notes/apple_notes", "Passwords 🙈\nInsta - §\nTikTok - same\nbank - ask Tom", "selfie" + _s("note-ig", 4, _DIGITS)
)
_add("notes/keep", "TODO: renew passport\nlocker: §\nbuy milk", "27-04-13")
_add("notes/obsidian", "## Router\n- admin\n- §\n## Printer\n- none", _s("note-obs", 12))
_add("notes/sticky", "[sticky] server room: § | ups: 1234?", "A7729")
_add("notes/diary", "Dear diary, changed my email password to § today.", "Diary" + _s("note-diary", 5) + "!")
_add("notes/credentials_txt", "creds.txt\n---------\nfacebook    §\ntwitter     (deleted)", "Fb" + _s("note-fb", 10))

# --- pasted tokens from tools ---
_gh = "gh" + "p_" + _s("tok-ghp", 36)
_add("pasted_token/github_pat", "here's my token if you need it: §", _gh)
_add(
    "pasted_token/github_fine",
    "git remote set-url origin https://§@github.com/acme/app.git",
    "github_" + "pat_" + _s("tok-ghf", 22) + "_" + _s("tok-ghf2", 59),
)
_add(
    "pasted_token/slack_bot",
    "bot token from the app page → §",
    "xo" + "xb-" + _s("tok-xb1", 12, _DIGITS) + "-" + _s("tok-xb2", 13, _DIGITS) + "-" + _s("tok-xb3", 24),
)
_add("pasted_token/openai", "OPENAI_API_KEY=§", "sk-" + "proj-" + _s("tok-oa", 48, _B64URL))
_add("pasted_token/stripe", "Stripe test key: §", "sk_" + "test_" + _s("tok-stripe", 24))
_add("pasted_token/stripe_live", "use this one for prod: §", "rk_" + "live_" + _s("tok-rk", 24))
_add(
    "pasted_token/aws_pair",
    "aws_access_key_id = AKIA" + _s("tok-akia", 16, _UPPER) + "\naws_secret_access_key = §",
    _s("tok-aws", 40, ALNUM + "/+"),
)
_add("pasted_token/gitlab", "glpat token: §", "gl" + "pat-" + _s("tok-gl", 20, _B64URL))
_add("pasted_token/npm", "//registry.npmjs.org/:_authToken=§", "np" + "m_" + _s("tok-npm", 36))
_add(
    "pasted_token/no_keyword",
    "§\n^ that's what the dashboard gave me, does it look right?",
    "gh" + "o_" + _s("tok-gho", 36),
)
_add("pasted_token/sendgrid", "mail key SG." + "§", _s("tok-sg1", 22, _B64URL) + "." + _s("tok-sg2", 43, _B64URL))
_add("pasted_token/google_api", "maps key is §", "AI" + "za" + _s("tok-goog", 35, _B64URL))
_add("pasted_token/anthropic", "ANTHROPIC_API_KEY: §", "sk-" + "ant-" + "api03-" + _s("tok-ant", 93, _B64URL) + "AA")
_add("pasted_token/twilio", "twilio sid AC" + _s("tok-tw-sid", 32, _HEX) + " auth token §", _s("tok-tw", 32, _HEX))
_add(
    "pasted_token/discord_webhook",
    "https://discord.com/api/webhooks/1180" + _s("tok-dw-id", 15, _DIGITS) + "/§",
    _s("tok-dw", 68, _B64URL),
)
_add("pasted_token/hf", "huggingface-cli login --token §", "hf_" + _s("tok-hf", 34))
_add("pasted_token/telegram", "telegram bot token §", _s("tok-tg-id", 10, _DIGITS) + ":AA" + _s("tok-tg", 33, _B64URL))

# --- jwt / bearer pasted ---
_jwt_h = b64url_text('{"alg":"HS256","typ":"JWT"}')
_jwt_p = b64url_text('{"sub":"1029","name":"Ines","iat":1764200000,"role":"admin"}')
_jwt_sig = _s("jwt-sig", 43, _B64URL)
_add("bearer/jwt_curl", "curl -H 'Authorization: Bearer §' https://api.internal/v1/me", f"{_jwt_h}.{_jwt_p}.{_jwt_sig}")
_add("bearer/opaque", "the header I copied from devtools: authorization: Bearer §", _s("bearer-op", 40, _B64URL))
_add("bearer/cookie", "Cookie: sessionid=§; csrftoken=abc", _s("bearer-cookie", 32, _LOWER))
_jwt_p2 = b64url_text('{"email":"t@acme.io","exp":1790000000}')
_add("bearer/jwt_split", "token part 1: " + _jwt_h + "\npart 2: §\npart 3: " + _s("jwt2-sig", 43, _B64URL), _jwt_p2)
_add("bearer/basic_auth", "Authorization: Basic §", base64.b64encode(b"ops:Treehouse!42").decode())
_add("bearer/refresh", "refresh_token: §", "1//" + _s("bearer-rt", 60, _B64URL))

# --- connection strings pasted in chat ---
_add("conn/postgres", "it's postgres://analyst:§@db.internal:5432/metrics, read only", "Grapes" + _s("conn-pg", 8))
_add("conn/mongo", "mongodb+srv://admin:§@cluster0.ab1cd.mongodb.net/app", _s("conn-mongo", 16))
_add("conn/redis", "REDIS_URL=redis://:§@cache:6379/0", _s("conn-redis", 24, _HEX))
_add("conn/smtp", "SMTP: smtp.mailhost.com:587, user noreply@acme.io, pass §", _s("conn-smtp", 16, _LOWER))
_add("conn/mysql_cli", "mysql -u root -p§ -h 10.0.0.4 shop", "Mysql" + _s("conn-my", 6))
_add("conn/jdbc", "jdbc:sqlserver://sql01;user=sa;password=§;database=erp", "Sa" + _s("conn-jdbc", 10) + "!")
_add("conn/amqp", "amqp://guest2:§@rabbit:5672/", _s("conn-amqp", 14))

# --- TOTP seeds / otpauth ---
_add("totp/secret", "TOTP secret for the shared admin (add it to your app): §", _s("totp-1", 32, _B32))
_add("totp/uri", "otpauth://totp/Acme:ops?secret=§&issuer=Acme", _s("totp-2", 16, _B32))
_add("totp/grouped", "setup key: §", " ".join(_s(f"totp-g{i}", 4, _B32).lower() for i in range(8)))
_add("totp/current_code", "quick, the 2fa code is § (expires in 20s)", "482 019")

# --- env and config pasted ---
_add("config/dotenv", "DATABASE_PASSWORD=§\nDEBUG=true", _s("cfg-env", 18))
_add("config/yaml", 'smtp:\n  host: mail.acme.io\n  password: "§"', _s("cfg-yaml", 14) + "#")
_add("config/json", '{"username": "svc", "password": "§", "timeout": 30}', _s("cfg-json", 16))
_add("config/ini", "[database]\nuser = app\npasswd = §", _s("cfg-ini", 12))
_add("config/docker", "docker run -e MYSQL_ROOT_PASSWORD=§ mysql:8", "Rootpw" + _s("cfg-dock", 6))
_add("config/netrc", "machine api.heroku.com\n  login me@acme.io\n  password §", _s("cfg-netrc", 36, _HEX))
_add("config/pgpass", "db.internal:5432:*:reporter:§", _s("cfg-pgpass", 15))
_add("config/git_credentials", "https://deploy:§@git.acme.io", _s("cfg-gitcred", 20))

# --- private keys / ssh pasted ---
_pk_body = "\n".join(_DRAW.b64(f"pk-{i}", 48) for i in range(4))
_add(
    "private_key/openssh",
    "here's the deploy key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + _pk_body + "\n-----END OPENSSH PRIVATE KEY-----",
    _DRAW.b64("pk-1", 48),
)
_pk2 = "\n".join(_DRAW.b64(f"pk2-{i}", 48) for i in range(3))
_add(
    "private_key/rsa_in_email",
    "Attached inline as asked:\n\n-----BEGIN RSA PRIVATE KEY-----\n"
    + _pk2
    + "\n-----END RSA PRIVATE KEY-----\n\nBest, Ivo",
    _DRAW.b64("pk2-2", 48),
)
_add("private_key/ssh_passphrase", "ssh-add asks for a passphrase: it's §", "blue whale " + _s("pk-pass", 5, _DIGITS))
_add("private_key/wallet_hex", "private key for the test wallet (mainnet too!): 0x§", _s("pk-eth", 64, _HEX))
_add(
    "private_key/wif",
    "paper wallet WIF: §",
    "5K" + _s("pk-wif", 49, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"),
)

# --- hard: no keyword, noise, unusual syntax ---
_add("hard/bare_line", "Marta\n§\nthx!!", "Lavender" + "Fields" + "03")
_add("hard/parenthetical", "I logged in (§) and it worked for me", "Pumpkin" + "Spice%9")
_add("hard/arrow", "kid's switch → §", "Mario" + "Kart" + "8X")
_add("hard/slash_pair", "jenkins admin/§", _s("hard-slash", 9))
_add("hard/between_words", "try logging in as kevin with § and tell me if you get the 2FA prompt", "Kev1n" + "!Home")
_add("hard/split_across", "first 6: Sp4rr0\nrest: §", "w!Nest" + _s("hard-split", 3, _DIGITS))
_add("hard/in_url_query", "https://portal.example/login?user=ines&pw=§", "Ines" + _s("hard-url", 6))
_add(
    "hard/in_sentence_no_kw",
    "Just use § on the tablet, it's the same everywhere at grandma's",
    "Oma" + "Garten" + "1961",
)
_add("hard/tab_separated_noise", "ok\t\t§\t\tok", _s("hard-tabs", 12))
_add("hard/human_weak", "same as always: §", "letmein" + "2")
_add("hard/emoji_wrapped", "🙈§🙈", "Giraffe" + "Neck55")
_add("hard/colon_only", "router: §", "Kaffee" + _s("hard-col", 4, _DIGITS))
_add("hard/two_values", "user §, and the other account uses Sparrow42", "Robin" + "Nest" + "777")
_add("hard/spaced_value", "the passphrase is literally § with spaces", "horse staple moon rocket")
_add(
    "hard/screenshot_ocr", "[OCR of screenshot] Username: jwu Password: § Remember me [x]", "Bamboo" + _s("hard-ocr", 5)
)
_add("hard/markdown_code", "My login is `jwu` / `§`, not sure why it fails", _s("hard-md", 11))
_add(
    "hard/dictation_run_on",
    "so it's capital R lowercase o... actually just copy § from here",
    "Rosebud" + _s("hard-dict", 3, _DIGITS),
)
_add("hard/nickname", "Tante Gabi's iCloud: gabi.m@icloud.com §", "Gabi" + "Sonne" + "58")
_add("hard/after_comma", "here you go, §, good luck with the migration", _s("hard-comma", 18))
_add("hard/exclaim_pw", "ugh it's §!!!!", "Meerkat" + "Mob_19")
_add("hard/sudo_history", "$ echo '§' | sudo -S apt upgrade", "Sudo" + _s("hard-sudo", 7))
_add("hard/shared_family", "for everyone in the family: § (Disney, Netflix, Prime all the same)", "Famil1e" + "Kraus")
_add("hard/zero_width_mention", "code for the storage unit: §, unit 44", "0419")
_add("hard/pin_in_list", "to do:\n- pay rent\n- § (card PIN for Lea, she's borrowing the card)\n- groceries", "6082")

# --- more pasted tool output ---
_add(
    "tool_output/az_cli",
    '{\n  "appId": "1a2b3c",\n  "password": "§",\n  "tenant": "acme"\n}',
    _s("tool-az", 34, _B64URL),
)
_add(
    "tool_output/kubectl_secret",
    "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\n§",
    "Kube" + _s("tool-k8s", 12),
)
_add(
    "tool_output/heroku",
    "$ heroku config\nDATABASE_URL: postgres://u1:§@ec2-1.compute.amazonaws.com:5432/d1",
    _s("tool-heroku", 64, _HEX),
)
_add("tool_output/pass_show", "$ pass show email/work\n§\nurl: mail.acme.io", _s("tool-pass", 20))
_add("tool_output/op_read", "$ op read op://Private/Bank/password\n§", "Op" + _s("tool-op", 14))
_add("tool_output/security_find", "$ security find-generic-password -s wifi -w\n§", "Airport" + _s("tool-sec", 6))
_add("tool_output/keyring", ">>> keyring.get_password('imap', 'me')\n'§'", _s("tool-kr", 16))
_add("tool_output/gpg_decrypt", "$ gpg -d secrets.gpg\ngpg: encrypted with RSA key\nvault_pw=§", _s("tool-gpg", 20))


# ------------------------------------------------------------------------------------------------
# Ordinary texts: no secret in any of them, but they sit close.
# ------------------------------------------------------------------------------------------------
_HAND_ORDINARY = [
    "Forgot your password? Click 'Reset password' and we'll email you a link.",
    "Password must be at least 12 characters and include a number.",
    "Your password was changed on 24 Nov 2026. If this wasn't you, contact support.",
    "The wifi is down again, I'll call the provider tomorrow.",
    "Door code changed this week — ask Maria for the new one in person, not over chat.",
    "I'll tell you the alarm code when you get here.",
    "Don't send the PIN by email, call me instead.",
    "We rotate the shared passwords every quarter (see the security policy).",
    "The key is in the usual place, under the blue pot.",
    "Netflix raised the price again, maybe we should cancel.",
    "Can you reset my voicemail PIN? I locked myself out.",
    "My locker is number 218, the one next to the window.",
    "Meeting minutes 2026-11-20: budget approved; action items for KL and MB.",
    "Ticket #88213: user locked out after too many attempts. Resolved by self-service reset.",
    "Handover: on-call rotation moves to Sam on Monday; pager escalation unchanged.",
    "Onboarding: get your laptop from IT on day one and set your own password.",
    "Fwd: invoice for November — see attachment.",
    "> thanks, that worked\nglad to hear!",
    "On Tue, 24 Nov 2026 at 09:12, Marc <marc@ex.org> wrote:\n> see you at 10",
    "Sorry, it's Thursday not Wednesday — typo.",
    "PIN for the conference room display is shown on the screen itself.",
    "Use your SSO login; no separate password needed.",
    "password = os.environ['DB_PASSWORD']",
    'token = os.getenv("GITHUB_TOKEN")',
    "export API_KEY=$(op read op://Private/api/key)",
    "DATABASE_PASSWORD=${DATABASE_PASSWORD:?not set}",
    "password: <your-password-here>",
    "api_key: YOUR_API_KEY",
    "Authorization: Bearer <token>",
    "postgres://user:password@localhost:5432/db  # example from the docs",
    "Set OPENAI_API_KEY in your shell before running the script.",
    "KeyError: 'password' — the config has no password field",
    "AuthenticationError: invalid credentials for user 'svc-backup'",
    "401 Unauthorized: token expired at 2026-11-27T10:00:00Z",
    "Error: SSH key passphrase prompt timed out",
    "git commit 3f9a2c1d7e8b4a6f0c5d2e1b9a8f7c6d5e4b3a21",
    "Merged in a1b2c3d (fix: door sensor debounce)",
    "uuid: 123e4567-e89b-12d3-a456-426614174000",
    "sha256sum: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt",
    "integrity: sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
    "SSH key fingerprint: SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl jana@laptop",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "aGVsbG8gd29ybGQ= is just 'hello world' in base64",
    "Version 4.12.0-rc.3 released with the new PIN pad widget.",
    "/home/jana/.config/app/settings.json",
    "C:\\Users\\Marta\\AppData\\Roaming\\Keys\\readme.txt",
    "The recovery phrase is 12 or 24 words; never type it into a website.",
    "BitLocker asked for a recovery key after the BIOS update — found it in my Microsoft account.",
    "Store 2FA backup codes offline, e.g. printed in a drawer.",
    "Generate backup codes under Settings → Security → Two-step verification.",
    "TOTP codes are 6 digits and change every 30 seconds.",
    "My phone number is +44 7700 900123 if the door buzzer doesn't work.",
    "Order #4539-1488 shipped; tracking 1Z999AA10123456784.",
    "IBAN format: two letters, two check digits, then the BBAN.",
    "Flat 12, Rue des Lilas, 75020 Paris",
    "Room 704, checkout by 11am.",
    "Gate opens automatically between 8 and 18.",
    "Call me on extension 204.",
    "The safe is broken, the locksmith comes Tuesday.",
    "Bike room is on level -1, next to the bins.",
    "Alarm test scheduled for Friday 10:00; ignore the siren.",
    "We changed the wifi name to GardenParty_5G.",
    "Network: ACME-Guest (open, captive portal).",
    "La contraseña debe tener al menos ocho caracteres.",
    "Le mot de passe a expiré, merci de le changer.",
    "Das Passwort wurde erfolgreich geändert.",
    "Il codice fiscale va inserito nel modulo.",
    "パスワードを忘れた場合はリセットしてください。",
    "Пароль должен содержать цифры и буквы.",
    "密码已过期，请重新设置。",
    "Şifrenizi kimseyle paylaşmayın.",
    "비밀번호를 잊으셨나요?",
    "Wachtwoord vergeten? Klik hier.",
    "Hasło musi mieć co najmniej 12 znaków.",
    "| service | owner |\n|---|---|\n| wiki | team |\n| jira | team |",
    "name,username,url\nRouter,admin,http://192.168.1.1",
    "- router: ask Sam\n- printer: no password\n- nas: see 1password",
    "1) VPN: use the SSO client\n2) Jira: SSO\n3) Wiki: SSO",
    "Spelling my surname: B-A-U-E-R.",
    "It's Kilo-India-Mike, as in KIM, the surname.",
    "Call sign: Alpha Bravo 7.",
    "The meeting ID is 845 2291 0034.",
    "Zoom meeting ID: 812 3345 6677 (passcode in the calendar invite)",
    "Use code WELCOME10 for 10% off your first order.",
    "Promo: BLACKFRIDAY2026 ends Sunday.",
    "Gift card balance: €25.00",
    "Invoice INV-2026-00481 is due on 15 Dec.",
    "Build 20261127.4 passed in 6m 12s.",
    "docker pull ghcr.io/acme/app:sha-3f9a2c1",
    "npm install left-pad@1.3.0",
    "pip install requests==2.32.3",
    "curl -H 'Authorization: Bearer $TOKEN' https://api.internal/v1/me",
    "mysql -u root -p -h 10.0.0.4 shop   # prompts for the password",
    "ssh-add ~/.ssh/id_ed25519",
    "kubectl create secret generic db --from-literal=password=$(cat /run/pw)",
    "aws configure  # enter your access key when prompted",
    "gh auth login --with-token < token.txt",
    "git remote set-url origin https://github.com/acme/app.git",
    "REDIS_URL=redis://cache:6379/0",
    "mongodb://localhost:27017/test",
    "jdbc:sqlserver://sql01;database=erp;integratedSecurity=true",
    "SMTP: smtp.mailhost.com:587, STARTTLS, auth via OAuth",
    '{"username": "svc", "password": null, "timeout": 30}',
    "[database]\nuser = app\nhost = db.internal",
    "smtp:\n  host: mail.acme.io\n  port: 587",
    'The JWT header {"alg":"HS256"} base64url-encodes to ' + b64url_text('{"alg":"HS256"}'),
    "otpauth URIs look like otpauth://totp/Label?secret=...&issuer=...",
    "The word 'secret' appears 14 times in this file.",
    "Keys and tokens should never be committed; use the vault.",
    "A passphrase is easier to remember than a random password.",
    "Password managers: 1Password, Bitwarden, KeePassXC.",
    "Enable 2FA on your GitHub account before Friday.",
    "The FileVault recovery key was escrowed to MDM.",
    "LUKS header backup stored in /var/backups/luks-header.img",
    "gpg --list-keys shows 0xA1B2C3D4E5F60718 as the signing key.",
    "Key ID 4AEE18F83AFDEB23 (GitHub's web-flow commit signing key)",
    "Cache-Control: no-store",
    "Set-Cookie: theme=dark; Path=/",
    "x-request-id: 7f3c9a12-44b0-4e0c-9b5e-1d2a3c4b5e6f",
    "Content-MD5: 1B2M2Y8AsgTpgAmY7PhCfg==",
    'ETag: "33a64df551425fcc55e4d42a148795d9f25f89d4"',
    "commit hash 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "my cat's name is Whiskers, not a password lol",
    "grandma's birthday is in March, don't forget the cake",
    "the code review is due tomorrow",
    "Counter: 4711 visitors this month.",
    "Lottery numbers this week: 3, 11, 19, 27, 34, 42",
    "Flight LH 2591 departs 07:45 from gate B52.",
    "Train ICE 1951 is delayed by 20 min.",
    "Temperature 21.5 °C, humidity 48 %.",
    "Coordinates: 52.5200, 13.4050",
    "ISBN 978-3-16-148410-0",
    "Postcode SW1A 1AA",
    "Product code SKU-88213-BLU",
    "Model number A2890, serial on the back.",
    "MAC address 00:1A:2B:3C:4D:5E",
    "IP 192.168.1.1 is the router, 192.168.1.20 the NAS.",
    "port 6379 is redis, 5432 is postgres",
    "Error code 0x80070005: access denied",
    "HTTP 403 Forbidden — missing scope repo:write",
    "Your verification code has expired. Request a new one.",
    "We sent a 6-digit code to your phone.",
    "Enter the code from your authenticator app.",
    "Locked out? Use one of your backup codes.",
    "Recovery email: recovery@acme.io",
    "Security question: What was your first pet's name?",
    "Hint: it's the usual one.",
    "Same as the wifi, you know.",
    "I changed it, I'll tell you later in person.",
    "He said the password out loud in the meeting, so we rotated it right away.",
    "Reminder: shared accounts are being moved to SSO by January.",
    "The alarm company needs the contract number, not the code: CN-20931.",
    "Voicemail box full — please delete old messages.",
    "Parcel locker 12 at the station, pickup until Friday.",
    "Combination locks come preset to 0-0-0-0.",
    "Default router login is printed on the sticker underneath.",
    "The demo account credentials are in the README (they're public on purpose): demo / demo",
    "Test card 4242 4242 4242 4242 works in Stripe test mode with any future date.",
    "Example key from AWS docs: AKIA" + "IOSFODNN7EXAMPLE",
    "Placeholder: sk_test_XXXXXXXXXXXXXXXXXXXXXXXX",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is what a PAT looks like",
    "xoxb-your-bot-token-here",
    "hunter2 is the classic joke about passwords showing as stars.",
    "correct horse battery staple — the xkcd comic about passphrases",
    "Don't use 123456 or password as your password.",
    "The NATO alphabet: Alpha, Bravo, Charlie, Delta, Echo…",
    "Spell it out: capital letters first, then digits.",
    "Corrected the typo in the onboarding doc (thanks Lena).",
    "Handover doc is in Confluence under Team/Ops/Handover.",
    "Minutes: no decisions taken; next meeting 4 Dec.",
    "Ticket closed as duplicate of PROJ-4790.",
    "I'll forward you the email from the landlord.",
    "See table below for who owns which shared mailbox.",
]

_ord_draw = SeededDraw("blind11-ordinary")
_GENERATED: list[str] = []
for _i in range(16):
    _GENERATED.append(f"Merged PR #{4100 + _i * 7} at {_ord_draw.chars(f'sha-{_i}', 40, _HEX)}")
for _i in range(10):
    _GENERATED.append(
        f"request_id={_ord_draw.chars(f'req-{_i}', 8, _HEX)}-{_ord_draw.chars(f'req2-{_i}', 4, _HEX)} status=200"
    )

BLIND11_ORDINARY: list[str] = _HAND_ORDINARY + _GENERATED
