"""Values that refer to a secret instead of being one (issue 36): ``None``, ``self.password``, ``$DB_PASSWORD``,
``getpass()``, ``***``, ``<your-key>``, ``sk-...abcd``, ``changeme``, ``BASE32SECRET``, "24 bytes"; names about
a secret rather than holding one (``password_min_length``, ``auth.existingSecret``, ``PublicKey``); and whether
a value looks random enough to be a token (``looks_random``). Every rule module asks these before it redacts.
Plain module.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kernel.redaction.entropy import high_entropy, unquote

# Values that are code or placeholders, not secrets.
CODE_WORDS = frozenset(
    "none null nil true false str string int integer bool boolean bytes optional undefined any object secretstr "
    "required empty unset redacted hidden masked omitted placeholder env environ getenv default dict list "
    "os.environ os.getenv process.env self this yes no new".split()
)
# A call or an index (getpass(), os.environ[, config.get("x"), String::from(), or a dotted name on a known object.
_CODE_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*[(\[][\w\"'.,\[ =:(]*[)\]]?")
_CODE_ATTRIBUTE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_CODE_OBJECTS = frozenset(
    "self cls this settings config cfg conf args opts options env os process secrets credentials creds params "
    "request req ctx context app vault keyring props values".split()
)
# Names about a secret rather than holding one: password_min_length, secret_name, api_key_id, password_hash.
_ABOUT_A_SECRET = re.compile(
    r"(?i)(?:min|max|len|length|count|size|timeout|ttl|expir|age|rounds|attempts|retries|policy|hash|file|path|dir|"
    r"url|uri|arn|ref|reference|field|column|prompt|hint|label|reset|name|id|header|env|var|type|kind|format|version|"
    r"prefix|mode|enabled|required|changed|updated|created|rotat|used|history|store|vault|manager|backend|provider|"
    r"algorithm|algo|cipher|scheme|method|strategy|interval|period|schedule|location|owner|description|pattern|regex|"
    # a directory's password policy and bookkeeping (LDAP, AD): pwdLastSet, pwdFailureTime, pwdMustChange
    r"last[_-]?set|time|duration|failure|success|lockout|quality|warning|subentry|must[_-]?change|properties|"
    # where a service is reached: AUTH0_DOMAIN, VAULT_HOST, KEYCLOAK_ENDPOINT
    r"domain|host|hostname|endpoint)"
    r"(?:y|es|ed|ion|ation|s)?(?:[_.-]?(?:in|at|on|seconds?|secs?|ms|days?|hours?|minutes?|mins?))?(?:\\{0,7}[\"'])?$"
)


# A name that points at a secret kept elsewhere: existingSecret (a Helm chart's), secretRef, valueFrom.
_POINTS_AT_A_SECRET = re.compile(r"(?i)existing|(?:^|[_.-])(?:from|use)[_-]?secret|secret[_-]?(?:ref|name|arn|id)")
# A public key is no secret: "age public key: age1...", WireGuard's PublicKey, a publishable key, a CAPTCHA's site
# key (reCAPTCHA, hCaptcha, Turnstile: the page shows it; the secret key is the other one).
_PUBLIC = re.compile(r"(?i)public|publishable|(?<![a-z])pub(?![a-z])|(?<![a-z])site(?:[ _-]?key|[ \t]\Z)")


def named_public(match: re.Match[str]) -> bool:
    """True when the words right before a keyed match say the key is public ("age public key: ...")."""
    return bool(_PUBLIC.search(match.string, max(0, match.start() - 12), match.start()))


# A password manager's own name ("in 1Password: Infra/vCenter"): where a secret is kept, not a key holding it.
_PASSWORD_MANAGER = re.compile(
    r"(?i)1password|lastpass|keepass(?:xc)?|passbolt|nordpass|enpass|passwork|proton[ _-]?pass"
)


def names_a_password_manager(name: str) -> bool:
    """``name`` is a password manager's own (1Password, KeePassXC, LastPass): where a secret is kept."""
    return _PASSWORD_MANAGER.fullmatch(name) is not None


def about_a_secret(name: str) -> bool:
    """True for a name about a secret rather than holding one (``password_min_length``, ``api_key_id``,
    ``SESSION_SECRET_ROTATION_DAYS``, ``auth.existingSecret``, ``PublicKey``, ``1Password``)."""
    if names_a_password_manager(name):
        return True
    return bool(_ABOUT_A_SECRET.search(name) or _POINTS_AT_A_SECRET.search(name) or _PUBLIC.search(name))


