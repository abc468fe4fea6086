"""Each problem's fix and failed attempt as an assistant would write them, and how a block line is traced back.

Texts. Problem ``k`` (its index among all problems) gets the ``k``-th setting of ``SETTINGS`` for its fix
and the ``k``-th component of ``COMPONENTS`` for its failed attempt, each a pair of words that no other
entry uses, filled into templates that rotate with ``k``; so every fix, command and error is unique and
no two problems' errors share a signature once numbers and names are normalised away.

Recognition. A block line is never matched against the driver's strings verbatim. The registry holds each
problem's text (its fix, or its failed command and error); a problem's *distinctive words* are the content
words (lower case, letters only, three or more, not a stop word) of its text that no other problem's text in
the registry has. A line counts for the problem ``p`` whose distinctive words it contains most, and only with
a clear majority: at least ``MIN_HITS`` of them, and more than the distinctive words of all other problems
in the line together. A line that quotes two fixes, or none, counts for no problem.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# two words each, no word used twice in either list or across them
SETTINGS = (
    "hardware acceleration",
    "smooth scrolling",
    "spellcheck dictionary",
    "junk classifier",
    "popup blocker",
    "cookie exceptions",
    "font antialiasing",
    "prefetch queue",
    "session restore",
    "autocomplete history",
    "message threading",
    "imap idle",
    "offline storage",
    "composer autosave",
    "plugin container",
    "certificate overrides",
    "proxy autoconfig",
    "sidebar panels",
    "bookmark backups",
    "download destination",
    "search engines",
    "toolbar layout",
    "theme cache",
    "extension compatibility",
    "chatzilla logging",
    "contacts sync",
    "feed subscriptions",
    "webrtc camera",
    "geolocation permission",
    "printing margins",
    "zoom levels",
    "password vault",
    "formfill suggestions",
    "startup homepage",
    "newsgroup server",
    "ldap directory",
    "smtp relay",
    "vcard export",
    "inspector devtools",
    "charset fallback",
    "mime handlers",
    "sound alerts",
)
COMPONENTS = (
    "tabstrip overflow",
    "urlbar dropdown",
    "mailnews indexer",
    "calendar alarms",
    "editor palette",
    "chrome registry",
    "xpcom loader",
    "necko sockets",
    "reflow scheduler",
    "places migration",
    "jsloader bytecode",
    "widget painter",
    "accessible tree",
    "locale packs",
    "mozstorage vacuum",
    "nss keyring",
    "gfx compositor",
    "image decoder",
    "media pipeline",
    "scrollbox widths",
    "xbl bindings",
    "docshell navigation",
    "capability manager",
    "stylesheet matcher",
    "frame constructor",
    "observer notifications",
    "timer thread",
    "clipboard bridge",
    "dragdrop service",
    "lpr spooler",
    "fontconfig lookup",
    "dns resolver",
    "diskcache index",
    "addon manifest",
    "update mar",
    "crash minidump",
    "telemetry pings",
    "sessionstore writer",
    "wallet importer",
    "ftp listing",
    "gopher channel",
    "irc parser",
)
FIX_TEMPLATES = (
    "Disabled {s} in Edit > Preferences > Advanced and restarted SeaMonkey; the problem is gone.",
    "Reset {s} to its defaults in about:config and restarted; it works again now.",
    "Turned off {s} for this profile, then reloaded the window; that fixed it.",
    "Cleared the stored {s} data in the profile folder and restarted; resolved.",
    "Re-enabled {s} from the Preferences panel and restarted the browser; it behaves now.",
    "Rebuilt {s} from a fresh profile and copied the settings back; the bug no longer shows.",
)
COMMAND_TEMPLATES = (
    "seamonkey --safe-mode --selftest {a}-{b}",
    "sed -i 's/{a}_{b}_enabled=true/{a}_{b}_enabled=false/' prefs.js && seamonkey --selftest",
    "rm -rf ~/.mozilla/seamonkey/bench.default/{a}-{b}.sqlite && seamonkey --selftest",
    "seamonkey -P bench --reset-{a}-{b} --selftest",
)
ERROR_TEMPLATES = (
    "Error: {a} {b} check still fails after restart",
    "error: {a} {b} self-test failed with the same symptom",
    "FAILED: {a} {b} verification reports the bug unchanged",
    "fatal: {a} {b} probe could not confirm any change",
)
STOP_WORDS = frozenset(
    "the and for with from this that then its now after any still same not are was has have into our all".split()
)
MIN_HITS = 2
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Attempt:
    command: str
    error: str  # the telling last line of the tool's output
    output: str  # the whole output the tool call printed


def fix_text(index: int) -> str:
    return FIX_TEMPLATES[index % len(FIX_TEMPLATES)].format(s=SETTINGS[index])


def failed_attempt(index: int) -> Attempt:
    a, b = COMPONENTS[index].split()  # IndexError past the list: never reuse a problem's words
    command = COMMAND_TEMPLATES[index % len(COMMAND_TEMPLATES)].format(a=a, b=b)
    error = ERROR_TEMPLATES[index % len(ERROR_TEMPLATES)].format(a=a, b=b)
    return Attempt(command, error, f"Running {a} {b} checks on profile bench...\n{error}")


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in STOP_WORDS}


class Registry:
    """Problem key -> the text written for it; recognises which problem a line speaks of."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        words = {key: content_words(text) for key, text in texts.items()}
        seen = Counter(w for ws in words.values() for w in ws)
        self.distinctive = {key: {w for w in ws if seen[w] == 1} for key, ws in words.items()}

    def hits(self, line: str) -> dict[str, int]:
        found = content_words(line)
        return {key: len(found & ws) for key, ws in self.distinctive.items() if found & ws}

    def problem_of(self, line: str) -> str:
        """The problem the line counts for ('' without a clear majority)."""
        hits = self.hits(line)
        if not hits:
            return ""
        best = max(hits, key=lambda k: hits[k])
        others = sum(hits.values()) - hits[best]
        return best if hits[best] >= MIN_HITS and hits[best] > others else ""

    def problems_of(self, lines: Iterable[str]) -> list[str]:
        return [p for p in (self.problem_of(line) for line in lines) if p]
