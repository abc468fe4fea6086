"""Secrets written in source code and scripts (issue 36), beside ``kernel.redaction.places``.

- **subscripts**: ``os.environ["API_KEY"] = "..."``, ``config["db"]["password"] = '...'``;
- **calls that take a name and a value**: ``props.put("password", "...")``,
  ``setenv("API_TOKEN", "...")``, ``headers.set("X-Api-Key", "...")``, a mobile key-value store's
  ``putString("password", "...")``, ``PlayerPrefs.SetString``, ``set("...", forKey: "password")``;
- **setters and builders named for the secret**: ``ds.setPassword("...")``,
  ``.api_key("...")``, ``opts.WithToken("...")``;
- **expect scripts**: the line sent after a password prompt;
- **JSON Web Keys**: the private members of a key that names its ``"kty"``;
- **positional credentials**: the password of ``mysqli_connect(host, user, PW, db)``,
  ``new PDO(dsn, user, PW)``, ``getConnection(url, user, PW)``, ``ftp_login``/``ldap_bind``
  (always the third argument), and a token-shaped string given to a client's constructor
  (``Client(sid, TOKEN)``, ``cohere.Client(KEY)``, ``new Client(KEY)``);
- **Groovy/Gradle settings without '='**: ``keyPassword "..."``, ``storePassword '...'``;
- **split strings**: ``"sk-proj-" + "..."``, a token cut in two literals or more (``"sk_live_" + "..." + "..."``,
  a joiner that ends its line, a start already redacted), and a secret's literal in pieces one to a line that the
  language joins (``STRIPE_KEY = (`` then ``"sk_live_..."`` and ``"..."`` on the lines below);
- **a token given to any call** on a line that names a key or a token (``search('APP', '<hex>'); // admin key``);
- **signing keys**: a JWT signed or checked with a literal (``jwt.encode(payload, KEY)``, ``jwt.sign``,
  ``SignedString([]byte(KEY))``, ``Algorithm.HMAC256(KEY)``), an HMAC keyed with one (``hmac.new(b"KEY", ...)``,
  ``createHmac("sha256", KEY)``, ``hash_hmac(algo, data, KEY)``);
- **logins and unseal keys**: ``cargo login TOKEN``-style positional tokens,
  ``vault operator unseal KEY``, ``Unseal Key 1: KEY``.

A name whose last word is not a secret's counts only with a token-shaped value
(``keep_named_value``). Plain data.
"""

from __future__ import annotations

import re

from kernel.redaction.entropy import high_entropy, token_shaped, unquote
from kernel.redaction.password_shape import password_shaped
from kernel.redaction.places import NAME_CHARS, SECRET_NAME, Place, keep_first_value, keep_named_value
from kernel.redaction.values import about_a_secret, keep_value, looks_random, value_is_code

_ARG = r"(?:\"[^\"\n]{0,256}\"|'[^'\n]{0,256}'|[\w$.\[\]>:-]{1,128})"
_QUOTED = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')"
# functions whose third argument is the password, whatever it looks like
_PASSWORD_THIRD = (
    r"mysqli?_p?connect|mysqli|PDO|getConnection|ftp_login|ldap_bind|ldap_sasl_bind|imap_open|ssh2_auth_password|"
    r"FTP|FTP_TLS|pymysql\.connect|MySQLdb\.connect|mysql\.connector\.connect|pymssql\.connect|connect_db|"
    r"Sequelize|FTP\.new|FTP\.open"
)


_KNOWN_CALL = re.compile(rf"(?i)(?:^|[.>:$])(?:{_PASSWORD_THIRD})[ \t]*\($")
_LOGIN_CALL = re.compile(r"(?i)(?:connect|login|bind|auth\w{0,20})[ \t]*\($")


def _keep_third(match: re.Match[str]) -> bool:
    """Any third argument of a known function; of another connect/login call, only a password-shaped one."""
    value = match.group(2)[1:-1]
    if not value or value_is_code(value):
        return True
    if _KNOWN_CALL.search(match.group(1)):
        return False
    return _LOGIN_CALL.search(match.group(1)) is None or not password_shaped(value)


