"""The recognisers behind ``kernel.privacy.redact``: what a credential looks like.

Three families, most specific first:

- **formats**: tokens that name themselves (``ghp_``, ``AKIA``, ``xoxb-``,
  PEM and PuTTY key blocks, JWTs...). Matched anywhere, whatever surrounds them.
- **commands**: a password handed to a known tool (``mysql -pPW``,
  ``sshpass -p PW``, ``docker login -p PW``, ``--password PW``, netrc lines,
  ``curl -u user:PW``) and a password inside a URL's userinfo.
- **keyed values**: a value given to a name that says it is secret
  (``DB_PASSWORD=...``, ``"api_key": "..."``, ``password = correct horse battery``,
  ``GITHUB_TOKEN=<40 hex>``), and prose ("the db password is P@ss...").
  A value that is code (``password=None``, ``password: str``, ``$DB_PASSWORD``,
  ``settings.SECRET_KEY``, ``getpass()``) is left alone, so notes about code
  survive.

Then detect-secrets' rules (``kernel.secret_rules``) and the context rules of
``kernel.secret_context`` run, before the keyed values. A pattern that starts
with a literal runs only on a text that holds it (``literal_gate``).

Every quantifier is bounded, so the time to scan stays linear in the text's
length (the memory service redacts on its event loop). Plain module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Recogniser:
    """``groups``: the secret is the first of these groups that took part (0: the whole match);
    ``keep``: True for a match that is not a secret after all."""

    kind: str
    pattern: re.Pattern[str]
    groups: tuple[int, ...] = (0,)
    keep: Callable[[re.Match[str]], bool] | None = None
    # For a pattern that never spans lines: it runs only on the lines whose lower-cased text holds one of
    # these words (a substring test is far cheaper than a case-insensitive scan of every position).
    line_words: tuple[str, ...] = ()
    # The whole match is the secret, less the separators a borrowed rule matches around it (' AKC...', '=AP...').
    trim: bool = False
    # A cheaper gate for a pattern that is fast on any text: it runs (on the whole text) only when the lower-cased
    # text holds one of these words.
    text_words: tuple[str, ...] = ()
    # The same as a regex, for a literal whose case matters (a case-sensitive literal is found fast).
    gate: re.Pattern[str] | None = None


MARKER_PREFIX = "[REDACTED:"

# -- formats: tokens that name themselves --------------------------------------------------------
_FORMATS: list[tuple[str, str]] = [
    (
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    # A PuTTY .ppk file: the private lines and the MAC, from the header to the MAC (or the end).
    ("putty-key", r"PuTTY-User-Key-File-\d+:.*?(?:Private-(?:MAC|Hash):[ \t]*[0-9A-Fa-f]+|\Z)"),
    ("age-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,70}\b"),
    # a key pair on one line (the console's credentials CSV: "AKIA...,<40-char secret>")
    (
        "aws-key-pair",
        r"\b(?:AKIA|ASIA)[A-Z0-9]{16}(?:[ \t]*[,;:|\t][ \t]*|[ \t]+(?:/[ \t]+|and[ \t]+)?)[A-Za-z0-9/+=]{40}"
        r"(?![A-Za-z0-9/+=])",
    ),
    ("aws-access-key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})"),
    ("gitlab-token", r"\bgl(?:pat|dt|rt|ptt|cbt|imt|soat|ffct|oas)-[A-Za-z0-9_-]{20,}"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("slack-token", r"\bxox(?:e\.xox)?[a-z]-[A-Za-z0-9-]{10,}"),
    ("slack-webhook", r"\bhooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),
    ("discord-webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+"),
    ("stripe-key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("google-oauth", r"\bya29\.[0-9A-Za-z_-]{20,}|\bGOCSPX-[A-Za-z0-9_-]{20,}"),
    ("digitalocean-token", r"\bdo[por]_v1_[a-f0-9]{64}\b"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}\b"),
    ("shopify-token", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    ("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    ("mailgun-key", r"\bkey-[0-9a-f]{32}\b"),
    ("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{20,}"),
    ("atlassian-token", r"\bATATT3[A-Za-z0-9_=-]{60,}"),
    ("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
    ("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{30,}"),
    ("terraform-token", r"(?<=[A-Za-z0-9]{14}\.)atlasv1\.[A-Za-z0-9_=-]{50,}"),
    ("pulumi-token", r"\bpul-[a-f0-9]{40}\b"),
    ("telegram-bot-token", r"(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
]

# -- commands and URLs: (kind, pattern, secret group) --------------------------------------------
_QUOTED_OR_BARE = r"('[^'\n]{1,256}'|\"[^\"\n]{1,256}\"|[^\s'\"]{1,256})"
_COMMANDS: list[tuple[str, str, int | tuple[int, ...]]] = [
    # scheme://user:PASSWORD@host: the password may hold '/', '@', '%40' (up to the last '@' before a host);
    # a port (digits, then '/' or the end) is not a password
    (
        "url-password",
        r"(?i)\b[a-z][a-z0-9+.-]{0,20}://[^\s:/@?#'\"]{0,256}:(?!\d{1,5}(?:[/?#\s'\"]|$))"
        r"([^\s'\"]{1,256})@[A-Za-z0-9_.-]+(?=[:/?#\s'\")\]>,;]|$)",
        1,
    ),
    ("azure-key", r"(?i)\b(?:AccountKey|SharedAccessKey|sig)=([A-Za-z0-9%+/=]{20,})", 1),
    ("bearer", r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})", 1),
    # "Authorization: Basic ...", and a server's header directive: proxy_set_header Authorization "Basic ..."
    ("basic-auth", r"(?i)\bauthorization[\"']?(?:[ \t]*[:=][ \t]*|[ \t]+)[\"']?basic\s+([A-Za-z0-9+/=]{8,})", 1),
    # mysql -pPW (no space: "-p PW" makes mysql prompt and PW a database name)
    ("mysql-cli", r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mysqlsh)\b[^\n|;&]{0,200}?\s-p" + _QUOTED_OR_BARE, 1),
    ("sshpass", r"\bsshpass\b[^\n|;&]{0,200}?\s-p\s*" + _QUOTED_OR_BARE, 1),
    (
        "registry-login",
        r"\b(?:docker|podman|buildah|skopeo|nerdctl|helm\s+registry|oras)\s+login\b[^\n|;&]{0,200}?\s-p(?:\s+|=)"
        + _QUOTED_OR_BARE,
        1,
    ),
    ("redis-cli", r"\bredis-cli\b[^\n|;&]{0,200}?\s-a\s+" + _QUOTED_OR_BARE, 1),
    (
        "curl-user",
        r"\b(?:curl|wget|http)\b[^\n|;&]{0,300}?\s(?:-u|--user)\s*['\"]?[^:\s'\"]{1,128}:([^\s'\"]{1,256})",
        1,
    ),
    (
        "cli-flag",
        r"(?i)\b--(?:password|passwd|pass|db-password|token|api-key|apikey|access-token|auth-token|"
        r"client-secret|secret|secret-key)(?:[ \t]+|=)(?![-$~/.<{])" + _QUOTED_OR_BARE,
        1,
    ),
    # netrc, on one line or several: "machine h login u password PW"
    ("netrc", r"(?i)\b(?:machine|login|account)\s+\S{1,256}\s+password\s+(\S{1,256})", 1),
    # typed defaults: "password: str = 'hunter2'"
    (
        "typed-default",
        r"(?i)\b\w{0,40}(?:password|passwd|secret|token|api_?key)\w{0,40}[ \t]*:[ \t]*"
        r"&?(?:'static[ \t]+)?[A-Za-z_][\w\[\]., |<>]{0,60}?=[ \t]*(?:'([^'\n]{1,256})'|\"([^\"\n]{1,256})\")",
        (1, 2),
    ),
]

# -- keyed values --------------------------------------------------------------------------------
# A name that says its value is secret: any value at all is redacted (short ones included).
_STRONG_KEYS = (
    r"password|passwd|passphrase|pwd|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|"
    r"session[_-]?token|id[_-]?token|client[_-]?secret|private[_-]?key|secret[_-]?key|access[_-]?key|"
    r"client[_-]?key[_-]?data|connection[_-]?string|conn[_-]?str|_auth\b"
)
# A name that often holds a secret, but also counts (max_tokens) or paths: only random-looking values.
_WEAK_KEYS = r"token|key|sig|signature|credentials?|auth|cookie|license|(?<![a-z])pat(?![a-z])"
_KEY_CHARS = r"[A-Za-z0-9_.-]"


def _key(words: str) -> str:
    """A name holding one of ``words`` (DB_PASSWORD, --api-key, "client_secret"), with its closing quote."""
    return rf"(?<![A-Za-z0-9_.-]){_KEY_CHARS}{{0,40}}?(?:{words}){_KEY_CHARS}{{0,40}}(?:\\{{0,7}}[\"'])?"


# (a colon before backslashes and a quote: JSON inside a JSON string, escaped once or more)
_SEPARATOR = r"[ \t]{0,8}(?::=|=>|=(?!=)|:(?![:/\\])|:(?=\\{1,7}\"))"
_VALUE_START = r"(?!\[REDACTED:)(?![$%{<])"
_BARE = r"[^\s\"'`<>]{1,512}"


def _quoted(least: int) -> str:
    """A quoted value, four groups: '...', "...", `...`, and \\"...\\" (inside a JSON or repr() string, escaped once
    or more: JSON in a JSON string)."""
    n = f"{{{least},512}}"
    return rf"'([^'\n]{n})'|\"([^\"\n]{n})\"|`([^`\n]{n})`|\\{{1,7}}\"([^\"\\\n]{n})\\{{1,7}}\""


_QUOTED = _quoted(1)
# More words of the same value after "key: " or "key = " (not after "KEY=", the shell's env prefix).
_MORE_WORDS = r"(?:[ \t]+(?![A-Za-z0-9_.-]{1,60}[ \t]*[:=])(?!#|//|\||&&|;)[^\s\"'`<>]{1,128}){0,8}"

STRONG_SPACED = re.compile(
    rf"(?i)({_key(_STRONG_KEYS)})([ \t]{{0,8}}(?:=>|=|:)[ \t]{{1,8}}){_VALUE_START}"
    rf"(?:{_QUOTED}|({_BARE}{_MORE_WORDS}))"
)
STRONG_TIGHT = re.compile(rf"(?i)({_key(_STRONG_KEYS)})({_SEPARATOR}){_VALUE_START}(?:{_QUOTED}|({_BARE}))")
WEAK = re.compile(
    rf"(?i)({_key(_WEAK_KEYS)})({_SEPARATOR}[ \t]{{0,8}}){_VALUE_START}"
    rf"(?:{_quoted(16)}|([^\s\"'`<>,;()\\]{{16,512}}))"
)
XML_SECRET = re.compile(rf"(?i)<((?:{_STRONG_KEYS}|token))>([^<\n]{{1,512}})</")
PROSE = re.compile(  # starts at a word's start: checked by the recogniser (see _inside_a_word)
    # the nouns share their first letters (p...): written as a tree, the engine rejects a position sooner
    r"(?i)(?:p(?:ass(?:word|wd|phrase|code|\s?code)|in|wd?)|secret|api\s?key|token)"
    r"(?:[ \t]+(?:for|on|of|to|at|in)[ \t]+(?:[\w.@-]{1,40}[ \t]+){0,3}?[\w.@-]{1,40})?"
    r"\s+(?:is\s+now|was\s+changed\s+to|is\s+set\s+to|set\s+to|changed\s+to|reset\s+to|is|was|è|é|ist|est|es|är|er|lautet)"
    r"\s+[\"'`]?([^\s\"'`]{3,256})"
)

# Values that are code or placeholders, not secrets.
CODE_WORDS = frozenset(
    "none null nil true false str string int integer bool boolean bytes optional undefined any object secretstr "
    "required empty unset redacted hidden masked omitted placeholder env environ getenv default dict list "
    "os.environ os.getenv process.env self this yes no".split()
)
# A call or an index (getpass(), os.environ[, config.get("x")), or a dotted name on a known object.
_CODE_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*[(\[][\w\"'.,\[ =:]*[)\]]?")
_CODE_ATTRIBUTE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_CODE_OBJECTS = frozenset(
    "self cls this settings config cfg conf args opts options env os process secrets credentials creds params "
    "request req ctx context app vault keyring props values".split()
)
# Names about a secret rather than holding one: password_min_length, secret_name, api_key_id, password_hash.
_ABOUT_A_SECRET = re.compile(
    r"(?i)(?:min|max|len|length|count|size|timeout|ttl|expir|age|rounds|attempts|retries|policy|hash|file|path|dir|"
    r"url|field|column|prompt|hint|label|reset|name|id|header|env|var|type|format|version|prefix|mode|enabled|required|changed|updated|created|rotated|used|history|store|vault|manager|backend|provider)"
    r"(?:y|es|ed|ation|s)?(?:[_.-]?(?:in|at|on|seconds?|secs?|ms|days?|hours?|minutes?|mins?))?(?:\\{0,7}[\"'])?$"
)


def about_a_secret(name: str) -> bool:
    """True for a name about a secret rather than holding one (``password_min_length``, ``api_key_id``)."""
    return bool(_ABOUT_A_SECRET.search(name))


_SECRETISH_NAME = re.compile(r"(?i)pass|pwd|secret|token|key|cred|auth")
_YAML_TAG = re.compile(r"(?i)!(?:vault|ref|sub|getatt|env|secret|include|import|join|select|base64|findinmap)")
_PARTLY_MASKED = re.compile(r"[*•]{3,}[^\s*•]{0,4}|[^\s*•]{0,4}[*•]{3,}")  # ****f9x1: a log's masked value
_BLOCK_SCALAR = frozenset(("|", ">", "|-", ">-", "|+", ">+"))  # YAML: the value is on the lines below
_PERCENT_TEMPLATE = re.compile(r"%(?:\w+%|\(\w+\)[a-z]|[a-z]\b|\{|$)")
_MASK = re.compile(r"[*xX.•#-]{3,}|<[^>]*>|\.\.\.")
_TRAILING = ".,;:)]}!?"


def value_is_code(value: str) -> bool:
    """True for a value that refers to a secret instead of being one (``None``, ``self.password``, ``***``)."""
    head = value.split()[0] if value.split() else value
    head = head.rstrip(_TRAILING)
    if not head:
        return True
    lowered = head.lower()
    if lowered in CODE_WORDS or _MASK.fullmatch(head) or _PARTLY_MASKED.fullmatch(head):
        return True
    if head == "\\":
        return True  # a shell line continued: the value is on the next line (kernel.secret_continued)
    if head in _BLOCK_SCALAR:
        return True  # "password: |": kernel.secret_places takes the lines below
    if head[0] in "${</[" or head.startswith(("./", "../", "~/")) or head == "~":
        return True  # a variable, a template, a placeholder, a path or a list
    if head[0] == "%" and _PERCENT_TEMPLATE.match(head):
        return True  # %s, %(password)s, %DB_PASSWORD%, %{pass}; not a password that starts with '%'
    if _YAML_TAG.fullmatch(head):
        return True  # password: !vault |
    if _CODE_CALL.fullmatch(head):
        return True  # getpass(), os.environ["X"], config.get("db")
    if _CODE_ATTRIBUTE.fullmatch(head):  # self.password, settings.SECRET_KEY; not "Abc.def9"
        parts = head.split(".")
        return parts[0].lower() in _CODE_OBJECTS or bool(_SECRETISH_NAME.search(parts[-1]))
    # password=password, password=db_password, secret=SECRET: a variable named for what it holds
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", head) and _SECRETISH_NAME.search(head) and "_" in head) or (
        lowered in {"password", "passwd", "pwd", "secret", "token", "key", "pass"}
    )


_NAMED_HASH = re.compile(r"[a-z]+(?:[_-][a-z]+)*[_.-](?=[0-9a-f]{0,15}[a-f])(?=[0-9a-f]{0,15}\d)[0-9a-f]{6,16}")


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
    return not re.fullmatch(r"[\w-]+\.(?:json|ya?ml|txt|pem|key|crt|toml|ini|env|cfg|conf|py)", value, re.IGNORECASE)


def _keyed_value(match: re.Match[str]) -> str:
    return next((g for g in match.groups()[2:] if g is not None), "")


# A Go or Kubernetes type named in a log ("failed to list *v1.Secret: ..."): a kind of object, not a key.
_TYPE_NAME = re.compile(r"[a-z]+\d*\.[A-Z][a-z]+")


def _keep_strong(match: re.Match[str]) -> bool:
    name = match.group(1)
    if _TYPE_NAME.fullmatch(name) and match.string[match.start() - 1 : match.start()] in ("*", "]"):
        return True
    return bool(_ABOUT_A_SECRET.search(name)) or value_is_code(_keyed_value(match))


# A template or a regular expression ("{hex}:{hex}", "(?:...)", "%(name)s"): a value built by code, not a token.
_TEMPLATE = re.compile(r"\{[\w.]*\}|\(\?|%\(\w+\)s")


def _keep_weak(match: re.Match[str]) -> bool:
    value = _keyed_value(match)
    if _ABOUT_A_SECRET.search(match.group(1)) or value_is_code(value) or not looks_random(value):
        return True
    return _TEMPLATE.search(value) is not None


def _keep_prose(match: re.Match[str]) -> bool:
    value = match.group(1).rstrip(_TRAILING)
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(not c.isalnum() for c in value)
    return value_is_code(value) or not (has_digit or has_symbol) or not any(c.isalpha() for c in value)


# Where a self-naming token may start: not inside a word, but right after an escaped line break or tab
# too ("...\\nAKIA..." as a repr() or JSON string shows a pasted multi-line text). Checked on each match
# instead of with a leading look-behind, which would stop the regex engine from jumping to the literal
# ("sk-ant-", "AKIA") and make every pattern try every position (about 50 times slower).
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _inside_a_word(match: re.Match[str], also: str = "") -> bool:
    """True when the match starts right after a word character (or one of ``also``), not after an escape.

    After '_' a token is not inside a word: ``sess_sk-...`` is a session id made of a key."""
    at, text = match.start(), match.string
    if at == 0 or (text[at - 1] not in _WORD_CHARS and text[at - 1] not in also) or text[at - 1] == "_":
        return False
    return not (at >= 2 and text[at - 2] == "\\" and text[at - 1] in "nrt")


def _without_leading_boundary(pattern: str) -> tuple[str, bool]:
    """``pattern`` with its leading ``\\b`` (and each ``|\\b``) removed, and whether it had one.

    Only where a literal follows (``\\bsk-ant-``, ``\\b(?:AKIA|ASIA)``): before a class (``\\b\\w``,
    ``\\b[a-z]``) the boundary is what keeps the engine from trying every position, so it stays."""
    flags = "(?i)" if pattern.startswith("(?i)") else ""
    body = pattern[len(flags) :]
    if not re.match(r"\\b(?:\(\?:)?[A-Za-z0-9-]", body):
        return pattern, False
    return flags + body[2:].replace(r"|\b", "|"), True


# Formats whose prefix is long and distinctive enough to be a token even inside a word ("buildnpm_...",
# a session id made of a key); the others ("sk-", "key-", "hf_", "SK") only count at a word's start.
_ANYWHERE = frozenset(
    "aws-key-pair aws-access-key github-token gitlab-token anthropic-key slack-token google-api-key google-oauth "
    "digitalocean-token npm-token pypi-token shopify-token sendgrid-key atlassian-token linear-key doppler-token "
    "age-key jwt".split()
)


def _keep_url_password(match: re.Match[str]) -> bool:
    return match.group(1)[:1] in "${<" or value_is_code(match.group(1))


def _keep_plain_word(match: re.Match[str]) -> bool:
    value = match.group(1)
    return value.isalpha() and (value.islower() or value.isupper() or value.istitle())


def _keep_command_value(match: re.Match[str]) -> bool:
    return _inside_a_word(match) or _keep_url_password(match)


def _formats_and_commands() -> list[Recogniser]:
    out = []
    for kind, pattern, group in [(k, p, 0) for k, p in _FORMATS] + _COMMANDS:
        groups = group if isinstance(group, tuple) else (group,)
        body, bounded = _without_leading_boundary(pattern)
        flags = re.DOTALL if kind in ("private-key", "putty-key") else 0
        keep: Callable[[re.Match[str]], bool] | None = None
        if kind == "url-password":
            keep = _keep_url_password
        elif kind == "basic-auth":
            keep = _keep_plain_word  # "authorization basic authentication" is prose
        elif kind in ("curl-user", "cli-flag"):
            keep = _keep_command_value  # curl -u "$USER:$TOKEN", --token \ (a continued line): no value here
        elif bounded and kind not in _ANYWHERE:
            keep = _inside_a_word
        out.append(Recogniser(kind, re.compile(body, flags), groups, keep, text_words=_TEXT_WORDS.get(kind, ())))
    return out


# The literal every match holds, for patterns whose start is no literal (they would try every position).
_TEXT_WORDS: dict[str, tuple[str, ...]] = {
    "url-password": ("://",),
    "telegram-bot-token": (":aa",),
    "terraform-token": ("atlasv1",),
    "stripe-key": ("_live_", "_test_", "whsec_"),
}


def _mixed(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


# detect-secrets rules with no distinctive prefix: only a value with letters and digits counts (APPLICATIONS
# is not an Artifactory password).
_NEEDS_MIXED = frozenset(
    "ArtifactoryDetector DiscordBotTokenDetector TelegramBotTokenDetector TwilioKeyDetector MailchimpDetector "
    "JwtTokenDetector".split()
)


# Rules that would try every position: they run only on a text that holds their literal part.
_BORROWED_REGEX_GATES = {"MailchimpDetector": re.compile(r"-us\d"), "ArtifactoryDetector": re.compile("AKC|AP[0-9A-F]")}
_BORROWED_GATES: dict[str, tuple[str, ...]] = {
    "NpmDetector": ("_authtoken",),
    "DiscordBotTokenDetector": (".",),
    "TelegramBotTokenDetector": (":",),
}


def _borrowed() -> list[Recogniser]:
    """detect-secrets' rules (``kernel.secret_rules``), after the formats written here."""
    from kernel.secret_rules import DETECT_SECRETS_RULES, KEYWORD_RULES

    out = []
    for plugin, pattern, flags in DETECT_SECRETS_RULES:
        if plugin in KEYWORD_RULES and pattern.startswith("(?:(?<="):
            continue  # subsumed by the keyed values below (see kernel.secret_rules)
        # an unbounded ".+" (NpmDetector's) would make a line of many "//" quadratic: bound it
        compiled = re.compile(pattern.replace(".+", ".{1,200}").replace(".*", ".{0,200}"), flags)
        groups = (1,) if compiled.groups else (0,)
        keep: Callable[[re.Match[str]], bool] | None = None
        if plugin in _NEEDS_MIXED:
            keep = _not_mixed
        elif plugin == "BasicAuthDetector":
            keep = _keep_url_password
        gate: tuple[str, ...] = _BORROWED_GATES.get(plugin, ("aws",) if pattern.startswith("aws") else ())
        if plugin in KEYWORD_RULES:
            gate = ("cloudant.com", "softlayer.com")
        kind = f"detect-secrets:{plugin}"
        regex_gate = _BORROWED_REGEX_GATES.get(plugin)
        out.append(Recogniser(kind, compiled, groups, keep, trim=groups == (0,), text_words=gate, gate=regex_gate))
    return out


