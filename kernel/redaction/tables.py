"""Secrets in tables: a CSV (or tab- or ';'-separated) column named for a credential, and SQL ``INSERT`` rows.

A header line whose cells are all names, one of them a credential's (``password``,
``secret access key``, ``api_key``, ``token``), makes the same column of the rows
below it (same number of cells, up to a blank line) a secret: the AWS console's
credentials CSV, a users export, a spreadsheet pasted as text; a data frame printed with its columns aligned by
spaces (pandas, R, polars' box-drawn frames) has the cells under such a name redacted, on every row. An ``INSERT INTO
t (name, password) VALUES ('bob', '...')`` redacts the quoted values of such
columns, in each row of a dump that writes one row to a line. Called by ``kernel.redaction.multiline_blocks``.
``NAME_VALUE_ROWS`` (a context rule) takes the rows of a name/value table instead: ``| DB_PASSWORD | ... |``,
a Markdown or tab-separated row whose first cell names the secret (Django's debug page: ``SECRET_KEY<TAB>'...'``),
or a two-column dump aligned with spaces. Plain module.
"""

from __future__ import annotations

import csv
import re

from kernel.redaction.entropy import unquote
from kernel.redaction.places import Place
from kernel.redaction.recogniser import MARKER_PREFIX
from kernel.redaction.values import about_a_secret, looks_random, value_is_code

_SECRET_COLUMN = re.compile(
    r"(?i)^(?:[a-z ]{0,20}[ _-])?(?:password|passwd|pwd|pass|passphrase|secret|secret[ _-]access[ _-]key|"
    r"api[ _-]?key|access[ _-]?token|auth[ _-]?token|token|client[ _-]?secret|private[ _-]?key)$"
)
_NAME_CELL = re.compile(r"[A-Za-z][A-Za-z0-9 _.-]{0,40}")
_WORDS = ("password", "passwd", "pwd", "pass", "secret", "api", "token", "private")
_INSERT = re.compile(
    r"(?i)\binsert[ \t]+into[ \t]+[\w.\"`\[\]]{1,128}[ \t]*\(([^()\n]{1,1000})\)[ \t]*values[ \t]*\r?\n?[ \t]*"
    # one row, or a dump's rows one to a line: "(1, 'a'),\n(2, 'b');"
    r"\(((?:[^\n]{1,4000}\)[ \t]*,[ \t]*\r?\n[ \t]*\(){0,1000}[^\n]{1,4000}?)\)[ \t]*(?:;|$)",
    re.MULTILINE,
)
_NEXT_ROW = re.compile(r"\)[ \t]*,[ \t]*\r?\n[ \t]*\(")
_SQL_VALUE = re.compile(r"[ \t]*(?:'(?:[^'\n]|'')*'|[^,']*)[ \t]*")


# A note in brackets instead of a value: "(in vault)", "(see 1Password)", "(ask ops)", "(in 1Password: Infra/vCenter)".
_NOTE = re.compile(r"\((?:[\w.:/@-]+ )+[\w.:/@-]+\)")
# ... or without brackets, a few words that say where the secret is kept: "in 1Password", "see vault", "ask ops",
# "stored in Bitwarden", "kept in the safe".
_POINTER_NOTE = re.compile(
    r"(?i)(?:(?:stored|kept|saved|held|look|find it|it's|is)[ \t]{1,4})?(?:in|see|ask|from|via|check|per|under|on)"
    r"(?:[ \t]{1,4}[\w.:/@-]{1,40}){1,5}"
)


def _is_note(value: str) -> bool:
    return _NOTE.fullmatch(value) is not None or _POINTER_NOTE.fullmatch(value) is not None


_BORDER = re.compile(r"[+|:=-]*-{3}[+|:=-]*")


def _cells(line: str, separator: str) -> list[str]:
    return next(csv.reader([line], delimiter=separator)) if '"' in line else line.split(separator)


