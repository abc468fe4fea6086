"""Passwords handed to a tool on a command line (issue 36).

- **a tool's own password flag**: ``mysql -pPW``, ``sshpass -p PW``, ``docker login -p PW``,
  ``redis-cli -a PW``, ``curl -u user:PW``, ``sqlcmd -P``, ``ldapsearch -w``, ``7z -pPW``,
  ``openssl -passin pass:``, ``keytool -storepass``, ``az login -p``, ``smbclient -U user%PW``,
  ``xfreerdp /p:PW``, ``rabbitmqctl add_user NAME PW``, ``htpasswd -b FILE NAME PW``,
  ``net user NAME PW``, ``net use \\\\H\\S /user:U PW``, ``ConvertTo-SecureString [-AsPlainText] PW``,
  ``schtasks /ru U /rp PW`` (and the other remote Windows tools' ``/p``), ``security add-generic-password -w PW``,
  ``security unlock-keychain -p PW``, ``networksetup -setairportnetwork IF SSID PW``, ``dscl . -passwd USER PW``,
  ``reg add KEY /v DefaultPassword /d PW`` (``Set-ItemProperty -Name DefaultPassword -Value PW``),
  ``ktpass /pass PW``, ``netsh wlan ... key=PW``, ``sc config SVC password= PW``;
- **a user then a password** as database, BMC and appliance tools take them: ``racadm -u U -p PW``,
  ``cqlsh -u U -p PW`` (a port after ``-p``, sudo's prompt, mysql's database after ``-p NAME`` stay);
- **tools that set a user's password from their arguments**: ``htpasswd -b`` and ``mosquitto_passwd -b FILE USER PW``,
  ``synouser --setpw USER PW``, ``ipmitool user set password ID PW``, ``mc admin user add``, ``racadm set ...Password``;
- **a password piped to a tool**: ``echo PW | sudo -S``, ``printf 'PW\\n%s' "$X" | smbpasswd -s``,
  ``... | openconnect --passwd-on-stdin``, ``... | docker login --password-stdin``,
  ``... | realm join``, ``... | kinit``, ``... | cryptsetup``, ``... | gpg --passphrase-fd 0``;
- **any flag named for a secret** (``--password PW``, ``--db-token=PW``), and any flag whose value
  is a high-entropy token;
- **a package manager's credential setting**: ``poetry config http-basic.REPO USER PW``,
  ``composer config github-oauth.HOST TOKEN``; a one-letter token flag given a UUID or hex (``-t <uuid>``);
- **a value pasted after a secret's flag in a comment** (``--token  # pasted: TOKEN``), and **a variable set to a
  literal then given as a password** (``set P=PW`` then ``net use \\\\h\\s %P% /user:U``, ``-p "$PW"``);
- **a password typed into a protocol's session**: SMTP ``AUTH PLAIN <base64>`` (or AUTH LOGIN's answer),
  IMAP ``a1 LOGIN user PW``, POP3's and FTP's ``PASS PW``;
- **netrc lines**, a password in a URL's userinfo, and typed defaults (``password: str = "..."``).

A value that refers to a secret (``$VAR``, ``env:X``, ``-``, a call) is kept. Plain data.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kernel.redaction.entropy import high_entropy, token_shaped, unquote
from kernel.redaction.places import Place
from kernel.redaction.values import keep_low_entropy, keep_value

# Matched anywhere (kind, pattern, secret group); ``recognisers_in_order`` compiles them with the token formats.
_QUOTED_OR_BARE = r"('[^'\n]{1,256}'|\"[^\"\n]{1,256}\"|[^\s'\"]{1,256})"
COMMANDS: list[tuple[str, str, int | tuple[int, ...]]] = [
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
    # Samba's "user%password" (smbclient, rpcclient, net, winexe, smbmap): after -U or --user
    ("samba-user", r"\s(?:-U|--user(?:name)?)(?:\s+|=)['\"]?[^%\s'\"]{1,128}%([^\s'\"]{1,256})", 1),
    ("redis-cli", r"\bredis-cli\b[^\n|;&]{0,200}?\s-a\s+" + _QUOTED_OR_BARE, 1),
    (
        "curl-user",
        r"\b(?:curl|wget|http)\b[^\n|;&]{0,300}?\s(?:-[a-zA-Z]{0,6}u|--user)\s*['\"]?[^:\s'\"]{1,128}:([^\s'\"]{1,256})",
        1,
    ),
    # (after "show", --password is a switch that shows one: lpass show --password NAME)
    (
        "cli-flag",
        r"(?i)\b--(?<!show --)(?:password|passwd|pass|db-password|token|api-key|apikey|access-token|auth-token|"
        r"client-secret|secret|secret-key)(?:[ \t]+|=)(?![-$~/.<{#])" + _QUOTED_OR_BARE,
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


# A value on a command line: quoted, or bare up to a shell separator (a bare value never starts with '#').
VALUE = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|(?![#])[^\s'\"|&;<>]{1,256})"
_ARGS = r"[^\n|;&]{0,200}?"


def _tool(tools: str, flag: str) -> str:
    """``flag`` and its value, after one of ``tools`` on the same command."""
    return rf"(?<![\w/.-])(?:{tools})(?:\.exe)?(?![\w-]){_ARGS}\s{flag}{VALUE}"


_SECRET_FLAG_WORDS = (
    r"password|passwd|passphrase|pass|pwd|secret|secret-?key|token|api-?key|apikey|auth-?key|authkey|"
    r"access-?key|private-?key|client-?secret|requirepass|masterauth|masterpass"
)
_WEAK_FLAG = re.compile(r"(?i)token|key")


_KEEP_SECOND = keep_value(2)


def _keep_flag(match: re.Match[str]) -> bool:
    value = unquote(match.group(2) or "")
    if _KEEP_SECOND(match):
        return True
    # --max-token 5, --key id_rsa.pub: a token or key flag keeps counts and file names
    return bool(_WEAK_FLAG.search(match.group(1))) and (value.isdigit() or bool(re.search(r"\.\w{2,4}$", value)))


_PORT_OR_IDS = re.compile(r"[\d.:,-]{1,64}(?:/(?:tcp|udp|sctp))?")


# before -u: sudo's -p is a prompt; mysql's "-p NAME" (a space) prompts for the password and NAME is a database
_PROMPTING_TOOL = re.compile(r"\b(?:sudo|mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlsh)\b")


def _keep_user_then_password(match: re.Match[str]) -> bool:
    """A port (-p 5432, -p 8080:80), a pid list, sudo's prompt or mysql's database after -p is no password."""
    if _PORT_OR_IDS.fullmatch(unquote(match.group(1) or "")):
        return True
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    before = match.string[max(line_start, match.start() - 300) : match.start()]
    return bool(_PROMPTING_TOOL.search(before)) or _KEEP_FIRST(match)


_KEEP_FIRST = keep_value(1)


# Where a variable is given as a password: net use \\h\s %P%, -p "$PW", /p:%PW%, --password=$PW
_PASSWORD_USE = r"(?:\bnet[ \t]+use[^\n]{0,300}?[ \t]|[ \t][-/]{1,2}p(?:ass(?:word)?|w|wd)?[ \t:=]{1,3}[\"']?)"
_VARIABLE_AS_PASSWORD = re.compile(r"(?i)" + _PASSWORD_USE + r"[%$]")


def _keep_unless_given_as_a_password(match: re.Match[str]) -> bool:
    """A variable set to a literal counts only where the text gives it as a password, at its first use."""
    if _KEEP_SECOND(match):
        return True
    name = re.escape(match.group(1))
    use = re.compile(r"(?i)" + _PASSWORD_USE + r"(?:%" + name + r"%|\$\{?" + name + r"\b)")
    return use.search(match.string, match.end(), match.end() + 1400) is None


def _keep_windows_setting(match: re.Match[str]) -> bool:
    """netsh's key=clear (show the key) is an option, not a key."""
    return unquote(match.group(1) or "").lower() in ("clear", "none") or _KEEP_FIRST(match)


