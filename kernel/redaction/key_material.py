"""Key material outside a key file (issue 36): what an HSM, a KMS, a secret store, a password manager or a
wallet hands out or asks for, written where a person pastes it.

- **an HSM's PIN or password on its command line**: ``--so-pin``/``--pin``/``--user-pin`` (softhsm2-util,
  pkcs11-tool, p11tool), ``pin-value=`` in a PKCS#11 URI, ``session open 1 PW`` (yubihsm-shell),
  ``loginHSM CU user PW`` (CloudHSM's cloudhsm_mgmt_util);
- **a raw key in base64**: 16, 32 or 64 bytes (24, 44 or 88 characters with their padding) on a line that
  speaks of a key, a secret, a session or a plaintext (a KMS data key's ``Plaintext``, an exported transit
  key, ``BW_SESSION``, an exchange's API secret); a digest (``sha256-...``, "checksum") and a public key stay;
- **a key after its noun in another language**: hex (32 to 128) or base64 after "密钥", "ключ", "clé", "chave
  privada", "klucz prywatny"... ("加密文件的密钥：f5f7...", "a chave privada da carteira é 17d2..."); a public key
  and a hash stay;
- **a secret store's token**: a Vault token (``s.``/``b.`` and 24 characters) and an AppRole ``secret_id``;
- **a wallet's words**: 12 to 24 words of BIP-0039's list in a row, BIP-0039 words numbered ("1. orchid
  2. tunnel 3. mosquito"), or 6 to 24 words of any script after a seed phrase's noun ("сид-фраза: утро лампа...");
- **a passphrase named bare**: "OKX passphrase okx.Trading.99", and a password a person says they typed
  ("it asked for the db password, I typed kdbx-Master-2021"), a master password, a password told in parts
  ("two parts: first PW") or as another with something added ("with a 2 at the end, so PW2").

Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.bip39_words import BIP39_ENGLISH
from kernel.redaction.password_shape import password_shaped, weak_password_shaped
from kernel.redaction.places import Place

_PLACEHOLDER = re.compile(r"[$<{%]|^(?:x+|\*+|\.+|changeme|redacted|secret|pin|password)$", re.IGNORECASE)


def _keep_placeholder(match: re.Match[str]) -> bool:
    return _PLACEHOLDER.search(match.group(1)) is not None


_DEFAULT_AROUND = re.compile(r"(?i)default|example|e\.g\.|factory|werk|usine")


def _keep_pin(match: re.Match[str]) -> bool:
    """Keep a placeholder, and a PIN on a line that says it is a default or an example."""
    around = match.string[max(0, match.start() - 40) : match.end() + 60].split("\n")
    return _keep_placeholder(match) or any(_DEFAULT_AROUND.search(part) for part in around[:2])


_B64_KEY = r"(?-i:[A-Za-z0-9+/]{22}==|[A-Za-z0-9+/]{43}=|[A-Za-z0-9+/]{86}==|[A-Za-z0-9_-]{43}=)"
_NOT_A_KEY_LINE = re.compile(
    r"(?i)sha\d|md5|digest|hash|integrity|checksum|fingerprint|etag|websocket|public|pubkey|pub_key|peer|"
    r"nonce|\biv\b|salt|公钥|公開鍵|публичн|открыт|哈希|散列|校验|指纹|ハッシュ|хеш|хэш|prüfsumme|empreinte"
)


def _keep_b64(match: re.Match[str]) -> bool:
    value = match.group(1)
    before = match.string[max(0, match.start() - 120) : match.start(1)].rsplit("\n", 1)[-1]
    after = match.string[match.end(1) : match.end(1) + 120].split("\n", 1)[0]
    if _NOT_A_KEY_LINE.search(before + " " + after) or re.search(r"(?i)\bid[ \t:=]*$", before):
        return True  # a digest, a public key, a key's id (on the line, within reach)
    body = value.rstrip("=")
    kinds = sum((any(c.isupper() for c in body), any(c.islower() for c in body), any(c.isdigit() for c in body)))
    return kinds < 3 or len(set(body)) < 12


_KEY_NOUN = (
    r"密钥|秘钥|密鑰|私钥|私鑰|秘密鍵|暗号鍵|鍵|キー|암호[ \t]?키|비밀[ \t]?키|개인[ \t]?키|"
    r"(?:приватн\w{0,3}|секретн\w{0,3}|закрыт\w{0,3})?[ \t]?ключ\w{0,2}|(?:privater[ \t])?schlüssel|"
    r"cl[eé](?:[ \t]priv[eé]e|[ \t]secr[eè]te)?|clave(?:[ \t]privada|[ \t]secreta)?|"
    r"chave(?:[ \t]privada|[ \t]secreta)?|"
    r"chiave(?:[ \t]privata|[ \t]segreta)?|klucz(?:[ \t]prywatny|[ \t]tajny)?|(?:[oö]zel[ \t])?anahtar\w{0,3}|"
    r"(?:private[ \t])?sleutel|(?:privat[ \t])?nyckel|private[ \t]key|priv[ \t]?key"
)
_HEX_OR_B64 = r"(?-i:0x[0-9a-fA-F]{64}|[0-9a-f]{32,128}|[0-9A-F]{32,128}|[A-Za-z0-9+/]{24,128}={0,2})"


def _keep_noun_key(match: re.Match[str]) -> bool:
    value = match.group(1)
    before = match.string[max(0, match.start() - 30) : match.start(1)]
    if _NOT_A_KEY_LINE.search(before):
        return True
    if re.fullmatch(r"(?:0x)?[0-9a-fA-F]+", value):
        return len(value.removeprefix("0x")) % 2 == 1 or len(set(value)) < 8
    return not any(c.isdigit() for c in value) or len(set(value)) < 12


_BIP39_WORD = r"(?-i:[a-z]{3,8})"


# BIP-0039 words that English sentences are made of: a wallet's random words seldom hold two of them.
_SENTENCE_WORDS = frozenset(
    "this that they then what when where you will have use used just can into over such also only very more "
    "some other about again before after because all any each few same since until upon".split()
)


def _keep_not_bip39(match: re.Match[str]) -> bool:
    """Keep words that are not all BIP-0039's, a sentence made of them, or a list in order (the list itself)."""
    words = re.findall(r"[a-z]{3,8}", match.group(1))
    if sum(word in _SENTENCE_WORDS for word in words) >= 2 or words == sorted(words):
        return True
    return not all(word in BIP39_ENGLISH for word in words)