_NAME_BEFORE = re.compile(r"[\w.$-]{0,41}\Z")
_SETTING_NAME = re.compile(r"(?i)(?:password|passwd|passphrase|secret|token|api_?key)\Z")
_BARE_WORDS = frozenset("password passwd passphrase secret token apikey api_key".split())
# The secret word of a setting's name without its first letter ("keyPassword" holds "assword"): each a literal the
# regex engine finds fast, where one case-blind alternation would try every position of every line.
_SETTING_CORES = (
    "assword",
    "ASSWORD",
    "asswd",
    "ASSWD",
    "assphrase",
    "ecret",
    "ECRET",
    "oken",
    "OKEN",
    "pi_key",
    "piKey",
    "PI_KEY",
    "pikey",
    "PIKEY",
)


def _keep_setting(match: re.Match[str]) -> bool:
    """``keyPassword "..."`` is a setting; a bare ``secret "db-creds"`` is prose, unless its value looks like a
    password; ``obj.token "x"``, ``$token "x"`` and ``broken "x"`` are not settings of a secret."""
    before = _NAME_BEFORE.search(match.string, max(0, match.start() - 41), match.start())
    prefix = before.group(0) if before else ""
    name = prefix + match.group(1)
    if any(c in prefix for c in ".$-") or prefix[:1].isdigit() or not _SETTING_NAME.search(name):
        return True
    value = match.group(2)[1:-1]
    if not value or value_is_code(value) or about_a_secret(name):
        return True
    if name.lower() in _BARE_WORDS:
        return not password_shaped(value)
    if name.lower().endswith("token"):
        return not (token_shaped(value) or (len(value) >= 16 and looks_random(value)))
    return False


def _keep_client_token(match: re.Match[str]) -> bool:
    return not token_shaped(match.group(1))


_NAMES_A_CREDENTIAL = re.compile(r"(?i)key|token|secret|credential")


def _keep_unnamed_call_token(match: re.Match[str]) -> bool:
    text = match.string
    line = text[text.rfind("\n", 0, match.start()) + 1 : (text.find("\n", match.end()) + 1 or len(text) + 1) - 1]
    return not token_shaped(match.group(1)) or _NAMES_A_CREDENTIAL.search(line.replace(match.group(1), "")) is None


# Between two literals: '+', '.', '..', '||', '&' (a joiner, which may end its line), or only spaces.
_JOINER = r"(?:[ \t]*(?:\+|\.\.?|\|\||&)[ \t]*(?:\r?\n[ \t]*)?|[ \t]+)"
# A token's prefix: "sk-proj-", "sk_live_", "xoxb-1234567890-" (a word, then up to three more parts, each cut off)
_TOKEN_PREFIX = re.compile(r"[A-Za-z]{2,10}[-_](?:[A-Za-z0-9]{2,20}[-_]){0,3}")


def _keep_split(match: re.Match[str]) -> bool:
    """Keep ``"abc" + "defghijklmnopqrstuvwxyz"``: only a random tail, or a token prefix then a random-looking tail
    (the tail's pieces read joined)."""
    head, tail = match.group(1), re.sub(r"[\"'](?:[ \t]*(?:\+|\.\.?|\|\||&)?\s*)[\"']", "", match.group(2))
    # a token's start with some of its body ("sk_live_0FRlf3" + "5Udgj3..."): the rest needs fewer characters
    started = _TOKEN_PREFIX.match(head)
    if started and len(tail) >= 12 and looks_random(head[started.end() :] + tail):
        return False
    if len(tail) < 16:
        return True
    if high_entropy(tail):
        return False
    prefixed = _TOKEN_PREFIX.fullmatch(head) or head.startswith("[REDACTED:")  # a token's start already redacted
    return not (prefixed and len(tail) >= 20 and looks_random(tail))


# A literal's pieces, one to a line, joined by the language (Python's and C's adjacent literals): no blanks in them.
_PIECE = r"[\"'][^\s\"'\[][^\s\"']{0,255}[\"']"
_NEXT_PIECE = r"[ \t]*\r?\n[ \t]{0,40}"


