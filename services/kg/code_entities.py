"""Passes that find code-shaped entities: imports and installs, backtick
spans, file paths, identifiers and curated library/tool names.

Each pass works on ``Collector.masked`` and masks what it takes, so a later
pass cannot re-read part of it: the ``server.py`` inside
``services/kg/server.py`` stays part of the path.
"""

from __future__ import annotations

import re

from services.kg import lexicon
from services.kg.keys import Entity, entity_key

MAX_ENTITIES = 64
MASK = "\x1f"  # masked spans break phrases and names
ERROR_SUFFIXES = ("Error", "Exception", "Warning", "Interrupt", "Exit", "Timeout")
TLDS = frozenset("com org net io dev ai app co uk de fr edu gov info me sh".split())

_EXT = "|".join(sorted(lexicon.FILE_EXTENSIONS, key=len, reverse=True))
URL_RE = re.compile(r"https?://[^\s<>\"'`)\]]+")
PY_FROM_IMPORT_RE = re.compile(r"^[ \t]*from[ \t]+([A-Za-z_][\w.]*)[ \t]+import\b", re.M)
PY_IMPORT_RE = re.compile(r"^[ \t]*import[ \t]+([A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*)", re.M)
JS_IMPORT_RE = re.compile(r"""(?:\bfrom|\brequire\(|^[ \t]*import)[ \t]*['"]([^'"\n]{1,100})['"]""", re.M)
INSTALL_RE = re.compile(
    r"\b(?:pip3?|uv(?:[ \t]+pip)?|pipx|poetry|npm|yarn|pnpm|cargo|gem|brew|conda)[ \t]+"
    r"(?:install|add|i)[ \t]+([^\n;&|`]{1,200})"
)
BACKTICK_RE = re.compile(r"`([^`\n]{1,200})`")
WIN_PATH_RE = re.compile(r"\b[A-Za-z]:\\(?:[\w.\- ]+\\)*[\w.\-]+")
UNIX_PATH_RE = re.compile(r"(?<![\w/.:@-])(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]*")
FILENAME_RE = re.compile(rf"(?<![\w/.-])\.?[\w-]+(?:\.[\w-]+)*\.(?:{_EXT})\b", re.I)
SPECIAL_FILE_RE = re.compile(
    r"(?<![\w/.-])(?:" + "|".join(re.escape(n) for n in sorted(lexicon.SPECIAL_FILENAMES)) + r")\b"
)
CALL_RE = re.compile(r"\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(")
DOTTED_RE = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
SCREAMING_RE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
SNAKE_RE = re.compile(r"(?<![\w-])_{0,2}[a-z][a-z0-9]*(?:_[a-z0-9]+)+_{0,2}(?![\w-])")
CAMEL_RE = re.compile(
    r"\b(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z]{2,}[a-z]+[A-Za-z0-9]*|[a-z]+[0-9]*(?:[A-Z][a-z0-9]*)+)\b"
)
WORD_RE = re.compile(r"[A-Za-z][\w+#.-]*[\w+#]|[A-Za-z]")
MULTIWORD = {
    "claude code": ("Claude Code", "tool"),
    "vs code": ("VS Code", "tool"),
    "visual studio code": ("VS Code", "tool"),
    "github actions": ("GitHub Actions", "tool"),
    "sentence transformers": ("sentence-transformers", "library"),
    "hugging face": ("Hugging Face", "library"),
    "google cloud": ("Google Cloud", "library"),
    "scikit learn": ("scikit-learn", "library"),
}
MULTIWORD_RE = re.compile(r"\b(?:" + "|".join(re.escape(k) for k in MULTIWORD) + r")\b", re.I)
_SENTENCE_END = ".!?\n:;\"'(*-#>"


class Collector:
    """The text being masked plus the entities found so far, in order."""

    def __init__(self, text: str) -> None:
        self.original = text
        self.chars = list(text)
        self.entities: dict[str, Entity] = {}
        self.mentions: list[tuple[int, int, str]] = []
        self.code_spans: list[tuple[int, int]] = []

    @property
    def masked(self) -> str:
        return "".join(self.chars)

    def add(self, name: str, type_: str, start: int, end: int, *, mask: bool = True) -> None:
        name = name.strip()
        key = entity_key(name)
        if len(name) < 2 or (len(self.entities) >= MAX_ENTITIES and key not in self.entities):
            return
        self.entities.setdefault(key, Entity(name, type_))
        self.mentions.append((start, end, key))
        if mask:
            self.chars[start:end] = MASK * (end - start)

    def in_code(self, pos: int) -> bool:
        return any(a <= pos < b for a, b in self.code_spans)