# Words of a numbered list of steps or items that are BIP-0039 words too: such a list is no wallet's words.
_STEP_WORDS = frozenset(
    "build test check review merge release fix start stop open close save update deploy install run setup "
    "design plan draft code debug publish launch ship order pay cancel login logout sign submit approve wait "
    "read write edit copy paste print share upload download search filter sort select delete remove add".split()
)


_WALLET_WORDS = re.compile(
    r"(?i)seed|wallet|mnemonic|phrase|recovery|metamask|ledger|trezor|кошел|钱包|錢包|ウォレット|지갑|carteira|cartera|"
    r"portefeuille|brieftasche|portafoglio|portfel"
)


def _keep_numbered(match: re.Match[str]) -> bool:
    """Keep numbered words unless all but one are BIP-0039's and none is a step of a procedure; fewer than 12
    need a text that speaks of a wallet (BIP-0039's words are common nouns: "1. apple 2. banana 3. cherry")."""
    words = re.findall(r"[a-z]{3,8}", match.group(1))
    if len(words) < 12 and not _WALLET_WORDS.search(match.string):
        return True
    outside = sum(word not in BIP39_ENGLISH for word in words)
    return outside > 1 or outside * 4 > len(words) or any(word in _STEP_WORDS for word in words)


_SEED_NOUN = (
    r"seed(?:[ \t-]?(?:phrase|words))?|mnemonic|recovery[ \t]phrase|secret[ \t]recovery[ \t]phrase|сид-?фраз\w{0,2}|"
    r"мнемони\w{0,6}|фраз\w{0,2}[ \t]восстановления|助记词|助記詞|シードフレーズ|復元フレーズ|니모닉|시드[ \t]?구문|"
    r"frase[ \t](?:semilla|semente|seed|mnemónica|mnemonica)|seed-?phrase"
)
_ANY_WORD = r"[^\W\d_]{2,12}"