def _looks_secret(value: str) -> bool:
    """A cell that could be a password: not a marker, not code, and not a plain word ("string", "required")."""
    if value.startswith(MARKER_PREFIX) or value_is_code(value) or _is_note(value):
        return False
    return len(value) >= 12 or any(not c.isalpha() for c in value)


def _secret_columns(line: str) -> tuple[str, set[int]] | None:
    for separator in (",", "\t", ";", "|"):
        if line.count(separator) < 1:
            continue
        cells = [c.strip().strip('"') for c in _cells(line.strip().strip("|"), separator)]
        if len(cells) < 2 or not all(_NAME_CELL.fullmatch(c) for c in cells):
            continue
        columns = {n for n, c in enumerate(cells) if _SECRET_COLUMN.match(c)}
        if columns:
            return separator, columns
    return None


def _all_names(previous: str, line: str) -> bool:
    """``previous`` is a line of names with as many cells as ``line`` has, for one of the separators."""
    for separator in (",", "\t", ";", "|"):
        if line.count(separator) and previous.count(separator) == line.count(separator):
            cells = [c.strip().strip('"') for c in previous.strip().strip("|").split(separator)]
            if all(_NAME_CELL.fullmatch(c) for c in cells):
                return True
    return False


def _redact_row(line: str, separator: str, columns: set[int], count: int, marker: str) -> str | None:
    """``line`` with its secret cells replaced, or None when it is not a row of the table."""
    framed = line.strip().startswith("|") and separator == "|"
    body = line.strip().strip("|") if framed else line
    cells = _cells(body, separator)
    # a row whose cells a recogniser already joined into one marker ("AKIA...,secret" is one key pair) is shorter
    if len(cells) != count and not (MARKER_PREFIX in line and 2 <= len(cells) < count):
        return None
    joined_at = next((n for n, c in enumerate(cells) if MARKER_PREFIX in c), len(cells))
    changed = False
    for n in columns:
        # past a joined cell, the columns no longer line up with the header's
        value = cells[n].strip().strip('"') if n < len(cells) and (len(cells) == count or n < joined_at) else ""
        if value and not set(value) <= set("-: ") and _looks_secret(value):
            cells[n] = cells[n].replace(value, marker) if value in cells[n] else marker
            changed = True
    if not changed:
        return line
    joined = separator.join(c if separator not in c else f'"{c}"' for c in cells)
    return f"|{joined}|" if framed else joined


def redact_tables(text: str, marker: str) -> str:
    """The credential columns of CSV-like tables and of SQL INSERT rows, replaced by ``marker``."""
    lowered = text.lower()
    if not any(word in lowered for word in _WORDS):
        return text
    if "insert" in lowered and "values" in lowered:
        text = _INSERT.sub(lambda m: _insert(m, marker), text)
    if "\n" not in text:
        return text
    lines = text.split("\n")
    table: tuple[str, set[int], int] | None = None
    for number, line in enumerate(lines):
        if table is not None and _BORDER.fullmatch(line.strip()):
            continue  # a rule between the header and the rows, or between rows (Spark's show(), psql, MySQL)
        if table is not None:
            redacted = _redact_row(line, *table, marker) if line.strip() else None
            if redacted is not None:
                lines[number] = redacted
                continue
            table = None
        if len(line) <= 400 and any(word in line.lower() for word in _WORDS):
            if number and _secret_columns(lines[number - 1]) is None and _all_names(lines[number - 1], line):
                continue  # a row of names under a header of names (a schema: "password,string,yes"), not a header
            header = _secret_columns(line)
            if header is not None:
                separator, columns = header
                table = (separator, columns, len(_cells(line.strip().strip("|"), separator)))
    if "  " in text:
        _aligned_tables(lines, marker)
    return "\n".join(lines)


# A data frame printed as text (pandas, R, polars without borders): a header of names aligned with spaces, then
# rows whose cells stand under them, an index first.
_ALIGNED_NAME = re.compile(r"[A-Za-z_][\w.-]{0,40}")
_CELL = re.compile(r"\S{1,512}")


# A frame drawn with box characters (polars: "│ id ┆ password │", "╞═══╪═══╡"): read with blanks in their place.
_BOX_TO_BLANK = {code: " " for code in range(0x2500, 0x2580)}