def _keep_not_token_shaped(match: re.Match[str]) -> bool:
    return not token_shaped(match.group(1))


_RULES: list[tuple[str, str, int, Callable[[re.Match[str]], bool] | None, tuple[str, ...]]] = [
    (
        "cli-password",
        _tool(r"sqlcmd|bcp|osql|isql|ipmitool|zip|unzip|zipcloak", r"-P\s*"),
        1,
        keep_value(1),
        ("sqlcmd", "bcp", "osql", "isql", "ipmitool", "zip"),
    ),
    ("cli-password", _tool(r"7z|7za|7zz|7zr|rar|unrar|winrar", r"-p(?=[^\s-])"), 1, keep_value(1), ("7z", "rar")),
    ("cli-password", _tool(r"ldap[a-z]{0,12}", r"-w\s*"), 1, keep_value(1), ("ldap",)),
    # the new and old passwords ldappasswd sets (-s, -a), the one slappasswd hashes (-s)
    ("cli-password", _tool(r"ldappasswd|slappasswd", r"-[as]\s*"), 1, keep_value(1), ("ldappasswd", "slappasswd")),
    # a guest's or a host's password: vmrun -gu USER -gp PW; bitsadmin /setcredentials JOB TARGET SCHEME USER PW
    ("cli-password", _tool(r"vmrun", r"-[gv]p\s+"), 1, keep_value(1), ("vmrun",)),
    (
        "cli-password",
        r"(?i)\bbitsadmin(?:\.exe)?\s+/setcredentials\s+\S{1,128}\s+\S{1,20}\s+\S{1,20}\s+\S{1,256}\s+" + VALUE,
        1,
        keep_value(1),
        ("bitsadmin",),
    ),
    (
        "cli-password",
        _tool(
            r"psexec|psexec64|paexec|rdesktop|winexe|mongo|mongosh|mongodump|mongorestore|mongoimport|mongoexport",
            r"-p\s*",
        ),
        1,
        keep_value(1),
        ("psexec", "paexec", "rdesktop", "winexe", "mongo"),
    ),
    (
        "cli-password",
        _tool(
            r"az\s+login|oc\s+login|cf\s+login|argocd\s+login|influx|heroku\s+login|vault\s+login",
            r"(?:-p|-password|--password)(?:\s+|=)",
        ),
        1,
        keep_value(1),
        ("login", "influx"),
    ),
    ("cli-password", _tool(r"ssh-keygen", r"-[NP]\s*"), 1, keep_value(1), ("ssh-keygen",)),
    ("cli-password", _tool(r"openssl", r"-k\s+"), 1, keep_value(1), ("openssl",)),
    (
        "cli-password",
        _tool(r"smbclient|rpcclient|smbmap|smbget|smbcacls|crackmapexec|nxc|netexec", r"-U\s*[^%\s'\"]{1,128}%"),
        1,
        keep_value(1),
        ("smb", "rpcclient", "crackmapexec", "nxc", "netexec"),
    ),
    (
        "cli-password",
        _tool(r"xfreerdp|wfreerdp|sdl-freerdp|freerdp|wmic|cmdkey", r"/p(?:ass(?:word)?)?:"),
        1,
        keep_value(1),
        ("freerdp", "wmic", "cmdkey"),
    ),
    (
        "cli-password",
        r"(?<=\s)-(?:passin|passout|pass|password|passphrase|storepass|keypass|srcstorepass|deststorepass|"
        r"srckeypass|destkeypass|kspass|keystorepass|truststorepass)(?:\s+|=|:)(?:pass:)?" + VALUE,
        1,
        keep_value(1),
        ("-pass", "storepass", "keypass", "kspass"),
    ),
    (
        "cli-password",
        r"\brabbitmqctl\s+(?:-\S{1,40}\s+){0,4}(?:add_user|change_password)\s+\S{1,128}\s+" + VALUE,
        1,
        keep_value(1),
        ("rabbitmqctl",),
    ),
    (
        "cli-password",
        r"\b(?:htpasswd|mosquitto_passwd)\s+-[a-zA-Z]{0,4}b[a-zA-Z]{0,4}(?:\s+-[a-zA-Z]{1,4}){0,3}\s+\S{1,256}\s+"
        r"[^\s'\"]{1,128}\s+" + VALUE,
        1,
        keep_value(1),
        ("htpasswd", "mosquitto_passwd"),
    ),
    (
        "cli-password",
        r"(?i)\bnet\s+user\s+(?:/\w{1,10}\s+){0,2}(?!/)[^\s/]{1,64}\s+(?![/*])" + VALUE,
        1,
        keep_value(1),
        ("net",),
    ),
    (
        "cli-password",
        r"(?i)\bnet\s+use\s+(?:[A-Z]:\s+|\*\s+)?\\\\\S{1,256}\s+(?:/\w{1,20}(?::\S{0,256})?\s+){0,4}(?![/*])" + VALUE,
        1,
        keep_value(1),
        ("net",),
    ),
    (
        "piped-password",
        r"\b(?:echo|printf)\s+(?:-[a-z]{1,3}\s+)?(?:(?:'%s(?:\\n)?'|\"%s(?:\\n)?\")\s+)?"
        + VALUE
        # more arguments after it: printf 'PW\n%s\n' "$CONFIRM" | smbpasswd -s
        + r"(?:\s+(?:\"[^\"\n|]{0,64}\"|'[^'\n|]{0,64}'|[^\s|'\"]{1,64})){0,3}\s*\|\s*"
        r"(?:sudo\b[^|\n]{0,80}?\s-[a-zA-Z]{0,4}S\b|[^|\n]{0,200}?--password-stdin\b|[^|\n]{0,40}?\bchpasswd\b|"
        r"passwd\b[^|\n]{0,60}--stdin|[^|\n]{0,80}?\bsecrets?\s+(?:put|set|create)\b|"
        # tools that read a password from their standard input: joining a domain, kinit, smbpasswd -s, a LUKS volume
        r"[^|\n]{0,40}?\b(?:realm\s+join|adcli\s+join|net\s+ads\s+join|kinit|smbpasswd|cryptsetup|ldappasswd|"
        r"ipa-join|ipa\s+user-mod)\b|[^|\n]{0,200}?(?:--stdin-passw\w{0,4}|--passw(?:or)?d-(?:on-|from-)?(?:stdin|fd)|"
        r"--passphrase-fd|-passin\s+(?:stdin|fd:0)))",
        1,
        keep_value(1),
        ("echo", "printf"),
    ),
    # the same fed by a here-string to what reads a password, or by a process substitution to a flag that names
    # one: vncpasswd -f <<< PW, kinit bob <<< PW, --vault-password-file <(echo PW), --auth-user-pass <(printf 'u\nPW')
    (
        "piped-password",
        r"(?i)\b(?:\w{0,20}passw\w{0,10}|kinit|sudo[ \t]+-\w{0,4}S|[^\n<]{0,200}?--password-stdin)\b[^\n<]{0,120}?"
        r"<<<[ \t]*" + VALUE,
        1,
        keep_value(1),
        ("<<<",),
    ),
    (
        "piped-password",
        r"(?i)(?<![\w-])--?[\w-]{0,30}(?:pass|secret|auth|key|token)[\w-]{0,30}[ \t=]+<\([ \t]*(?:echo|printf)[ \t]+"
        r"(?:-[a-z]{1,3}[ \t]+)?(?:[\"'][^\s\"'\\]{1,64}\\n)?"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s'\"|&;<>()\\]{1,256})",
        1,
        keep_value(1),
        ("<(",),
    ),
    (
        "cli-password",
        r"(?i)\bConvertTo-SecureString\s+(?:-String\s+)?" + VALUE + r"\s+-AsPlainText",
        1,
        keep_value(1),
        ("convertto-securestring",),
    ),
    # and piped to it: 'PW' | ConvertTo-SecureString -AsPlainText -Force
    (
        "cli-password",
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')[ \t]*\|[ \t]*(?i:ConvertTo-SecureString)\b[^\n|]{0,80}?"
        r"(?i:-AsPlainText)",
        1,
        keep_value(1),
        ("convertto-securestring",),
    ),
    # the same with its switches first: ConvertTo-SecureString -AsPlainText -Force 'PW', -String PW
    (
        "cli-password",
        r"(?i)\bConvertTo-SecureString\s+(?:-(?:AsPlainText|Force)(?::\$true)?\s+){1,2}(?:-String\s+)?(?!-)" + VALUE,
        1,
        keep_value(1),
        ("convertto-securestring",),
    ),
    # Windows tools run on another machine as a user: schtasks /ru USER /rp PW, taskkill /s H /u U /p PW,
    # netdom join /PasswordD:PW, winrs -p:PW (a '*' asks for it)
    (
        "cli-password",
        _tool(
            r"schtasks|tasklist|taskkill|systeminfo|getmac|eventcreate|gpresult|openfiles|driverquery|setx|netdom|"
            r"winrs|waitfor|eventquery|ktpass|ksetup",
            r"[/-](?:rp|p|pw|pwd|pass|passwd|password|password[do]|p[do])(?::|\s+)(?![/*])",
        ),
        1,
        keep_value(1),
        (
            "schtasks",
            "tasklist",
            "taskkill",
            "systeminfo",
            "getmac",
            "eventcreate",
            "gpresult",
            "openfiles",
            "driverquery",
            "setx",
            "netdom",
            "winrs",
            "waitfor",
            "eventquery",
            "ktpass",
            "ksetup",
        ),
    ),
    # a registry value named for a password: reg add KEY /v DefaultPassword /t REG_SZ /d PW, and PowerShell's
    # Set-ItemProperty / New-ItemProperty -Name DefaultPassword -Value PW (Winlogon's auto-logon, a service's setting)
    (
        "cli-password",
        r"(?i)\breg(?:\.exe)?\s+add\s[^\n|&]{0,300}?/v\s+(\"?)\w{0,40}(?:password|passwd|pwd|secret|token|apikey)\1"
        r"\s[^\n|&]{0,100}?/d\s+" + VALUE,
        2,
        keep_value(2),
        ("reg",),
    ),
    (
        "cli-password",
        r"(?i)\b(?:set|new)-itemproperty\s[^\n|]{0,300}?-name\s+(['\"]?)\w{0,40}(?:password|passwd|pwd|secret|token|apikey)"
        r"\1\s[^\n|]{0,200}?-value\s+" + VALUE,
        2,
        keep_value(2),
        ("itemproperty",),
    ),
    # macOS keychains: security add-generic-password ... -w PW, unlock-keychain -p PW, import ... -P PW
    (
        "cli-password",
        _tool(r"security\s+add-(?:generic|internet)-password", r"-[wX]\s+(?!-)"),
        1,
        keep_value(1),
        ("-password",),
    ),
    (
        "cli-password",
        _tool(r"security\s+(?:unlock-keychain|create-keychain|set-keychain-password)", r"-[po]\s+(?!-)"),
        1,
        keep_value(1),
        ("keychain",),
    ),
    ("cli-password", _tool(r"security\s+(?:import|export)", r"-P\s+(?!-)"), 1, keep_value(1), ("security",)),
    # a Wi-Fi network joined with its key, a user's password set: networksetup, dscl . -passwd USER [OLD] NEW
    (
        "cli-password",
        r"(?i)\bnetworksetup\s+-setairportnetwork\s+\S{1,64}\s+(?:\"[^\"\n]{1,64}\"|'[^'\n]{1,64}'|[^\s'\"]{1,64})\s+"
        + VALUE,
        1,
        keep_value(1),
        ("networksetup",),
    ),
    ("cli-password", r"(?i)\bdscl\s+\S{1,128}\s+-passwd\s+\S{1,256}\s+" + VALUE, 1, keep_value(1), ("dscl",)),
    (
        "cli-password",
        r"(?i)\bdscl\s+\S{1,128}\s+-passwd\s+\S{1,256}\s+\S{1,256}\s+" + VALUE,
        1,
        keep_value(1),
        ("dscl",),
    ),
    (
        "cli-flag",
        rf"(?i)(?<![\w-])--(?<!show --)(?!no-)((?:[a-z0-9]{{1,20}}-){{0,3}}(?:{_SECRET_FLAG_WORDS}))(?:\s+|=)" + VALUE,
        2,
        _keep_flag,
        ("--",),
    ),
    # the same with one dash, as X11, Java and OpenSSL tools write it: -passwd PW, -storepass PW, -pw PW
    (
        "cli-flag",
        r"(?i)(?<![\w-])-(?!no-)((?:[a-z0-9]{1,20}[-_]?){0,2}(?:password|passwd|passphrase|pass|pwd|pw|secret))"
        r"(?:\s+|=)(?!-)" + VALUE,
        2,
        _keep_flag,
        ("-pass", "pass ", "pass=", "-pw", "pwd", "secret", "password ", "password=", "passwd ", "passphrase "),
    ),
    # a user then a password, as database, BMC and appliance tools take them: racadm -r H -u root -p PW,
    # cqlsh H -u U -p PW, mongo -u U -p PW, influx -username U -password PW (a port's digits after -p stay)
    (
        "cli-password",
        # (-u with -p, -U with -P, --user with --password: grep -u ... -P is a regex)
        r"(?<![\w-])(?:-u(?:\s+|=)(?!-)\S{1,128}\s+(?:-[a-zA-Z]\s+(?!-)\S{1,128}\s+){0,2}?-p|"
        r"-U(?:\s+|=)(?!-)\S{1,128}\s+(?:-[a-zA-Z]\s+(?!-)\S{1,128}\s+){0,2}?-P|"
        r"--?user(?:name)?(?:\s+|=)(?!-)\S{1,128}\s+(?:-[a-zA-Z]\s+(?!-)\S{1,128}\s+){0,2}?--?pass(?:word|wd)?)"
        r"(?:\s+|=)(?!-)" + VALUE,
        1,
        _keep_user_then_password,
        ("-u", "-user", "-U"),
    ),
    # tools that set a user's password from their arguments: synouser --setpw USER PW, ipmitool user set password
    # ID PW, mc admin user add ALIAS USER PW, racadm set iDRAC.Users.2.Password PW
    (
        "cli-password",
        r"(?i)(?:\bsynouser\s+--(?:setpw|add)\s+\S{1,128}|\bipmitool\b[^\n|;&]{0,200}?\buser\s+set\s+password\s+\d{1,3}|"
        r"\bmc\s+admin\s+user\s+add\s+\S{1,128}\s+\S{1,128}|\bracadm\b[^\n|;&]{0,200}?\sset\s+\S{0,80}password)\s+"
        + VALUE,
        1,
        keep_value(1),
        ("synouser", "ipmitool", "mc admin", "racadm"),
    ),
    # Windows' own key and password settings: netsh wlan ... key=PW (keyMaterial=), sc config SVC password= PW
    (
        "cli-password",
        r"(?i)(?:\bnetsh(?:\.exe)?\b[^\n|&]{0,300}?\b(?:key|keymaterial|password|psk)=|"
        r"\bsc(?:\.exe)?\s+(?:\\\\\S{1,128}\s+)?(?:config|create)\s[^\n|&]{0,300}?\bpassword=\s{0,4})" + VALUE,
        1,
        _keep_windows_setting,
        ("netsh", "password="),
    ),
    # a password typed into a mail or file protocol's session: SMTP's AUTH PLAIN <base64> (and the base64 answer to
    # AUTH LOGIN's "334 UGFzc3dvcmQ6", Password:), IMAP's "a1 LOGIN user PW", POP3's and FTP's PASS after +OK or 331
    (
        "protocol-password",
        r"(?m)^[ \t]{0,8}(?:C:[ \t]{0,4})?(?:AUTH[ \t]+PLAIN[ \t]+|334[ \t]+UGFzc3dvcmQ6[ \t\r]*\n[ \t]{0,8}"
        r"(?:C:[ \t]{0,4})?)([A-Za-z0-9+/]{8,512}={0,2})[ \t\r]*$",
        1,
        None,
        ("auth plain", "ugfzc3dvcmq6"),
    ),
    (
        "protocol-password",
        r"(?m)^[ \t]{0,8}(?:C:[ \t]{0,4})?(?:[A-Za-z]{1,4}\d{1,6}|\.)[ \t]+(?i:login)[ \t]+"
        r"(?:\"[^\"\n]{1,256}\"|\S{1,256})[ \t]+" + VALUE + r"[ \t\r]*$",
        1,
        keep_value(1),
        (" login ",),
    ),
    (
        "protocol-password",
        r"(?m)^[ \t]{0,8}(?:C:[ \t]{0,4})?PASS[ \t]+" + VALUE + r"[ \t\r]*$",
        1,
        keep_value(1),
        ("+ok", "331 "),
    ),
    # a flag named for a secret left empty, its value pasted in the comment after it: --token  # pasted: <token>
    (
        "cli-token",
        r"(?i)(?<![\w-])--?[\w-]{0,30}(?:token|password|passwd|secret|api-?key)[ \t]{1,8}#[^\n]{0,60}?[:=]?[ \t]"
        r"([A-Za-z0-9_\-+/=.]{20,256})[ \t]*$",
        1,
        lambda match: not (token_shaped(match.group(1)) or high_entropy(match.group(1))),
        ("#",),
    ),
    # a package manager's credential setting: poetry/composer config http-basic.REPO USER PW, pypi-token.REPO TOKEN
    (
        "cli-password",
        r"(?i)\b(?:poetry|composer|pdm)\s+config\s+(?:--?[\w-]{1,20}\s+){0,3}"
        r"(?:http-basic\.\S{1,128}\s+\S{1,128}|(?:pypi-token|github-oauth|gitlab-token|gitlab-oauth|bearer)\.\S{1,128})\s+"
        + VALUE,
        1,
        keep_value(1),
        ("poetry", "composer", "pdm"),
    ),
    # any flag whose value is a random token (each rule here runs only on a text that holds one of its words)
    (
        "cli-token",
        r"(?<![\w-])--?[A-Za-z][\w-]{0,30}(?:\s+|=)[\"']?([A-Za-z0-9+/_~.=-]{20,256})(?![\w+/~=.-])",
        1,
        keep_low_entropy(1),
        ("-",),
    ),
]
COMMAND_LINES = [Place(kind, pattern, group, keep, text_words=words) for kind, pattern, group, keep, words in _RULES]
# an API's key given as curl's user with no password (Stripe, Mixpanel, Mailgun's way): curl -u KEY: URL
COMMAND_LINES.append(
    Place(
        "curl-user",
        r"\b(?:curl|http)\b[^\n|;&]{0,300}?\s(?:-[a-zA-Z]{0,6}u|--user)\s*['\"]?([A-Za-z0-9_+/=.-]{16,256}):(?=[\s'\"]|$)",
        1,
        _keep_not_token_shaped,
        text_words=("curl", "http"),
    )
)
# a CLI that stores a credential from its arguments: confluent api-key store KEY SECRET, <tool> secret set NAME VALUE
COMMAND_LINES.append(
    Place(
        "cli-token",
        r"(?i)\b(?:api-keys?|apikeys?|keys?|tokens?|secrets?|credentials?)[ \t]+(?:store|set|add|put|import|save)[ \t]+"
        r"(?:--?[\w-]{1,30}(?:[ \t]+|=)[^\s-]\S{0,128}[ \t]+){0,3}[\w.-]{2,128}[ \t]+"
        r"[\"']?([A-Za-z0-9+/=_.~-]{16,256})[\"']?(?![\w+/=.~-])",
        1,
        _keep_not_token_shaped,
        line_words=("store", "set", "add", "put", "import", "save"),
    )
)
# a one-letter token or key flag (-t, -k) given a UUID or a long hex: codecov's -t, an uploader's -k
COMMAND_LINES.append(
    Place(
        "cli-token",
        r"(?<![\w-])-[tkTK](?:\s+|=)[\"']?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|"
        r"[0-9a-fA-F]{32,64})(?![\w-])",
        1,
        _keep_not_token_shaped,
        gate=re.compile(r"-[tkTK][ \t=]+[\"']?[0-9a-fA-F]{8}"),
    )
)
# a batch or shell variable set to a literal, then given as a password further down: set P=PW ... net use \\h\s
# %P% /user:U, PW=... then sshpass -p "$PW"
COMMAND_LINES.append(
    Place(
        "cli-password",
        r"(?im)^[ \t]{0,8}(?:set[ \t]+\"?|export[ \t]+)?([A-Za-z_]\w{0,30})=(?![$%])" + VALUE + r"\"?[ \t]*$"
        r"(?=[\s\S]{0,1000}?(?:%\1%|\$\{?\1\b))",
        2,
        _keep_unless_given_as_a_password,
        gate=_VARIABLE_AS_PASSWORD,
    )
)
