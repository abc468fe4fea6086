"""One-time codes told in a sentence (issue 36): the code a bank, a shop or a sign-in page sends by text
message or e-mail, or an authenticator shows, in many languages ("me llegó el código 731046 por SMS",
"Bestätigungscode: 590218", "le code à usage unique est 8 3 1 9 2 7", "ワンタイムパスワードは 204761 です",
"doğrulama kodu 917352", "Sign in to Notion — code ZQ-73-KX", "验证码 528114", "提现的资金密码是 882301").

A noun that names a one-time, verification or sign-in code says so alone; a bare "code" counts on a line that
says how it came (SMS, text, e-mail) or what it signs in to. The code is 4 to 8 digits, digits in groups
("831 927", "8 3 1 9 2 7") or a short mix of capitals and digits in dashed groups. A count ("6 digits"), a
duration ("valid for 10 minutes"), a year and an error or HTTP status code stay. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.places import Place

_ONE_TIME_NOUN = (
    r"one[ \t-]?time[ \t-]?(?:code|pass(?:code|word)|pin)|otp(?:[ \t-]?code)?|verification[ \t-]code|"
    r"(?:sign[ \t-]?in|log[ \t-]?in|login|security|sms|2fa|mfa|two[ \t-]factor|auth(?:entication)?|"
    r"confirmation[ \t]sms|magic)[ \t-]code|"
    r"(?:best[äa]tigungs|verifizierungs|sicherheits|einmal|anmelde|sms-?|tan-?)code|einmalpasswort|"
    r"code[ \t](?:de[ \t](?:v[ée]rification|confirmation|connexion|s[ée]curit[ée])|à[ \t]usage[ \t]unique|sms)|"
    r"c[oó]digo[ \t](?:de[ \t](?:verifica[cç][aã]o|verificaci[oó]n|confirma[cç][aã]o|confirmaci[oó]n|acceso|"
    r"acesso|seguran[cç]a|seguridad)|sms|otp)|codice[ \t](?:di[ \t](?:verifica|conferma|accesso|sicurezza)|otp|sms)|"
    r"kod[ \t](?:weryfikacyjny|jednorazowy|sms|potwierdzaj[aą]cy)|do[gğ]rulama[ \t]kodu|onay[ \t]kodu|"
    r"tek[ \t]kullan[ıi]ml[ıi]k[ \t](?:kod|şifre)|verificatiecode|bevestigingscode|verifieringskod|engångskod|"
    r"bekræftelseskode|vahvistuskoodi|код[ \t](?:подтверждения|из[ \t]смс|из[ \t]sms|верификации)|"
    r"проверочн\w{0,3}[ \t]код|одноразов\w{0,3}[ \t](?:код|пароль)|смс-?код|"
    r"验证码|驗證碼|校验码|动态码|动态密码|短信码|资金密码|交易密码|支付密码|取款密码|"
    r"ワンタイムパスワード|ワンタイムコード|認証コード|確認コード|認証番号|確認番号|セキュリティコード|"
    r"인증[ \t]?번호|인증[ \t]?코드|확인[ \t]?코드|일회용[ \t]?비밀번호"
)
_WEAK_NOUN = r"code|c[oó]digo|codice|kod|kodu|kode|koodi|код|코드|コード|码"
# How a bare code came, or what it signs in to.
_HOW = re.compile(
    r"(?i)\bsms\b|\btexto?\b|text(?:ed)?[ \t]message|e-?mail|\bmail\b|sign[ \t-]?in|log[ \t-]?in|\bverif|2fa|mfa|"
    r"authenticator|whatsapp|telegram|短信|メール|문자|смс|correo|courriel|mensaje|mensagem|messaggio|nachricht|"
    r"wiadomo|mesaj|\bpor\b[ \t]sms"
)
_VALUE = (
    r"(?-i:\d{4,8}|\d{3}[ -]\d{3}|\d{2}[ ]\d{2}[ ]\d{2}|\d(?:[ ]\d){3,7}|(?=[A-Z0-9-]{0,11}\d)(?=[A-Z0-9-]{0,11}[A-Z])"
    r"[A-Z0-9]{2,4}(?:-[A-Z0-9]{2,4}){1,3}|(?=[A-Z]{0,7}\d)(?=\d{0,7}[A-Z])[A-Z0-9]{6,8})"
)
# Between the noun and its code: a verb, a colon, a few words ("del banco es", "は", "是"), no digit.
_GAP = r"[^\n\d:：=]{0,30}?(?:[:：=—–-][ \t]*|[ \t]+|(?<=[\u3000-\u9fff])[ \t]*)"
_END = r"(?![\w@/%°€$£.,:-]\w|[\w@/%°€$£])"
_AFTER = re.compile(
    r"(?i)[ \t]*(?:digits?|chars?|characters?|letters?|stellig|ziffern|chiffres|cifre|d[ií]gitos|cyfr|hane|"
    r"桁|位|자리|min(?:ute)?s?|sec(?:ond)?s?|seconds|hours?|days?|times|tries|attempts|ms)\b"
)
_GAP_WORDS = re.compile(
    r"(?i)\b(?:length|digits?|expires?|valid|within|after|every|for|than|line|port|error|status|http|issue|"
    r"version|step|in)\b|桁|位|长度|長さ|길이"
)


# Codes in a list ("backup verification codes: 8394 2016, 5127 9930"): the recovery codes' rule takes them.
_A_LIST = re.compile(r"(?i)codes\b|backup|recovery|scratch|c[oó]digos|codici|kody|koder|коды")


def _keep(match: re.Match[str]) -> bool:
    value = match.group(1)
    text = match.string
    if _A_LIST.search(text, max(0, match.start() - 20), match.start(1)):
        return True
    if _AFTER.match(text, match.end(1)) or _GAP_WORDS.search(text, match.end(0) - len(match.group(0)), match.start(1)):
        return True
    if value.isdigit() and len(value) == 4 and value[:2] in ("19", "20"):
        return True  # a year
    digits = [c for c in value if c.isdigit()]
    return len(set(digits)) == 1 and len(digits) >= 4  # 000000: a placeholder


# Words right before a bare "code" that make it a status, an error or a program's code.
_ANOTHER_CODE_BEFORE = re.compile(
    r"(?i)(?:error|status|exit|http|smtp|return(?:s|ed)?|repl(?:y|ies|ied)|respon(?:se|ds|ded)|with|gives?|gave|"
    r"shows?|showed|throws?|fail(?:s|ed)?|zip|postal|promo|source|sample|example|template|country|area)[ \t:-]*$"
)


def _line_near(match: re.Match[str], reach: int = 160) -> str:
    """The match's line, within ``reach`` characters of it (a long line of many codes stays linear)."""
    text = match.string
    start = max(text.rfind("\n", max(0, match.start() - reach), match.start()) + 1, match.start() - reach)
    end = text.find("\n", match.end(), match.end() + reach)
    return text[start : end if end >= 0 else match.end() + reach]


