"""Secrets in the places particular tools keep or show them (issue 36), beside ``kernel.redaction.source_code``.

- **CI logs**: a runner's debug log that evaluates ``secrets.NAME`` and prints its ``Result: '...'``
  on the next line;
- **secret-store command lines**: ``pulumi config set --secret NAME VALUE``, ``doppler secrets set NAME VALUE``,
  ``fly secrets set NAME=VALUE`` (a store's value is a secret whatever its name);
- **secret stores' value flags**: ``drone secret add --data V``, ``kubectl create secret --from-literal=K=V``,
  ``aws secretsmanager create-secret --secret-string V``, ``az keyvault secret set --value V``;
- **an XML element named for a password**: a Windows answer file's ``<AdministratorPassword><Value>PW</Value>``,
  ``<Password>PW</Password>`` (a value that is code, a placeholder or words stays);
- **wallet keys**: a 64-digit hex private key in a wallet's list (``accounts: ['0x...']``) or named for one;
- **three-part bot tokens**: ``<id>.<time>.<hmac>`` (Discord's shape), random in each part;
- **a long random key given first to a client**: ``new Client("<key of 40 characters or more>", ...)``;
- **a secret a command prints** (``kernel.redaction.command_output``, included here): the line below ``pass show``,
  ``security find-generic-password -w``, ``kubectl get secret ... | base64 -d``, ``echo $DB_PASSWORD``,
  ``gh auth token``, ``cat config/master.key``.

Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.command_output import COMMAND_OUTPUT
from kernel.redaction.entropy import high_entropy, token_shaped
from kernel.redaction.places import SECRET_NAME, Place
from kernel.redaction.values import about_a_secret, value_is_code

_SECRET_NAME = re.compile(rf"(?i){SECRET_NAME}")


def _keep_store_value(match: re.Match[str]) -> bool:
    """A store that holds only secrets, or a ``--secret`` flag, or a secret's name: its value, unless code."""
    name, value = match.group(1), match.group(2)
    if value_is_code(value) or about_a_secret(name):
        return True
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    line_end = match.string.find("\n", match.end())
    line = match.string[line_start : len(match.string) if line_end == -1 else line_end]
    if re.match(r"(?i)pulumi", match.group(0)):
        return "--secret" not in line and _SECRET_NAME.search(name) is None
    return False


def _keep_xml_value(match: re.Match[str]) -> bool:
    """A name about a secret (``<PasswordExpires>``), a value that is code, or masked (Windows Setup's logs write
    ``*SENSITIVE*DATA*DELETED*``)."""
    value = match.group(2)
    return about_a_secret(match.group(1)) or value_is_code(value) or (value[:1] == "*" and value[-1:] == "*")


TOOLS: list[Place] = [
    *COMMAND_OUTPUT,  # a secret a command prints (kernel.redaction.command_output)
    # an XML element named for a password, its value inside or in a <Value> child: a Windows answer file's
    # <AdministratorPassword><Value>PW</Value>, <AutoLogon><Password>..., Maven's <password>PW</password>,
    # a Wi-Fi profile's <keyMaterial>PSK</keyMaterial> (netsh, Intune)
    Place(
        "xml-password",
        r"(?i)<((?:[\w.-]{1,40}:)?[\w.-]{0,40}(?:password|passwd|pwd|passphrase|secret|secretkey|apikey|api_key|"
        r"accesskey|keymaterial|presharedkey|psk))"
        r"(?:[ \t][^<>\n]{0,200})?>[ \t]*(?:\r?\n[ \t]{0,40})?(?:<value>[ \t]*)?([^<>\s]{1,256})[ \t]*</",
        2,
        _keep_xml_value,
        text_words=(
            "password",
            "passwd",
            "pwd",
            "passphrase",
            "secret",
            "apikey",
            "api_key",
            "accesskey",
            "keymaterial",
            "presharedkey",
            "psk>",
        ),
    ),
    # a CI runner's debug log: "##[debug]Evaluating: secrets.API_KEY" then "##[debug]Result: '...'"
    Place(
        "ci-secret",
        r"(?i)evaluating:[ \t]{0,8}[^\n]{0,60}?\bsecrets\.[\w-]{1,100}[^\n'\"]{0,60}\r?\n"
        r"[^\n]{0,80}?\bresult:[ \t]{0,8}'([^'\n]{1,512})'",
        1,
        lambda match: value_is_code(match.group(1)),
        text_words=("secrets.",),
    ),
    # a secret store's command line: pulumi config set --secret NAME VALUE, doppler secrets set NAME VALUE
    Place(
        "cli-secret",
        r"(?i)\b(?:pulumi[ \t]+config|doppler[ \t]+secrets|infisical[ \t]+secrets|(?:fly|flyctl)[ \t]+secrets|"
        r"railway[ \t]+variables)[ \t]+set[ \t]+(?:--?(?:secret|plaintext|path|silent)[ \t]+|--?[\w-]{1,30}[ \t]+"
        r"(?!-)[^\s=]{1,100}[ \t]+)*?(?!-)(\[REDACTED:[\w:-]{1,60}\]|[\w.:-]{1,100})"  # the name (a flag's value?)
        r"(?:[ \t]+|=)(?!-)[\"']?([^\s\"']{1,256})",
        2,
        _keep_store_value,
        line_words=("pulumi", "doppler", "infisical", "fly", "railway"),
    ),
    # a secret store's value flag: drone/woodpecker secret add --data|--value V, kubectl create secret
    # --from-literal=K=V, aws secretsmanager --secret-string V, az keyvault secret set --value V
    Place(
        "cli-secret",
        r"(?i)\b(?:secrets?[ \t]+(?:add|set|create|update|put|store|write)|store-secret|"
        r"secretsmanager[ \t]+(?:create-secret|put-secret-value|update-secret))\b"
        r"[^\n|;&]{0,300}?[ \t](?:--(?:data|value|body|secret-string|secret-value|string|literal|contents)(?:[ \t]+|=)|"
        r"--from-literal[ \t=][\w.-]{1,60}=)[\"']?([^\s\"']{1,256})",
        1,
        lambda match: value_is_code(match.group(1)) or match.group(1) in ("-", "@-"),
        line_words=("secret",),
    ),
    # a wallet's private key: accounts: ['0x<64 hex>'], privateKey: "0x...", DEPLOYER_KEY=0x...
    Place(
        "wallet-key",
        r"(?i)\b(?:accounts|private[ \t_-]?keys?|priv[_-]?key|wallet[ \t_-]?key|signer[ \t_-]?key|deployer[ \t_-]?key)"
        r"\b[^\n\w]{0,12}?(?:0x)?([0-9a-fA-F]{64})(?![0-9a-zA-Z])",
        1,
        lambda match: not token_shaped(match.group(1)),
        line_words=("account", "priv", "wallet", "signer", "deployer"),
    ),
    # a bot token in three random parts: <24-28>.<6-7>.<27-40> (Discord's shape)
    Place(
        "bot-token",
        r"(?<![\w.-])([A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40})(?![\w.-])",
        1,
        lambda match: not high_entropy(match.group(1).replace(".", "")),
        gate=re.compile(r"\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27}"),
    ),
    # new Client("<a long random key>", ...): the first literal given to a client, when it is 40 characters or more
    Place(
        "client-token",
        r"(?i)\b\w{0,30}?(?:client|api|sdk|session)[ \t]*\([ \t]*[\"']([A-Za-z0-9._~+/=-]{40,256})[\"']",
        1,
        lambda match: not high_entropy(match.group(1)),
        line_words=("client", "api", "sdk", "session"),
    ),
]