_SECRETISH_NAME = re.compile(r"(?i)pass|pwd|secret|token|key|cred|auth")
_YAML_TAG = re.compile(r"(?i)!(?:vault|ref|sub|getatt|env|secret|include|import|join|select|base64|findinmap)")
_PARTLY_MASKED = re.compile(r"[*•]{3,}[^\s*•]{0,4}|[^\s*•]{0,4}[*•]{3,}")  # ****f9x1: a log's masked value
_BLOCK_SCALAR = frozenset(("|", ">", "|-", ">-", "|+", ">+"))  # YAML: the value is on the lines below
_PERCENT_TEMPLATE = re.compile(r"%(?:\w+%|\(\w+\)[a-z]|[a-z]\b|\{|$)")
_MASK = re.compile(r"[*xX.•#-]{3,}|<[^>]*>|\.\.\.")
# Elided: the first or last characters shown around '...', as a dashboard or a log shows a key (sk-...abcd).
_ELIDED = re.compile(r"[^\s.]{0,12}(?:\.{3}|…)[^\s.]{0,8}")
# A placeholder a template or a README leaves to fill in: changeme, REPLACE_ME, your-api-key, <key>, BASE32SECRET.
_PLACEHOLDER = re.compile(
    r"(?i)change[_-]?(?:me|it)|replace[_-]?(?:me|this)|fill[_-]?(?:me|in)|fixme|todo|tbd|dummy|placeholder|"
    r"your[_-]?[\w-]{0,30}|(?:insert|put|enter|add)[_-][\w-]{0,30}|[\w-]{0,30}[_-]here|x{4,}|(?:example|sample|fake)(?:[_-]\w{0,20})?"
)
# The secret's own name in capitals as its value (BASE32SECRET, YOUR_TOKEN, APIKEY1): a placeholder.
# (words around the secret's, not letters and digits that happen to hold it: "A0PASS0" is a password)
_SECRET_WORDS_CAPS = r"(?:SECRET|TOKEN|KEY|PASSWORD|PASSWD|PASS)"
_NAME_AS_VALUE = re.compile(
    rf"(?:YOUR|MY|THE|API|APP|DB|BASE\d{{2}})_?{_SECRET_WORDS_CAPS}\d{{0,3}}|"
    rf"(?:[A-Z]{{2,12}}\d{{0,2}}_?){{0,3}}{_SECRET_WORDS_CAPS}(?:_?[A-Z]{{2,12}}){{0,2}}"
)
# A size or a count instead of the value: "password:  24 bytes" (kubectl describe secret), "12 characters".
_A_SIZE = re.compile(r"\d{1,6}[ \t]+(?:bytes?|chars?|characters?|digits?|letters?|words?|B|KB|KiB)\b.{0,40}")
_TRAILING = ".,;:)]}!?"
# '@' and a file's name or path: the value is read from that file (vault kv put, curl -d, az --value).
_FILE_REFERENCE = re.compile(r"@(?:-|[\w.~-]{0,200}/[\w./~-]{1,200}|[\w.~-]{1,200}\.[A-Za-z]{2,5})")
# A secret's name in lower-case words joined by '-' or '_', one of them the secret's noun: db-password, api_token.
_SECRET_WORD = r"(?:password|passwd|pwd|pass|secret|secrets|token|key|apikey|credentials?|creds)"
_SECRET_NAMED = re.compile(
    rf"(?:[a-z][a-z0-9]{{0,20}}[-_]){{1,6}}{_SECRET_WORD}(?:[-_][a-z][a-z0-9]{{0,20}}){{0,4}}|"
    rf"{_SECRET_WORD}(?:[-_][a-z][a-z0-9]{{0,20}}){{1,6}}"
)
_NEXT_PARAMETER = re.compile(r"&(?=[A-Za-z_][\w.-]{0,30}=)")


# A note where a dump has no value: "(none)", "(not set)", "[hidden]", "n/a".
_NO_VALUE = re.compile(r"\((?:[A-Za-z]{1,20} ?){1,4}\)|\[(?:[A-Za-z]{1,20} ?){1,4}\]|[Nn]/[Aa]")