def _unboxed(line: str) -> str:
    return line.translate(_BOX_TO_BLANK) if any("\u2500" <= c <= "\u257f" for c in line) else line


def _aligned_header(line: str) -> tuple[list[tuple[int, int]], int] | None:
    """The spans of the credential columns' names in a header aligned with spaces, and how many names it has."""
    line = _unboxed(line)
    if "  " not in line.strip() or len(line) > 400:
        return None
    names = list(_CELL.finditer(line))
    if len(names) < 2 or not all(_ALIGNED_NAME.fullmatch(n.group(0)) for n in names):
        return None
    spans = [n.span() for n in names if _SECRET_COLUMN.match(n.group(0))]
    return (spans, len(names)) if spans else None


def _aligned_value(value: str) -> bool:
    """A cell of an aligned table that could be a password: a digit or a symbol in it, not code, not a marker."""
    if value.startswith(MARKER_PREFIX) or value_is_code(value) or _is_note(value):
        return False
    return any(c.isalnum() for c in value) and not value.isalpha()


def _aligned_row(line: str, spans: list[tuple[int, int]], count: int, marker: str) -> str | None:
    """``line`` with the cells under the credential columns replaced, or None when it is not a row of the table."""
    unboxed = _unboxed(line)
    if unboxed is not line and not unboxed.strip():
        return line  # a rule drawn between the rows
    cells = list(_CELL.finditer(unboxed))
    if not (count <= len(cells) <= count + 1 or ("  " in unboxed.strip() and count <= len(cells) <= count + 4)):
        return None
    out = line
    for start, end in reversed(spans):
        under = [c for c in cells if c.start() < end and c.end() > start]  # the cell under the name, however aligned
        if not under:
            continue
        value = unboxed[under[0].start() : under[-1].end()]
        if _aligned_value(value):
            out = out[: under[0].start()] + marker + out[under[-1].end() :]
    return out


def _aligned_tables(lines: list[str], marker: str) -> None:
    """The credential columns of the data frames printed in ``lines``, replaced in place."""
    table: tuple[list[tuple[int, int]], int] | None = None
    for number, line in enumerate(lines):
        if table is not None:
            redacted = _aligned_row(line, *table, marker) if line.strip() else None
            if redacted is not None:
                lines[number] = redacted
                continue
            index_name = _ALIGNED_NAME.fullmatch(line.strip()) is not None
            if number and index_name and _aligned_header(lines[number - 1]):
                continue  # the index's name, on a line of its own under the header (pandas)
            table = None
        if any(word in line.lower() for word in _WORDS):
            table = _aligned_header(line)


def _sql_values(values: str) -> list[str]:
    """The comma-separated values of a VALUES list, a quoted value's commas and doubled quotes kept in it."""
    out: list[str] = []
    at = 0
    while at <= len(values):
        value = _SQL_VALUE.match(values, at)
        assert value is not None  # the pattern matches the empty string
        out.append(value.group(0))
        at = value.end()
        if at < len(values) and values[at] != ",":
            return []  # not a plain list (a call, a sub-select): left as it is
        at += 1
    return out


def _insert(match: re.Match[str], marker: str) -> str:
    names = [n.strip().strip('"`[]').lower() for n in match.group(1).split(",")]
    columns = {n for n, name in enumerate(names) if _SECRET_COLUMN.match(name)}
    if not columns:
        return match.group(0)
    rows = _NEXT_ROW.split(match.group(2))
    separators = _NEXT_ROW.findall(match.group(2))
    for number, row in enumerate(rows):
        values = _sql_values(row)
        if len(values) == len(names):
            rows[number] = ",".join(
                v.replace(v.strip(), f"'{marker}'")
                if n in columns and v.strip().startswith("'") and v.strip() != "''"
                else v
                for n, v in enumerate(values)
            )
    start = match.start(2) - match.start()
    end = match.end(2) - match.start()
    whole = match.group(0)
    joined = rows[0] + "".join(sep + row for sep, row in zip(separators, rows[1:], strict=True))
    return whole[:start] + joined + whole[end:]


