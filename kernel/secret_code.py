"""Secrets written in source code and scripts (issue 36), beside ``kernel.secret_places``.

- **subscripts**: ``os.environ["API_KEY"] = "..."``, ``config["db"]["password"] = '...'``;
- **calls that take a name and a value**: ``props.put("password", "...")``,
  ``setenv("API_TOKEN", "...")``, ``headers.set("X-Api-Key", "...")``;
- **setters and builders named for the secret**: ``ds.setPassword("...")``,
  ``.api_key("...")``, ``opts.WithToken("...")``;
- **expect scripts**: the line sent after a password prompt;
- **JSON Web Keys**: the private members of a key that names its ``"kty"``.

A name whose last word is not a secret's counts only with a token-shaped value
(``keep_named_value``). Plain data.
"""

from __future__ import annotations

import re

from kernel.secret_places import NAME_CHARS, SECRET_NAME, Place, keep_first_value, keep_named_value

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
        rf"(?i)\b(?:put|setProperty|setenv|putenv|setdefault|set|add|append|setHeader|header|add_header|setItem|insert)"
        rf"[ \t]{{0,4}}\([ \t]{{0,4}}[\"']({NAME_CHARS}{{0,60}}{SECRET_NAME}{NAME_CHARS}{{0,60}})[\"'][ \t]{{0,4}},"
        r"[ \t]{0,4}(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        2,
        keep_named_value,
        line_words=("put", "set", "add", "append", "header", "insert"),
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
]
