"""Licence keys and serials (issue 36): what activates a paid program, told after its noun or handed to the tool
that installs it.

- **a product key in groups**: letters and digits in 3 to 8 groups of 4 or 5 joined by dashes, after a noun for a
  licence, a serial or a product key in some languages ("licence key: MTHT-7UGP-LBR8-GH77", "klucz licencyjny do
  IDE: CNGNZ-2EX46-R91F1", "Lizenzschlüssel ..."), or handed to an activation command (``slmgr /ipk``,
  ``--serial``, ``--license-key``);
- **a serial in one run**: 16 to 40 capitals and digits after "serial", "licence key" or "product key";
- **a licence block**: the body between ``BEGIN LICENSE`` and ``END LICENSE`` (Sublime Text's and the like);
- **a licence's credentials in the environment**: ``SIDEKIQ_PRO_CREDS=...``, ``FOO_LICENSE_KEY=...``.

A key must hold letters and digits; a version, a date, a UUID or a hash (hex only) stays. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.places import Place

_NOUN = (
    r"licen[cs]e(?:[ \t_-]?(?:key|code|number|no\.?))?|serial(?:[ \t_-]?(?:key|number|no\.?|code))?|"
    r"product[ \t_-]?key|activation[ \t_-]?(?:key|code)|registration[ \t_-]?(?:key|code)|cd[ \t_-]?key|"
    r"lizenz(?:schlüssel|schluessel|key|code|nummer)?|seriennummer|produktschlüssel|aktivierungs(?:schlüssel|code)|"
    r"cl[eé][ \t]de[ \t](?:licence|produit|activation)|num[eé]ro[ \t]de[ \t]s[eé]rie|"
    r"clave[ \t]de[ \t](?:licencia|producto|activaci[oó]n)|chave[ \t]de[ \t](?:licen[cç]a|produto|ativa[cç][aã]o)|"
    r"chiave[ \t]di[ \t](?:licenza|prodotto|attivazione)|numero[ \t]di[ \t]serie|"
    r"klucz(?:[ \t](?:licencyjny|produktu|aktywacyjny))|licentiesleutel|productsleutel|licensnyckel|licensnøgle|"
    r"lisenssiavain|licen[čc]ní[ \t]klíč|лицензионн\w{0,3}[ \t]ключ\w{0,2}|ключ\w{0,2}[ \t]лицензии|"
    r"серийн\w{0,3}[ \t]номер|ключ[ \t]продукта|lisans[ \t]anahtar\w{0,3}|许可证密钥|序列号|激活码|注册码|"
    r"ライセンスキー|シリアル(?:番号|キー)?|プロダクトキー|라이선스[ \t]?키|시리얼[ \t]?번호|제품[ \t]?키"
)
_GROUPED = r"(?-i:[A-Z0-9]{4,5}(?:-[A-Z0-9]{4,5}){2,7})"
_RUN = r"(?-i:[A-Z0-9]{16,40})"
_END = r"(?![\w-])"


def _not_a_key(match: re.Match[str]) -> bool:
    """Keep a value without both letters and digits, or hex alone (a hash, a UUID's pieces), or a placeholder."""
    value = next(v for v in match.groups() if v is not None).replace("-", "")
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    if letters < 2 or digits < 2 or len(set(value)) < 6:
        return True
    return all(c in "0123456789ABCDEF" for c in value) and len(value) >= 16


def _not_a_licence_credential(match: re.Match[str]) -> bool:
    value = match.group(1)
    return value.startswith("$") or not any(c.isdigit() for c in value) or len(set(value)) < 5


LICENCES: list[Place] = [
    Place(
        "licence-key",
        rf"(?i)(?<![\w-])(?:{_NOUN})\b[^\n:：=]{{0,40}}?(?:[:：=]|\bis\b|\bist\b|\best\b|\bé\b|\bto\b|\s)[ \t]*"
        rf"[\"'`«]?({_GROUPED}|{_RUN}){_END}",
        1,
        _not_a_key,
        line_words=(
            "licen",
            "serial",
            "product",
            "activation",
            "registration",
            "key",
            "lizenz",
            "serien",
            "produkt",
            "aktivierung",
            "clé",
            "série",
            "clave",
            "chave",
            "chiave",
            "serie",
            "klucz",
            "sleutel",
            "nyckel",
            "nøgle",
            "avain",
            "klíč",
            "ключ",
            "номер",
            "lisans",
            "密钥",
            "序列号",
            "激活码",
            "注册码",
            "ライセンス",
            "シリアル",
            "プロダクト",
            "라이선스",
            "시리얼",
            "제품",
        ),
    ),
    Place(
        "licence-key",
        rf"(?i)(?:\bslmgr(?:\.vbs)?[ \t]+[/-]ipk|--?(?:serial|license-?key|licence-?key|product-?key|"
        rf"activation-?key)(?:=|[ \t]+))[ \t]*[\"']?({_GROUPED}|{_RUN}){_END}",
        1,
        _not_a_key,
        line_words=("ipk", "serial", "license", "licence", "product", "activation"),
    ),
    Place(
        "licence-key",
        r"-{2,8}[ \t]?BEGIN[ \t]LICEN[CS]E[ \t]?-{2,8}[ \t]*\n((?:[^\n]{0,200}\n){1,40}?)"
        r"-{2,8}[ \t]?END[ \t]LICEN[CS]E",
        1,
        None,
        gate=re.compile(r"BEGIN[ \t]LICEN[CS]E"),
    ),
    Place(
        "licence-key",
        r"(?<![\w])(?:export[ \t]+)?[A-Z][A-Z0-9_]{0,40}_(?:CREDS|LICEN[CS]E(?:_KEY)?|SERIAL)[ \t]*=[ \t]*[\"']?"
        r"([A-Za-z0-9_.:+/-]{8,128})(?![\w])",
        1,
        _not_a_licence_credential,
        gate=re.compile(r"_(?:CREDS|LICEN[CS]E|SERIAL)"),
    ),
]