def _keep_seed_sentence(match: re.Match[str]) -> bool:
    words = match.group(1).lower().split()
    common = {"the", "and", "you", "your", "with", "this", "from", "that", "для", "это", "что", "как", "или"}
    return sum(word in common for word in words) >= 1 or len(set(words)) < len(words) - 1


def _keep_master(match: re.Match[str]) -> bool:
    return not weak_password_shaped(match.group(1)) or _keep_placeholder(match)


def _keep_not_ending_with_it(match: re.Match[str]) -> bool:
    """A password told as another with something added ("same as before but with a 2 at the end, so X"): keep
    a value that does not end with what was added, or that is a bare word or number."""
    added, value = match.group(1), match.group(2)
    if not value.endswith(added):
        value = value.rstrip(".,;:!?")
    return not value.endswith(added) or value == added or not any(c.isalpha() for c in value)


def _keep_typed(match: re.Match[str]) -> bool:
    return not password_shaped(match.group(1)) or _keep_placeholder(match)


KEY_MATERIAL: list[Place] = [
    Place(
        "hsm-pin",
        r"(?i)(?<![\w-])--(?:so-|user-|new-|old-|new-so-)?pin(?:=|[ \t]+)[\"']?(?!-)([^\s\"']{4,64})",
        1,
        _keep_pin,
        line_words=("pin",),
    ),
    Place("hsm-pin", r"(?i)\bpin-value=([^\s;&?\"']{4,64})", 1, _keep_placeholder, line_words=("pin-value",)),
    Place(
        "hsm-password",
        r"(?i)\bsession[ \t]+open[ \t]+\d{1,5}[ \t]+[\"']?([^\s\"']{4,128})",
        1,
        _keep_placeholder,
        line_words=("session",),
    ),
    Place(
        "hsm-password",
        r"(?i)\b(?:loginHSM|changePswd|createUser)[ \t]+(?:CU|CO|AU|PCO|PRECO)[ \t]+\S{1,64}[ \t]+"
        r"[\"']?([^\s\"']{4,128})",
        1,
        _keep_placeholder,
        line_words=("loginhsm", "changepswd", "createuser"),
    ),
    Place(
        "raw-key",
        rf"(?<![A-Za-z0-9+/=_-])({_B64_KEY})(?![A-Za-z0-9+/=_-])",
        1,
        _keep_b64,
        line_words=("key", "secret", "session", "plaintext", "transit", "kms", "密钥", "ключ", "passphrase"),
    ),
    Place(
        "raw-key",
        rf"(?i)(?:{_KEY_NOUN})[^\n:：=\d]{{0,30}}?(?:[:：=]|\bé\b|\bes\b|\best\b|\bist\b|\bis\b|是|为|は|[ \t])[ \t]*"
        rf"[\"'«「]?({_HEX_OR_B64})(?![A-Za-z0-9+/=])",
        1,
        _keep_noun_key,
        line_words=(
            "密钥",
            "秘钥",
            "密鑰",
            "私钥",
            "私鑰",
            "鍵",
            "キー",
            "키",
            "ключ",
            "schlüssel",
            "cl",
            "chave",
            "chiave",
            "klucz",
            "anahtar",
            "sleutel",
            "nyckel",
            "private",
            "priv",
        ),
    ),
    Place(
        "vault-token",
        r"(?<![\w.])((?-i:[sb]\.[A-Za-z0-9]{24}))(?![\w.])",
        1,
        lambda m: not (re.search(r"[A-Z]", m.group(1)[2:]) and re.search(r"[a-z]", m.group(1)[2:])),
        line_words=("vault", "token", "токен", "令牌", "トークン", "토큰", "jeton", "login"),
    ),
    Place(
        "vault-secret-id",
        r"(?i)\bsecret[_-]id[ \t]*[=:][ \t]*[\"']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
        1,
        None,
        line_words=("secret_id", "secret-id"),
    ),
    Place(
        "seed-phrase",
        rf"(?<![\w-])({_BIP39_WORD}(?:[ \t]+{_BIP39_WORD}){{11,23}})(?![\w-])",
        1,
        _keep_not_bip39,
        gate=re.compile(r"(?:[a-z]{3,8}[ \t]){11}[a-z]{3,8}"),
    ),
    Place(
        "seed-phrase",
        rf"(?<![\w.])(1[.)][ \t]*{_BIP39_WORD}(?:[ \t,]+\d{{1,2}}[.)][ \t]*{_BIP39_WORD}){{3,23}})(?![\w-])",
        1,
        _keep_numbered,
        gate=re.compile(r"1[.)][ \t]*[a-z]{3,8}[ \t,]+2[.)]"),
    ),
    Place(
        "seed-phrase",
        rf"(?i)(?<![\w-])(?:{_SEED_NOUN})[^\n:：=]{{0,40}}?[:：=][ \t]*"
        rf"({_ANY_WORD}(?:[ \t]+{_ANY_WORD}){{5,23}})[ \t]*$",
        1,
        _keep_seed_sentence,
        line_words=(
            "seed",
            "mnemoni",
            "phrase",
            "фраз",
            "мнемони",
            "助记词",
            "助記詞",
            "フレーズ",
            "니모닉",
            "시드",
            "frase",
        ),
    ),
    Place(
        "master-password",
        r"(?i)(?:master[ \t-]?pass(?:word|phrase)|master-?passwort|mot[ \t]de[ \t]passe[ \t]ma[îi]tre|"
        r"contrase[ñn]a[ \t]maestra|senha[ \t]mestra|password[ \t]principale|hasło[ \t]główne|мастер-?парол\w{0,2}|"
        r"マスターパスワード|主密码|主密碼|마스터[ \t]?비밀번호)"
        r"(?:[ \t]*[:：=][ \t]*|[ \t]+(?:is|ist|est|es|é|è|是|は)[ \t]+|は)"
        r"[\"'`「]?([^\s\"'`」，。、]{6,128})",
        1,
        _keep_master,
        line_words=(
            "master",
            "maître",
            "maitre",
            "maestra",
            "mestra",
            "principale",
            "główne",
            "мастер",
            "マスター",
            "主密",
            "마스터",
        ),
    ),
    Place(
        "password-in-parts",
        r"(?i)\b(?:pw|pwd|password|passphrase|passwort)\b[^\n]{0,60}?\b(?:parts?|halves|half|pieces?)\b[^\n]{0,30}?"
        r"\b(?:first|1st|part[ \t]one)[ \t]*[:=-]?[ \t]+[\"'`]?([^\s\"'`]{4,64})",
        1,
        _keep_typed,
        line_words=("part", "half", "halves", "piece"),
    ),
    Place(
        "password-variation",
        r"(?i)\b(?:with|plus|add(?:ed)?|and)[ \t]+(?:an?|the)[ \t]+[\"'`]?([^\s\"'`]{1,4})[\"'`]?[ \t]+"
        r"(?:at|on)[ \t]+the[ \t]+end\b[^\n]{0,24}?(?:\bso|\bi\.e\.|\bthat's|:|=|→|->)[ \t]+[\"'`]?"
        r"([^\s\"'`]{4,64})",
        2,
        _keep_not_ending_with_it,
        line_words=("end",),
    ),
    Place(
        "passphrase",
        r"(?i)\bpassphrase[ \t]+[\"']?([^\s\"']{6,128})(?=[\"']?(?:[ \t]|$))",
        1,
        _keep_typed,
        line_words=("passphrase",),
    ),
    Place(
        "typed-password",
        r"(?i)\b(?:password|passphrase|passwort|pin)\b[^\n]{0,60}?\b(?:i|we)[ \t]+"
        r"(?:typed|entered|put[ \t]in|pasted|used)"
        r"[ \t]+[\"'`]?([^\s\"'`]{6,128})",
        1,
        _keep_typed,
        line_words=("typed", "entered", "put in", "pasted", "used"),
    ),
]