def _not_mixed(match: re.Match[str]) -> bool:
    return not _mixed(match.group(0))


_LITERAL = re.compile(r"(?:[A-Za-z0-9_~/-]|\\[.\-/~])+")
_ALTERNATIVES = re.compile(r"\(\?:((?:[A-Za-z0-9_]|\\[.\-])+(?:\|(?:[A-Za-z0-9_]|\\[.\-])+)*)\)")


def literal_gate(pattern: str) -> tuple[str, ...]:
    """The lower-cased literals one of which every match of ``pattern`` holds (its literal prefix, or the
    alternatives of a leading ``(?:a|b)``), when it has one of 3 characters or more; otherwise ()."""
    body = pattern.removeprefix("(?i)").removeprefix("\\b")
    depth = 0
    for at, char in enumerate(body):
        if char == "\\" or (at and body[at - 1] == "\\"):
            continue
        depth += char == "("
        depth -= char == ")"
        if char == "|" and depth == 0:
            return ()
    alternatives = _ALTERNATIVES.match(body)
    if alternatives:
        words = [w.replace("\\", "").lower() for w in alternatives.group(1).split("|")]
        return tuple(words) if all(len(w) >= 2 for w in words) else ()
    literal = _LITERAL.match(body)
    word = literal.group(0).replace("\\", "").lower() if literal else ""
    return (word,) if len(word) >= 3 else ()