def tech_type(lower: str) -> str | None:
    if lower in lexicon.TOOLS:
        return "tool"
    if lower in lexicon.LIBRARIES:
        return "library"
    return lexicon.AMBIGUOUS_TECH.get(lower)


def display(lower: str, seen: str) -> str:
    return lexicon.DISPLAY.get(lower, seen)


def sentence_initial(text: str, start: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in _SENTENCE_END or (text[i].isdigit() and i > 0 and text[i - 1] == "\n")


def _module_entity(module: str) -> tuple[str, str]:
    top = module.split(".")[0]
    lower = top.lower()
    if lower in lexicon.STDLIB_MODULES or tech_type(lower) or "." not in module:
        return display(lower, top), tech_type(lower) or "library"
    return module, "identifier"


def urls(c: Collector) -> None:
    for m in URL_RE.finditer(c.original):
        url = m.group(0).rstrip(".,;:!?")
        c.add(url, "url", m.start(), m.start() + len(url))


def imports_and_installs(c: Collector) -> None:
    text = c.original
    for m in PY_FROM_IMPORT_RE.finditer(text):
        if not m.group(1).startswith("."):
            name, type_ = _module_entity(m.group(1))
            c.add(name, type_, m.start(1), m.end(1))
    for m in PY_IMPORT_RE.finditer(text):
        for part in re.finditer(r"[A-Za-z_][\w.]*", m.group(1)):
            name, type_ = _module_entity(part.group(0))
            c.add(name, type_, m.start(1) + part.start(), m.start(1) + part.end())
    for m in JS_IMPORT_RE.finditer(text):
        spec = m.group(1)
        if spec.startswith((".", "/")):
            c.add(spec, "path", m.start(1), m.end(1))
        else:
            parts = spec.split("/")
            pkg = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
            c.add(display(pkg.lower(), pkg), "library", m.start(1), m.end(1))
    for m in INSTALL_RE.finditer(text):
        for start, token in install_arguments(m.group(1)):
            name = re.split(r"[=<>!~\[;]|(?<=.)@", token)[0].strip("'\"")
            if re.fullmatch(r"@?[\w.-]+(?:/[\w.-]+)?", name or ""):
                start += m.start(1)
                c.add(display(name.lower(), name), "library", start, start + len(token))


# Flags of install commands whose next word is a value, not a package ("--features derive").
_VALUE_FLAGS = frozenset(
    "-r --requirement -c --constraint -i --index-url --extra-index-url -f --find-links --features -F "
    "--target -t --python -p --registry --tag --source --root --prefix --channel --git --branch --rev "
    "--group -G".split()
)
# Words that follow an install command in prose and never name a package there.
_PROSE_AFTER_INSTALL = frozenset(
    "error errors retry package packages version versions latest later locally globally again instead "
    "first fine ok okay properly manually successfully correctly twice yet".split()
)
_TRAILING_PUNCTUATION = re.compile(r"[.,!?:)]+$")


def _prose(word: str) -> bool:
    lower = word.lower()
    if lower in lexicon.STOPWORDS or lower in lexicon.COMMON_VERBS or lower in _PROSE_AFTER_INSTALL:
        return True
    # Plain English inflections ("failing", "worked") are prose; package names rarely end so.
    return lower.isalpha() and len(lower) > 4 and lower.endswith(("ing", "ed"))


def install_arguments(args: str) -> list[tuple[int, str]]:
    """(offset, token) of the packages an install command names, up to where prose starts.

    "pip install requests and then retry" -> requests; "npm install did not help." -> nothing.
    Flags and their values, local paths and "." are skipped.
    """
    found: list[tuple[int, str]] = []
    skip_value = False
    for arg in re.finditer(r"\S+", args):
        token = arg.group(0)
        if skip_value:
            skip_value = False
            continue
        if token.startswith("-"):
            skip_value = token in _VALUE_FLAGS
            continue
        bare = _TRAILING_PUNCTUATION.sub("", token)
        if not bare or _prose(bare.strip("'\"")):
            break
        if bare[0].isdigit():  # a version after a flag ("-v 2.5.3"), not a package
            continue
        if bare not in (".", "..") and not ("/" in bare and not bare.startswith("@")):
            found.append((arg.start(), bare))
        if bare != token:  # the sentence ends here
            break
    return found


def backticks(c: Collector) -> None:
    for m in BACKTICK_RE.finditer(c.original):
        c.code_spans.append((m.start(), m.end()))
        inner = m.group(1).strip()
        if " " in inner or not re.fullmatch(r"[\w.\-/~@:]+(?:\(\))?", inner):
            continue
        bare = inner.removesuffix("()")
        lower = bare.lower()
        if "/" in bare or FILENAME_RE.fullmatch(bare):
            type_ = "path"
        else:
            type_ = tech_type(lower) or ("error" if bare.endswith(ERROR_SUFFIXES) else "identifier")
        c.add(display(lower, bare), type_, m.start(), m.end())


def _is_path(candidate: str) -> bool:
    if re.fullmatch(r"[\w.-]{2,}/", candidate):
        return True  # a directory written with its trailing slash: src/
    if candidate.count("/") >= 2 or candidate.startswith(("/", "~/", "./", "../")):
        return bool(re.search(r"[A-Za-z0-9]", candidate)) and "//" not in candidate
    last = candidate.rsplit("/", 1)[-1]
    return "." in last and last.rsplit(".", 1)[-1].lower() in lexicon.FILE_EXTENSIONS


def paths(c: Collector) -> None:
    for regex in (WIN_PATH_RE, UNIX_PATH_RE):
        for m in regex.finditer(c.masked):
            raw = m.group(0).rstrip(".,:;")
            if regex is WIN_PATH_RE or _is_path(raw):
                c.add(raw, "path", m.start(), m.start() + len(raw))
    for regex in (FILENAME_RE, SPECIAL_FILE_RE):
        masked = c.masked
        for m in regex.finditer(masked):
            if re.match(r"\.[A-Za-z_]", masked[m.end() : m.end() + 2]):
                continue  # process.env.HOME is an attribute chain, not a file
            lower = m.group(0).lower()
            c.add(display(lower, m.group(0)), tech_type(lower) or "path", m.start(), m.end())


def identifiers(c: Collector) -> None:
    for m in MULTIWORD_RE.finditer(c.masked):
        name, type_ = MULTIWORD[entity_key(m.group(0))]
        c.add(name, type_, m.start(), m.end())
    masked = c.masked
    for m in CALL_RE.finditer(masked):
        name = m.group(1)
        if name.lower() in lexicon.STOPWORDS or len(name) < 2 or masked.startswith("s)", m.end()):
            continue  # "type(s)" is a plural marker, not a call
        c.add(name, "identifier", m.start(1), m.end(1) + 1)
    for m in DOTTED_RE.finditer(c.masked):
        name = m.group(0)
        lower = name.lower()
        parts = lower.split(".")
        if max(len(p) for p in parts) < 2 or lower in ("e.g", "i.e"):
            continue
        if tech_type(lower):
            c.add(display(lower, name), tech_type(lower) or "library", m.start(), m.end())
        elif len(parts) == 2 and parts[1] in TLDS and parts[0].isalpha():
            c.add(lower, "url", m.start(), m.end())
        else:
            c.add(name, "identifier", m.start(), m.end())
    for regex in (SCREAMING_RE, SNAKE_RE, CAMEL_RE):
        for m in regex.finditer(c.masked):
            name = m.group(0)
            lower = name.lower()
            tech = tech_type(lower)
            if tech:
                c.add(display(lower, name), tech, m.start(), m.end())
            elif name.endswith(ERROR_SUFFIXES) and name[0].isupper():
                c.add(name, "error", m.start(), m.end())
            elif regex is CAMEL_RE and lower in lexicon.DISPLAY:
                c.add(lexicon.DISPLAY[lower], "name", m.start(), m.end())
            else:
                c.add(name, "identifier", m.start(), m.end())


def lexicon_words(c: Collector) -> None:
    """Curated names; ambiguous ones ("click", "black") need a code-ish context."""
    masked = c.masked
    words = list(WORD_RE.finditer(masked))
    for i, m in enumerate(words):
        token = m.group(0)
        lower = token.lower()
        tech = tech_type(lower)
        if not tech:
            continue
        if lower in lexicon.AMBIGUOUS_TECH:
            neighbours = {w.group(0).lower() for w in words[max(0, i - 1) : i + 2]} - {lower}
            nearby = {w.group(0).lower() for w in words[max(0, i - 2) : i + 3]} - {lower}
            capitalised = token[0].isupper() and not sentence_initial(masked, m.start())
            beside_tech = any(tech_type(n) and n not in lexicon.AMBIGUOUS_TECH for n in nearby)
            if not (capitalised or neighbours & lexicon.TECH_CUE_WORDS or beside_tech or c.in_code(m.start())):
                continue
        c.add(display(lower, token), tech, m.start(), m.end())