# A template's instruction to fill the value in, in words: WordPress's 'put your unique phrase here', "enter your key".
_FILL_IN_WORDS = re.compile(
    r"(?i)(?:(?:put|enter|insert|paste|add|type|set|replace[ \t]+with)[ \t]+)?(?:your|the)[ \t]+"
    r"(?:[a-z-]{1,20}[ \t]+){0,4}"
    r"(?:phrase|password|passphrase|secret|key|token|salt|value|string)(?:[ \t]+here)?"
)
# Calls chained on a builder: a schema's rule (zod's z.string().min(12, ...), yup.string().required()).
_CODE_CHAIN = re.compile(
    r"[A-Za-z_$][\w$]{0,40}(?:\.[A-Za-z_]\w{0,40}){0,4}\(\)(?:\.[A-Za-z_]\w{0,40}(?:\([^()\s]{0,40}\)?)?){1,8}"
)


def value_is_code(value: str) -> bool:
    """True for a value that refers to a secret instead of being one (``None``, ``self.password``, ``***``)."""
    if _NO_VALUE.fullmatch(value.strip().strip("\"'")):
        return True
    if _FILL_IN_WORDS.fullmatch(value.strip().strip("\"'")):
        return True
    head = value.split()[0] if value.split() else value
    head = _NEXT_PARAMETER.split(head, 1)[0]  # secret=X&issuer=Y: X alone
    if _ELIDED.fullmatch(head):
        return True  # sk-ant-...: a key shown elided (before its trailing dots are taken for punctuation)
    head = head.rstrip(_TRAILING)
    if not head:
        return True
    lowered = head.lower()
    if lowered in CODE_WORDS or _MASK.fullmatch(head) or _PARTLY_MASKED.fullmatch(head):
        return True
    if _ELIDED.fullmatch(head) or _PLACEHOLDER.fullmatch(head) or _A_SIZE.fullmatch(value.strip()):
        return True
    if len(head) <= 40 and _NAME_AS_VALUE.fullmatch(head) and sum(c.isdigit() for c in head) <= 3:
        return True
    if placeholder_token(head):
        return True  # sk_test_xxxxxxxxxxxxxxxx: a token's shape in an example
    if _stands_elsewhere(head):
        return True
    if head[0] == "%" and _PERCENT_TEMPLATE.match(head):
        return True  # %s, %(password)s, %DB_PASSWORD%, %{pass}; not a password that starts with '%'
    if _YAML_TAG.fullmatch(head):
        return True  # password: !vault |
    if _CODE_CALL.fullmatch(head) or _CODE_CHAIN.fullmatch(head):
        return True  # getpass(), os.environ["X"], config.get("db"), z.string().min(12
    if _CODE_ATTRIBUTE.fullmatch(head):  # self.password, settings.SECRET_KEY; not "Abc.def9"
        parts = head.split(".")
        # (an object's name is a word, and a setting's name does not end in a digit: "A0.PASS0" is a password)
        named = re.fullmatch(r"[A-Za-z_]{2,60}", parts[0]) is not None and not parts[-1][-1:].isdigit()
        return parts[0].lower() in _CODE_OBJECTS or (named and bool(_SECRETISH_NAME.search(parts[-1])))
    if _SECRET_NAMED.fullmatch(head):
        return True  # --secret=db-password, prod_api_token: the name a secret is kept under
    # password=password, password=db_password, secret=SECRET: a variable named for what it holds
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", head) and _SECRETISH_NAME.search(head) and "_" in head) or (
        lowered in {"password", "passwd", "pwd", "secret", "token", "key", "pass"}
    )


def _stands_elsewhere(head: str) -> bool:
    """The value is somewhere else: on the next line or the lines below, in a variable, a template, a path or a file."""
    if head == "\\":
        return True  # a shell line continued: the value is on the next line (kernel.redaction.continued_lines)
    if head in _BLOCK_SCALAR:
        return True  # "password: |": kernel.redaction.places takes the lines below
    if head[0] in "${</[" or head.startswith(("./", "../", "~/")) or head == "~":
        return True  # a variable, a template, a placeholder, a path or a list
    if _TYPED_PATH.fullmatch(head):
        return True  # smtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd: a lookup table's type and file
    if _OPENED_EXPRESSION.fullmatch(head):
        return True  # -Password (Read-Host -AsSecureString), = (Get-Secret ...), = (run `wg genkey` ...)
    return _FILE_REFERENCE.fullmatch(head) is not None  # password=@pw.txt: vault, curl and az read that file