def _keep_pieces(match: re.Match[str]) -> bool:
    """A secret's name and its literal cut into pieces, one to a line: a strong name (password, secret) takes any
    value that is not code, a URL or a plain word; a key's or a token's only a random-looking one."""
    name = match.group(1)
    value = match.group(2) or match.group(3)
    joined = "".join(re.findall(r"[\"']([^\"']*)[\"']", value))
    if about_a_secret(name) or value_is_code(joined) or "://" in joined:
        return True
    if match.group(2) is None and len(joined) >= 8:
        return not looks_random(joined) and not password_shaped(joined)  # the start already redacted
    if _STRONG_PIECES_NAME.search(name):
        return joined.isalpha() or not any(c.isalpha() for c in joined)
    return not (token_shaped(joined) or (len(joined) >= 16 and looks_random(joined)))


_STRONG_PIECES_NAME = re.compile(r"(?i)pass|pwd|secret|private")

# A secret's word in a field's, a setting's or a file's name (the name's own check is keep_named_value's).
_SECRET_WORD = r"(?i:password|passwd|pwd|passphrase|secret|token|api_?key|apikey|access_?key|credential|auth)"
# Accounts every system has, whose password a fixture or a script pairs with them: ('root', '...').
_ACCOUNTS = r"root|admin|administrator|sa|postgres|sysadmin|superuser|guest|deploy|ubuntu|pi|oracle|system|operator"


def _keep_paired(match: re.Match[str]) -> bool:
    """Keep ``('guest', 'guest')`` and ``('admin', password)``: the password is the account's name again or no
    password's shape."""
    value = match.group(3)[1:-1]
    return value == match.group(2) or value_is_code(value) or not password_shaped(value)


def _keep_written(match: re.Match[str]) -> bool:
    """Keep ``echo "$TOKEN" > token.txt``, ``echo hello > secret.txt`` and a file about a secret
    (``password_policy.txt``): a variable, a plain word or such a name."""
    value, file = unquote(match.group(1)), match.group(2).rsplit("/", 1)[-1].lstrip(".").split(".", 1)[0]
    if not value or value[0] in "$`<{%(-" or about_a_secret(file):
        return True
    return value.isalpha() and len(value) < 12


def _keep_asserted(match: re.Match[str]) -> bool:
    """Keep a test's check of a field about a secret (``len(user.password)``) or against code; a password's field
    takes a password-shaped literal, a token's or a key's a token-shaped one (a refresh token may start with '-')."""
    name, value = match.group(1), match.group(2)[1:-1]
    if about_a_secret(name.strip("\"'[]().")) or value_is_code(value) or value.startswith(("$", "{")):
        return True
    if re.search(r"(?i)pass|pwd|secret", name) and password_shaped(value):
        return False
    return not (token_shaped(value) or (len(value) >= 16 and looks_random(value)))


def _keep_echoed(match: re.Match[str]) -> bool:
    """Keep what a REPL echoes for an expression about a secret (``len(password)``) or a value that is code."""
    value = match.group(3)
    return about_a_secret(match.group(1)) or value_is_code(value) or (value.isalpha() and len(value) < 8)


# A commit's (40) or an image's (64) hash in hex: what a deploy script is most often given, no secret.
_COMMIT_OR_DIGEST = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _keep_script_argument(match: re.Match[str]) -> bool:
    value = match.group(1)
    return _COMMIT_OR_DIGEST.fullmatch(value) is not None or not token_shaped(value)


def _keep_signing_key(match: re.Match[str]) -> bool:
    """Keep a key that is code, or a lower-case word a tutorial signs with ("secret", "mykey")."""
    value = match.group(1)[1:-1]
    return value_is_code(value) or (value.isalpha() and value.islower() and len(value) <= 10) or len(value) < 6


# An argument before the key: a name, a literal, an object or a call of one line.
_SIGN_ARG = r"(?:\"[^\"\n]{0,256}\"|'[^'\n]{0,256}'|\{[^{}\n]{0,256}\}|[\w.$\[\]]{1,60}(?:\([^()\n]{0,60}\))?)"


