"""A password told in another language than English (issue 36), beside ``kernel.redaction.prose``: the nouns
for a password in some forty languages, inflected ("lösenordet", "şifresi", "пароля"), then a verb, a colon or a
particle ("das Passwort lautet PW", "la contraseña es PW", "пароль: PW", "parola este PW", "كلمة المرور هي PW",
"הסיסמה היא PW"), or no verb at all ("账号 admin 密码 PW", "मेरा पासवर्ड PW है", "пароль от роутера PW").
Chinese, Japanese, Korean and Thai join their words without a space: a noun there may follow any word
("本番DBのパスワードは PW です", "数据库密码是 PW，"), its value ends at the next character of those scripts, and
a sentence that states a rule stays ("パスワードは12文字以上で設定してください。", "密码长度为 8-16 位").
Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.password_shape import (
    SHAPED_AHEAD,
    WORD_VALUE,
    named_with_a_number,
    password_shaped,
    weak_password_shaped,
)
from kernel.redaction.places import Place

# Nouns in scripts that join words without a space, or that join an article to them: no boundary before them
# ("本番DBのパスワード", "数据库密码", "הסיסמה").
_CJK_NOUNS = r"パスワード|パスコード|暗証番号|密码|密碼|口令|비밀번호|비번|암호|รหัสผ่าน|סיסמ[הא]"
FOREIGN_NOUNS = (
    r"passwort|kennwort|mot[ \t]de[ \t]passe|contrase[ñn]a|clave|senha|wachtwoord|hasło|haslo|heslo|salasana|"
    r"lösenord|losenord|passord|adgangskode|kodeord|şifre|parol[aeă]|lozinka|geslo|jelsz[óo]|contrasenya|wagwoord|"
    r"пароль|κωδικός|συνθηματικό|كلمة[ \t]المرور|رمز[ \t]عبور|کلمه[ \t]عبور|पासवर्ड|mật[ \t]khẩu|kata[ \t]sandi|"
    r"kata[ \t]laluan|парола|лозинка|zaporka|slaptažod|parool|lykilorð|fjalëkalim|pasahitz|contrasinal|cyfrinair|"
    r"nenosiri|পাসওয়ার্ড|கடவுச்சொல்|پاس[ \t]?ورڈ|գաղտնաբառ|პაროლ|şifrə|құпиясөз|нууц[ \t]үг|" + _CJK_NOUNS
)
# A noun may carry an inflection ("lösenordet", "şifresi", "пароля", "Passworts").
_INFLECTION = r"\w{0,4}"
# a verb (a whole word), a colon or a dash; Chinese, Japanese and Korean join the value without a space, after
# a particle or a verb ("パスワードは", "パスワードを X に", "密码是", "密码改成", "密码设置为", "비밀번호를")
_FOREIGN_VERB_WORDS = (
    r"ist|lautet|c['’]est|est|este|es|é|e|è|is|to|je|jest|on|är|er|là|adalah|ialah|είναι|है|هي|هو|است|היא|הוא|"
    r"yra|ir|është|ni|"
    r"е|є|yw|dir|ആണ്|आहे"
)
_CJK_VERBS = r"は|が|を|も|是|为|為|就是|改成|改为|改為|设为|設為|设置为|設置為|는|은|를|을|가|이|คือ"
_FOREIGN_VERBS = rf"(?:(?<=[ \t])(?:{_FOREIGN_VERB_WORDS})[ \t]+|[:：=—][ \t]*|(?:{_CJK_VERBS})[ \t]*)"
# Between a CJK noun and its value, or right after the value: words that make it a rule about the password
# ("パスワードポリシー", "密码长度为", "12文字以上", "8位", "10자 이상"), not the password.
_CJK_ABOUT = re.compile(
    r"ポリシー|要件|長さ|ルール|形式|ヒント|規則|规则|策略|长度|長度|要求|格式|示例|例|提示|强度|強度|정책|길이|규칙|형식|예시"
)
_CJK_AFTER_A_LENGTH = re.compile(r"[ \t]*(?:文字|字符|字元|个字|個字|位|桁|자|글자|以上|以下|など|等)")

# The foreign nouns' lines: the rules that read them run only there.
FOREIGN_WORDS = (
    "passwort",
    "kennwort",
    "de passe",
    "de_passe",
    "contrase",
    "clave",
    "senha",
    "wachtwoord",
    "hasło",
    "haslo",
    "heslo",
    "salasana",
    "senord",
    "passord",
    "adgangskode",
    "kodeord",
    "lozinka",
    "geslo",
    "jelsz",
    "contrasenya",
    "wagwoord",
    "κωδικός",
    "סיסמה",
    "المرور",
    "पासवर्ड",
    "mật khẩu",
    "kata sandi",
    "ifre",
    "parol",
    "пароль",
    "パスワード",
    "パスコード",
    "暗証番号",
    "密码",
    "密碼",
    "口令",
    "비밀번호",
    "비번",
    "암호",
    "รหัสผ่าน",
    "סיסמ",
    "συνθηματικό",
    "عبور",
    "kata laluan",
    "парола",
    "лозинка",
    "zaporka",
    "slaptažod",
    "parool",
    "lykilorð",
    "fjalëkalim",
    "pasahitz",
    "contrasinal",
    "cyfrinair",
    "nenosiri",
    "পাসওয়ার্ড",
    "கடவுச்சொல்",
    "ورڈ",
    "գաղտնաբառ",
    "პაროლ",
    "şifrə",
    "құпиясөз",
    "нууц үг",
)


def joins_words(char: str) -> bool:
    """A character of a script that joins its words without a space (or that joins an article to a noun, as
    Hebrew does): a noun right after it starts a word of its own ("数据库密码", "הסיסמה")."""
    return "\u3000" <= char <= "\ud7af" or "\u0e00" <= char <= "\u0e7f" or "\u05d0" <= char <= "\u05ea"


def _keep_foreign(match: re.Match[str]) -> bool:
    """Keep a CJK rule about the password ("パスワードポリシーは", "密码长度为 8-16 位"); the value may be a word then
    a number ("das Passwort ist winter2024"), the noun and its verb say a password follows."""
    before = match.string[match.start() : match.start(1)]
    if _CJK_ABOUT.search(before) or _CJK_AFTER_A_LENGTH.match(match.string, match.end(1)):
        return True
    return not weak_password_shaped(match.group(1))


def _keep_cjk_bare(match: re.Match[str]) -> bool:
    """A noun and its value with no verb between ("账号 admin 密码 PW", "пароль от роутера PW"): a password's
    shape, no rule, no thing named with a number ("Kennwort für Windows10")."""
    value = match.group(1)
    return _keep_foreign(match) or not password_shaped(value) or named_with_a_number(value)


LANGUAGES: list[Place] = [
    # other languages: "das Passwort ist X", "la contraseña es X", "пароль: X"
    Place(
        "prose-password",
        rf"(?i)(?:(?<![\w-])(?:{FOREIGN_NOUNS})|{_CJK_NOUNS}){_INFLECTION}(?:[ \t]+\w{{1,12}}){{0,5}}?"
        rf"(?:[ \t]*{_FOREIGN_VERBS})" + WORD_VALUE,
        1,
        _keep_foreign,
        line_words=FOREIGN_WORDS,
    ),
    # "用户名 admin 密码 PW", "비밀번호 PW", "पासवर्ड PW है", "пароль от роутера PW": a noun in another language,
    # a word or two maybe, the value
    Place(
        "prose-password",
        rf"(?i)(?:(?<![\w-])(?:{FOREIGN_NOUNS}){_INFLECTION}(?:[ \t]+\w{{1,12}}){{0,2}}?[ \t]+|(?:{_CJK_NOUNS})[ \t]*)"
        + SHAPED_AHEAD
        + WORD_VALUE,
        1,
        _keep_cjk_bare,
        line_words=FOREIGN_WORDS,
    ),
]