# A table's type, then its file: Postfix's hash:/etc/postfix/sasl_passwd, proxy:mysql:/etc/postfix/x.cf.
_TYPED_PATH = re.compile(r"[a-z][a-z0-9]{1,11}(?::[a-z][a-z0-9]{1,11}){0,2}:(?:/(?!/)|\./|~/)[^\s]{0,256}")
# A bracket opened on a word that goes on after it: a call (PowerShell's "(Read-Host", "(Get-Secret") or a note.
_OPENED_EXPRESSION = re.compile(r"\([A-Za-z][a-z]{1,20}(?:-[A-Z][A-Za-z]{1,30})?")


_NAMED_HASH = re.compile(r"[a-z]+(?:[_-][a-z]+)*[_.-](?=[0-9a-f]{0,15}[a-f])(?=[0-9a-f]{0,15}\d)[0-9a-f]{6,16}")


# Numbers joined by dots after a short word: a version, a timestamp, an analytics id (_ga=GA1.2.123.170).
_DOTTED_NUMBERS = re.compile(r"[A-Za-z_=.]{0,12}\d{1,20}(?:\.\d{1,20}){2,8}")


def looks_random(value: str) -> bool:
    """A token rather than a word, a count or a path: letters and digits mixed, no path shape."""
    if value[:1] in "/.~$%{<" or "://" in value:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if not (has_digit and has_alpha):
        return False
    if re.fullmatch(r"[a-z]+(?:[_-][a-z]+)*[_-]?\d{1,4}", value):  # model_v2, cache-key-1
        return False
    if _NAMED_HASH.fullmatch(value) and not re.search(r"token|secret|pass|pwd", value):
        return False  # deps-1a7c60a500fdaca8: a cache key, a build id
    if _DOTTED_NUMBERS.fullmatch(value):
        return False  # GA1.2.1234567890.1700000000: an analytics cookie, a version, a timestamp
    return not re.fullmatch(r"[\w-]+\.(?:json|ya?ml|txt|pem|key|crt|toml|ini|env|cfg|conf|py)", value, re.IGNORECASE)


# A token a provider's docs print (AWS: AKIAIOSFODNN7EXAMPLE, wJalr.../bPxRfiCYEXAMPLEKEY), or a token's prefix with
# words to fill in (xoxb-your-bot-token-here, ghp_your_token_here): no random body ends or reads so.
_DOCUMENTED_TOKEN = re.compile(r"(?:EXAMPLE|[Ee]xample)(?:KEY|[_-]?key)?\Z|[_-](?i:your|my)[_-]|[_-](?i:here)\Z")


def placeholder_token(token: str) -> bool:
    """A token's shape filled in with the letters examples use, as a README shows it: it ends in nine x, y or z or
    more, separators between them aside (``sk_test_xxxx...``, ``AKIAXXXX...``, ``.../XXX/YYY/ZZZ``). A random body
    ends so about once in 10**9; a body of zeros or of one other letter is still taken for a token. Or a token
    the docs print, or one with words to fill in (``_DOCUMENTED_TOKEN``)."""
    if _DOCUMENTED_TOKEN.search(token):
        return True
    letters = 0
    for char in reversed(token):
        if char in "xXyYzZ":
            letters += 1
        elif char not in "/_.:-":
            break
    return letters >= 9


def keep_url_password(match: re.Match[str]) -> bool:
    """Keep ``scheme://user:$PASS@host``: the password group (1) is a variable or a template."""
    return match.group(1)[:1] in "${<" or value_is_code(match.group(1))


_NOT_A_PASSWORD = re.compile(r"(?i)(?:env|file|fd|stdin|prompt):.*|-.*|stdin|prompt|\*|''|\"\"")


# Words that follow a flag in a sentence about a command ("run it without -p so the password is prompted for",
# "use -pass when asked"): no password.
PROSE_WORDS = frozenset(
    "a again also an and as at but by for from here if in instead into is it just never not of on only or so that "
    "the then there this to too when where which while with without you option flag argument parameter switch "
    "prompt via through using like over because unless".split()
)


def keep_value(group: int) -> Callable[[re.Match[str]], bool]:
    """Keep a match whose value (``group``) refers to a secret instead of being one: $VAR, env:X, -, a call, or a
    word of a sentence about it."""

    def keep(match: re.Match[str]) -> bool:
        value = unquote(match.group(group) or "")
        if not value or value.lower() in PROSE_WORDS:
            return True
        return bool(_NOT_A_PASSWORD.fullmatch(value)) or value_is_code(value)

    return keep


def keep_low_entropy(group: int) -> Callable[[re.Match[str]], bool]:
    """Keep a match whose value (``group``) is not a random token."""
    return lambda match: not high_entropy(match.group(group) or "")