def _keep_value_first(match: re.Match[str]) -> bool:
    """``set(VALUE, forKey: NAME)``: the name's check of ``keep_named_value``, its groups the other way round."""
    name, value = match.group(2), match.group(1)[1:-1]
    if about_a_secret(name) or not value or value_is_code(value):
        return True
    if re.search(r"(?i)pass|pwd|secret", name):
        return False
    return not (token_shaped(value) or (len(value) >= 16 and looks_random(value)))


CODE: list[Place] = [
    # code: os.environ["API_KEY"] = "...", config["db"]["password"] = '...', ENV['SECRET_KEY_BASE'] = '...'
    Place(
        "assignment",
        rf"\[[ \t]{{0,4}}[\"']({NAME_CHARS}{{0,60}}(?i:{SECRET_NAME}){NAME_CHARS}{{0,60}})[\"'][ \t]{{0,4}}\]"
        r"[ \t]{0,8}=(?!=)[ \t]{0,8}(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        2,
        keep_named_value,
        line_words=("]",),
        gate=re.compile(r"\][ \t]{0,8}=[^=]"),
    ),
    # code: a call that takes the name and the value, props.put("password", "..."), setenv("API_TOKEN", "..."),
    # headers.set("X-Api-Key", "..."), System.setProperty("javax.net.ssl.keyStorePassword", "...")
    Place(
        "assignment",
        rf"(?i)\b(?:put|setProperty|setenv|putenv|setdefault|set|add|append|setHeader|header|add_header|setItem|insert|"
        r"putString|setString|setValue|setObject|setSecret)"
        rf"[ \t]{{0,4}}\([ \t]{{0,4}}[\"']({NAME_CHARS}{{0,60}}{SECRET_NAME}{NAME_CHARS}{{0,60}})[\"'][ \t]{{0,4}},"
        r"[ \t]{0,4}(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        2,
        keep_named_value,
        line_words=("put", "set", "add", "append", "header", "insert"),
    ),
    # a mobile key-value store given the value first: UserDefaults.standard.set("...", forKey: "password"),
    # keychain.set("...", forKey: "apiToken")
    Place(
        "assignment",
        r"\.set(?:Value|Object|String)?[ \t]*\([ \t]*(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')[ \t]*,[ \t]*forKey:[ \t]*"
        rf"\"({NAME_CHARS}{{0,60}}(?i:{SECRET_NAME}|pass){NAME_CHARS}{{0,60}})\"",
        (1,),
        _keep_value_first,
        text_words=("forkey:",),
    ),
    # code: a setter or builder named for the secret, ds.setPassword("..."), .api_key("..."), opts.WithToken("...")
    Place(
        "assignment",
        r"(?i)\.(?:set_?|with_?)?((?:[a-z]{1,20}_?)?(?:password|passwd|passphrase|secret|api_?key|token|access_?key|"
        r"credentials?))[ \t]{0,4}\([ \t]{0,4}(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')[ \t]{0,4}\)",
        2,
        keep_named_value,
        line_words=("pass", "secret", "key", "token", "credential"),
    ),
    # an expect script: the line sent after a password prompt
    Place(
        "expect-password",
        r"(?i)\bexpect[ \t]+(?:-\w{1,8}[ \t]+)?[\"'{][^\"'}\n]{0,60}(?:assword|assphrase|PIN)[^\"'}\n]{0,60}"
        r"[\"'}][ \t]*"
        r"(?:\r?\n[ \t]{0,40}|;[ \t]{0,8})send[ \t]+(?:--[ \t]+)?\"((?:[^\"\\\n]|\\[^rn])+)(?:\\r|\\n){0,2}\"",
        1,
        keep_first_value,
        text_words=("expect",),
    ),
    # a JSON Web Key's private members ("kty" names the key; "d", "p", "q", "dp", "dq", "qi" and "k" are secret)
    Place(
        "jwk-private",
        r"([\"'])(?:d|p|q|dp|dq|qi|k)\1[ \t]{0,4}:[ \t]{0,4}[\"']([A-Za-z0-9_-]{16,})[\"']",
        2,
        None,
        text_words=('"kty"', "'kty'"),
    ),
    # mysqli_connect(host, user, PW, db), new PDO(dsn, user, PW), and a password-shaped PW of any connect(h, u, PW)
    Place(
        "positional-password",
        # any call (its name possessive, so a line is read once), the name checked by the keep function
        rf"(?i)(?<![\w.>$:-])([\w.>$:-]{{1,60}}+[ \t]*\()[ \t]*{_ARG}[ \t]*,[ \t]*{_ARG}[ \t]*,[ \t]*{_QUOTED}",
        2,
        _keep_third,
        line_words=(
            "connect",
            "pdo",
            "login(",
            "login (",
            "bind(",
            "bind (",
            "auth",
            "imap_open",
            "mysqli",
            "ftp",
            "sequelize",
        ),
    ),
    # Client("AC...", "TOKEN"), cohere.Client("KEY"), new Client(KEY): a token-shaped literal given to a client
    Place(
        "client-token",
        r"(?i)\b(?:client|api|sdk|session|auth|algoliasearch|searchclient|initiali[sz]e|init|initapp|configure)"
        r"[ \t]*\("
        r"(?:[ \t]*(?:\"[^\"\n]{0,256}\"|'[^'\n]{0,256}'|[\w.$]{1,60})[ \t]*,){0,3}"
        r"[ \t]*[\"']([A-Za-z0-9._~+/=-]{16,256})[\"']",
        1,
        _keep_client_token,
        line_words=("client", "api", "sdk", "session", "auth", "search", "init", "configure"),
    ),
    # a vendor SDK's start call on its class: Bugsnag.start(this, KEY), OneSignal.initWithContext(this, APP_ID),
    # Instabug.start(TOKEN, ...), Amplitude.getInstance().initialize(this, KEY)
    Place(
        "client-token",
        r"\b[A-Z][A-Za-z0-9]{2,30}(?:\.(?:getInstance|shared|sharedInstance|instance)(?:\(\))?)?"
        r"\.(?:start|init\w{0,20}|setup|configure\w{0,20}|initiali[sz]e\w{0,10})[ \t]*\("
        r"(?:[ \t]*(?:\"[^\"\n]{0,256}\"|'[^'\n]{0,256}'|[\w.$]{1,60})[ \t]*,){0,3}"
        r"[ \t]*[\"']([A-Za-z0-9._~+/=-]{16,256})[\"']",
        1,
        _keep_script_argument,  # (a commit's hash given to Deploy.start stays)
        line_words=("start", "init", "setup", "configure"),
    ),
    # algoliasearch('APP_ID', 'KEY'); // admin key: a token-shaped literal after the first argument of any call, on a
    # line that names a key, a token or a secret
    Place(
        "client-token",
        # (the match starts at the call's '(', a literal the engine finds fast; the call's name is not needed)
        r"\((?:[ \t]*(?:\"[^\"\n]{0,256}\"|'[^'\n]{0,256}'|[\w.$]{1,60})[ \t]*,){1,3}"
        r"[ \t]*[\"']([A-Za-z0-9._~+/=-]{20,256})[\"']",
        1,
        _keep_unnamed_call_token,
        line_words=("key", "token", "secret", "credential"),
        gate=re.compile(r",[ \t]*[\"'][A-Za-z0-9._~+/=-]{20}"),
    ),
    # Gradle/Groovy: keyPassword "...", storePassword '...', a setting named for a secret then a quoted value
    *(
        Place(
            "assignment",
            rf"({core})[ \t]+(\"[^\"\n]{{1,256}}\"|'[^'\n]{{1,256}}')(?![ \t]*[+.,:\]])",
            2,
            _keep_setting,
        )
        for core in _SETTING_CORES
    ),
    # a token in two literals: "sk-proj-" + "...", 'ghp_' . '...', "abc" "..." (implicit concatenation)
    # (the tail may itself be cut again, "sk_live_" + "..." + "...", and a joiner may end its line)
    Place(
        "split-secret",
        rf"[\"']([A-Za-z0-9_.-]{{2,40}}|\[REDACTED:[\w:-]{{1,60}}\])[\"']{_JOINER}"
        rf"[\"']([A-Za-z0-9_~+/=.-]{{8,512}}(?:[\"']{_JOINER}[\"'][A-Za-z0-9_~+/=.-]{{4,512}}){{0,6}})[\"']",
        2,
        _keep_split,
        # (possessive blanks: two runs around an optional joiner made a long run of spaces quadratic)
        gate=re.compile(r"[\"'][ \t]*+(?:(?:\+|\.\.?|\|\||&)[ \t]*+)?(?:\r?\n[ \t]*+)?[\"'][A-Za-z0-9_~+/=.-]{8}"),
    ),
    # a secret's name, then its literal in pieces one to a line, joined by the language: STRIPE_KEY = (\n "sk_live_.."
    # \n "..."\n), static const char *API_TOKEN =\n "..."\n "...";  (the pieces after one already redacted, or all)
    Place(
        "split-secret",
        rf"(?<![\w.:/-])([\w.]{{0,60}}?(?i:{SECRET_NAME}|pass|key)[\w.]{{0,60}})[\"']?[ \t]*(?::=|=|:)[ \t]*"
        rf"(?:\([ \t]*)?(?:\r?\n[ \t]{{0,40}})?(?:({_PIECE}(?:{_NEXT_PIECE}{_PIECE}){{1,7}})|"
        rf"[\"']\[REDACTED:[\w:-]{{1,60}}\][\"']{_NEXT_PIECE}({_PIECE}(?:{_NEXT_PIECE}{_PIECE}){{0,6}}))",
        (2, 3),
        _keep_pieces,
        gate=re.compile(r"[\"'][ \t]*\r?\n[ \t]*[\"']"),
    ),
    # cargo login TOKEN, "<tool> auth login TOKEN", vault operator unseal KEY: a token-shaped positional argument
    Place(
        "login-token",
        r"(?i)\b(?:login|auth|authenticate|unseal)[ \t]+(?:--?[\w-]{1,30}(?:[ \t]+|=)(?!-)\S{1,128}[ \t]+){0,3}"
        r"[\"']?([A-Za-z0-9._~+/=-]{16,256})[\"']?(?![\w/+=-])",
        1,
        _keep_client_token,
        line_words=("login", "auth", "unseal"),
    ),
    # a token handed to a deploy, release or login script among its arguments: $ ./deploy.sh prod eu-west-1 <token>
    Place(
        "script-token",
        r"(?:^|[$#>%][ \t]{1,4})(?:\./|(?:ba|z)?sh[ \t]+|python3?[ \t]+|ruby[ \t]+|node[ \t]+)?[\w./-]{0,60}"
        r"(?i:deploy|release|publish|push|upload|login|auth|connect|sync)[\w.-]{0,30}"
        r"(?:[ \t]+[^\s]{1,128}){0,6}?[ \t]+[\"']?([A-Za-z0-9_+/=-]{24,256})[\"']?(?![\w+/=.-])",
        1,
        _keep_script_argument,
        line_words=("deploy", "release", "publish", "push", "upload", "login", "auth", "connect", "sync"),
    ),
    # a JWT signed or checked with a literal key: jwt.encode(payload, "KEY"), jwt.sign({...}, 'KEY'),
    # JWT.encode(payload, "KEY", "HS256"), token.SignedString([]byte("KEY")), .signWith(SignatureAlgorithm.HS256, "KEY")
    Place(
        "signing-key",
        r"\b(?:jwt|JWT|jsonwebtoken|jose\.jwt|Jwts?)\.(?:encode|decode|sign|verify)[ \t]*\("
        rf"[ \t]*{_SIGN_ARG}[ \t]*,[ \t]*"
        r"(?:b|bytes\([ \t]*)?(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        1,
        _keep_signing_key,
        line_words=("jwt", "jsonwebtoken"),
    ),
    Place(
        "signing-key",
        r"(?:\bSignedString|\bsignWith|\bHMAC(?:256|384|512)|\bhmacShaKeyFor|\bSecretKeySpec)[ \t]*\("
        r"(?:[ \t]*[\w.]{1,60}[ \t]*,)?[ \t]*(?:\[\]byte\(|new[ \t]+TextEncoder\(\)\.encode\()?"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        1,
        _keep_signing_key,
        line_words=("signedstring", "signwith", "hmac", "secretkeyspec"),
    ),
    # an HMAC keyed with a literal: hmac.new(b"KEY", msg, sha256), crypto.createHmac("sha256", "KEY"),
    # OpenSSL::HMAC.hexdigest("SHA256", "KEY", data), hash_hmac('sha256', $data, 'KEY')
    Place(
        "signing-key",
        r"\b(?:hmac\.(?:new|digest)[ \t]*\([ \t]*(?:b|bytes\([ \t]*)?|"
        r"(?:createHmac|HMAC\.(?:hex)?digest|HMAC\.new)[ \t]*\([ \t]*[\w.:\"'-]{1,40}[ \t]*,[ \t]*|"
        rf"hash_hmac[ \t]*\([ \t]*[\"'][\w-]{{1,20}}[\"'][ \t]*,[ \t]*{_SIGN_ARG}[ \t]*,[ \t]*)"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        1,
        _keep_signing_key,
        line_words=("hmac",),
    ),
    # HashiCorp Vault's init output: "Unseal Key 1: ...", "Recovery Key 2: ..."
    Place(
        "vault-key",
        r"(?i)\b(?:unseal|recovery)[ \t]+key(?:[ \t]+\d{1,2})?[ \t]*:[ \t]*([A-Za-z0-9+/=]{16,256})",
        1,
        keep_first_value,
        line_words=("unseal", "recovery"),
    ),
    # Android builds: buildConfigField("String", "MAPS_KEY", "\"...\""), resValue "string", "api_token", "...";
    # a manifest's <meta-data android:name="...API_KEY" android:value="..."/>
    Place(
        "build-setting",
        r"\b(?:buildConfigField|resValue)[ \t]*\(?[ \t]*[\"'][\w.]{1,40}[\"'][ \t]*,[ \t]*"
        rf"[\"']([\w.]{{0,60}}(?:{_SECRET_WORD}|(?i:key))[\w.]{{0,60}})[\"'][ \t]*,[ \t]*"
        r"[\"'](?:\\?[\"'])?([^\"'\\\n]{1,256})(?:\\?[\"'])?[\"']",
        2,
        keep_named_value,
        text_words=("buildconfigfield", "resvalue"),
    ),
    Place(
        "build-setting",
        rf"\bandroid:name[ \t]*=[ \t]*\"([\w.]{{0,80}}{_SECRET_WORD}[\w.]{{0,40}})\"[ \t]+"
        r"android:value[ \t]*=[ \t]*\"([^\"\n$@{]{8,256})\"",
        2,
        keep_named_value,
        text_words=("android:value",),
    ),
    # a test that checks a secret's field against its literal: expect(res.body.refresh_token).toBe('...'),
    # assert resp.json()["access_token"] == "...", self.assertEqual(creds.api_key, "..."), assert_eq!(cfg.token, "...")
    Place(
        "asserted-secret",
        r"\b(?:expect|assert\w{0,20}!?|XCTAssert\w{0,20})[ \t]*\(?[ \t]*"
        rf"([\w.$\[\]\"'>()-]{{0,100}}?{_SECRET_WORD}[\w\"'\]]{{0,30}})[ \t]*\)?[ \t]*"
        r"(?:\.to(?:Be|Equal|StrictEqual|Eq)\w{0,10}[ \t]*\(|\.to[ \t]+eq(?:ual)?[ \t]*\(?|==|,|"
        r"\.should\w{0,10}[ \t]*\(?)[ \t]*(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        2,
        _keep_asserted,
        line_words=("expect", "assert"),
    ),
    # an account every system has, paired with its password in a tuple, a list or an initialiser: ('root', 'Hazel63#x')
    Place(
        "account-password",
        rf"[(\[{{][ \t]*([\"'])({_ACCOUNTS})\1[ \t]*,[ \t]*(\"[^\"\n]{{1,128}}\"|'[^'\n]{{1,128}}')[ \t]*[)\]}}]",
        3,
        _keep_paired,
        gate=re.compile(rf"[\"'](?:{_ACCOUNTS})[\"'][ \t]*,"),
    ),
    # a debugging dump: PHP's var_dump, ["pass"]=> string(15) "..." (its value on the same line or the next)
    Place(
        "dumped-secret",
        rf"\[[\"']?([\w.-]{{0,40}}(?:{_SECRET_WORD}|(?i:pass|pw))[\w.-]{{0,40}})[\"']?\][ \t]*=>[ \t]*"
        r"(?:\r?\n[ \t]{0,40})?string\(\d{1,4}\)[ \t]*(\"[^\"\n]{1,256}\")",
        2,
        keep_named_value,
        text_words=("string(",),
    ),
    # a shell line that writes a literal to a file named for a secret: echo '...' > ~/.vault_pass.txt,
    # printf '%s' '...' | sudo tee /etc/app/api_token
    Place(
        "written-secret",
        r"\b(?:echo|printf)[ \t]+(?:-[neE]{1,3}[ \t]+)?(?:[\"']%s(?:\\n)?[\"'][ \t]+)?"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s|>;&'\"]{1,256})[ \t]*"
        r"(?:>>?|\|[ \t]*(?:sudo[ \t]+)?tee(?:[ \t]+-a)?)[ \t]*"
        rf"([^\s;&|]{{0,120}}(?:{_SECRET_WORD}|(?i:pass)|\.key\b)[^\s;&|]{{0,60}})",
        1,
        _keep_written,
        line_words=("echo", "printf"),
    ),
    # a REPL's line that reads a secret, then the value it echoes: >>> keyring.get_password('imap', 'me') / '...'
    Place(
        "echoed-secret",
        r"^(?:>>>|In[ \t]\[\d{1,4}\]:|irb\([^)\n]{0,40}\)[^>\n]{0,10}>|\[\d{1,4}\][ \t]pry\([^)\n]{0,40}\)>|>)[ \t]*"
        rf"([^\n]{{0,160}}{_SECRET_WORD}[^\n]{{0,80}})\r?\n(?:Out\[\d{{1,4}}\]:[ \t]*|=>[ \t]*)?"
        r"([\"'])([^\"'\n]{4,256})\2[ \t]*$",
        3,
        _keep_echoed,
        text_words=(">>>", "in [", "irb(", "pry(", "> "),
    ),
]