def recognisers() -> list[Recogniser]:
    """Every recogniser, in the order they are applied."""
    value_groups = (3, 4, 5, 6, 7)
    strong = ("pass", "pwd", "secret", "key", "token", "conn", "_auth")
    weak = ("token", "key", "sig", "cred", "auth", "cookie", "license", "pat")
    from kernel.secret_context import context_recognisers

    out = [replace(r, line_words=strong) if r.kind == "typed-default" else r for r in _formats_and_commands()]
    out += _borrowed()
    out += context_recognisers()
    out += [
        Recogniser("assignment", STRONG_SPACED, value_groups, _keep_strong, strong),
        Recogniser("assignment", STRONG_TIGHT, value_groups, _keep_strong, strong),
        Recogniser("keyed-token", WEAK, value_groups, _keep_weak, weak),
        Recogniser("xml-secret", XML_SECRET, (2,), lambda m: value_is_code(m.group(2))),
        Recogniser(
            "prose",
            PROSE,
            (1,),
            lambda m: _inside_a_word(m) or _keep_prose(m),
            text_words=("pass", "pin", "pw", "secret", "api", "token"),
        ),
    ]
    # A pattern that starts with a literal is skipped on a text without it (a substring test of the whole text).
    return [
        r if r.line_words or r.text_words or r.gate else replace(r, text_words=literal_gate(r.pattern.pattern))
        for r in out
    ]