def _keep_weak(match: re.Match[str]) -> bool:
    line = _line_near(match)
    before = match.string[max(0, match.start() - 20) : match.start()].rsplit("\n", 1)[-1]
    if _ANOTHER_CODE_BEFORE.search(before):
        return True
    return _HOW.search(line) is None or _keep(match)


ONE_TIME_CODES: list[Place] = [
    Place(
        "one-time-code",
        rf"(?i)(?<![A-Za-z0-9_-])(?:{_ONE_TIME_NOUN}){_GAP}[\"'«「\[(]?({_VALUE}){_END}",
        1,
        _keep,
        line_words=(
            "one",
            "otp",
            "code",
            "verif",
            "best",
            "sicherheits",
            "einmal",
            "anmelde",
            "código",
            "codigo",
            "codice",
            "kod",
            "onay",
            "şifre",
            "engångskod",
            "koodi",
            "код",
            "пароль",
            "验证码",
            "驗證碼",
            "校验码",
            "动态",
            "短信",
            "密码",
            "ワンタイム",
            "コード",
            "番号",
            "인증",
            "확인",
            "일회용",
        ),
    ),
    Place(
        "one-time-code",
        rf"(?i)(?<![\w-])(?:{_WEAK_NOUN}){_GAP}[\"'«「\[(]?({_VALUE}){_END}",
        1,
        _keep_weak,
        line_words=(
            "sms",
            "text",
            "mail",
            "sign",
            "log",
            "verif",
            "2fa",
            "mfa",
            "authenticator",
            "短信",
            "メール",
            "문자",
            "смс",
            "correo",
            "courriel",
            "mensaje",
            "mensagem",
            "messaggio",
            "nachricht",
            "wiadomo",
            "mesaj",
            "whatsapp",
            "telegram",
        ),
    ),
]