# requests' auth=("user", "pw"), HTTPBasicAuth("user", "pw"), smtp.login("user", "pw"); PHP define('DB_PASSWORD', ...)
CREDENTIAL_CALLS: list[Place] = [
    Place(
        "auth-call",
        r"(?:\bauth\s*=\s*[(\[]|\b(?:HTTPBasicAuth|HTTPDigestAuth|HTTPProxyAuth|BasicAuth|DigestAuth)\s*\(|"
        r"\.(?:login|authenticate|(?i:(?:set_?|with_?)?basic_?auth|basic)|set_credentials)\s*\()\s*"
        r"(?:\"[^\"\n]{0,128}\"|'[^'\n]{0,128}'|[\w.\[\]'\"]{1,128})\s*,\s*(?:Some\(\s*)?(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        1,
        keep_value(1),
        text_words=(
            "auth=",
            "auth =",
            "auth(",
            "auth (",
            "login(",
            "login (",
            "authenticate(",
            "credentials(",
            ".basic(",
        ),
    ),
    Place(
        "define-secret",
        r"(?i)\bdefine\s*\(\s*['\"]\w{0,40}(?:password|passwd|pass|secret|key|salt|token|auth)\w{0,40}['\"]\s*,\s*"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        1,
        keep_value(1),
        text_words=("define",),
    ),
]