# A row of a name/value table: "| AWS_SECRET_ACCESS_KEY | `...` |", "DB_PASSWORD<TAB>..." (the name names the secret).
_STRONG_CELL = re.compile(r"(?i)pass|pwd|secret|api[ _-]?key|private[ _-]?key|access[ _-]?key|credential")


# A row's first cell that names a category ("| secrets | 86 forms ... |" in a report), not a setting.
_CATEGORY = re.compile(r"(?i)secrets|passwords|passphrases|tokens|credentials|keys|api keys")


# A shell's pipe, not a table's border: a command with its flags, then another ("kubectl get secret db -o yaml |
# grep -v password", "cat token.txt | base64 -d").
_COMMAND_WITH_FLAGS = re.compile(r"[a-z][\w.-]{0,30}(?:[ \t]+[^\s|]{1,60}){0,8}?[ \t]+--?[A-Za-z]")
_COMMAND_WORD = re.compile(r"[a-z][\w.-]{0,30}(?:[ \t]|$)")


def _shell_pipeline(match: re.Match[str]) -> bool:
    """A row with no leading '|' whose first cell is a command with a flag and whose second starts with a command."""
    if match.group(0).lstrip(" \t").startswith("|") or "\t" in match.group(0):
        return False
    return bool(_COMMAND_WITH_FLAGS.match(match.group(1).strip()) and _COMMAND_WORD.match(match.group(2).strip()))


def _keep_row(match: re.Match[str]) -> bool:
    if _shell_pipeline(match):
        return True
    name, value = match.group(1).strip(), unquote(match.group(2).strip().strip("`"))
    if _CATEGORY.fullmatch(name) or about_a_secret(name) or value_is_code(value) or not _looks_secret(value):
        return True
    return _STRONG_CELL.search(name) is None and not looks_random(value)


# A setting's name: words joined by '_', '.', '-' or ':', all in capitals, or in camel case (not "Passwörter").
_SETTING_NAME = re.compile(r"[\w-]{1,60}[_.:-][\w.:-]{1,60}|[A-Z][A-Z0-9]{1,60}|[a-z]{1,30}[A-Z][A-Za-z0-9]{1,40}")


def _keep_spaced_row(match: re.Match[str]) -> bool:
    """A row aligned with spaces: only a setting's name, and a value with a letter or a digit in it."""
    if not _SETTING_NAME.fullmatch(match.group(1)) or not any(c.isalnum() for c in match.group(2)):
        return True
    return _keep_row(match)


NAME_VALUE_ROWS: list[Place] = [
    Place(
        "table-secret",
        r"(?im)^[ \t]{0,8}\|?[ \t]{0,8}`?((?=[A-Za-z])[\w .:-]{0,60}?(?:pass\w{0,12}|pwd|secret\w{0,12}|token|"
        r"api[ _-]?key|private[ _-]?key|access[ _-]?key|credentials?|auth)[\w .-]{0,20}?)`?[ \t]{0,8}(?:\||\t)"
        r"[ \t]{0,8}([`\"']?[^|`\"'\s][^|`\"'\t]{0,255}?[`\"']?)[ \t]{0,8}(?:\||\t|$)",
        2,
        _keep_row,
        line_words=("|", "\t"),
    ),
    # a two-column dump aligned with spaces (PowerShell's "Name  Value", a settings listing): "SECRET_KEY    'X'",
    # the name one word, the value the rest of the line, one word or quoted
    Place(
        "table-secret",
        r"(?im)^[ \t]{0,8}((?=[A-Za-z_])[\w.:-]{0,60}?(?:pass\w{0,12}|pwd|secret\w{0,12}|token|key|"
        r"credentials?)[\w.-]{0,20}?) {2,40}"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|`[^`\n]{1,256}`|[^\s\"'`|][^\s|]{0,255})[ \t]*$",
        2,
        _keep_spaced_row,
        line_words=("  ",),
    ),
]
