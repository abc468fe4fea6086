"""Memory text made inert before the model sees it: one line, nothing that acts.

Stored memories are untrusted text (a web page the assistant read, a pasted log, another tool's
output), and they are injected into the model's prompt. ``neutralize`` turns any of it into one
line that cannot forge the block's delimiters or a scoring tag, hide invisible text, start a role
turn, fetch a URL when rendered, or pass for a chat-template marker. Plain module; the block's
formatting (gateway/formatting.py) runs every piece of memory text through it.
"""

from __future__ import annotations

import re
import unicodedata

MAX_MEMORY_CHARS = 1_200
ELLIPSIS = "…"

# Invisible characters: controls, every format character (Unicode category Cf: zero-width space and
# joiners, bidi embeddings/overrides/isolates, soft hyphen, word joiner, Arabic/Syriac/Kaithi marks),
# the tag block U+E0000-E007F (invisible ASCII), Hangul fillers and other blank letters, and the
# supplementary variation selectors. An emoji ZWJ sequence loses its joiners (its parts remain).
_INVISIBLE = re.compile(
    "[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\u00ad\u034f\u0600-\u0605"
    "\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001345f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f"
    "\U000e0100-\U000e01ef]"
)
_ASCII_CONTROLS = re.compile("[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]")
# A run of emoji/text variation selectors keeps its first (one selector is all a glyph uses).
_SELECTOR_RUN = re.compile("([\ufe00-\ufe0f])[\ufe00-\ufe0f]+")


def _fold_table() -> dict[int, str]:
    """NFKC of the look-alike forms (full-width, half-width, small, vertical, math-font letters),
    so "＜｜im_start｜＞", "［ＩＮＳＴ］" or "𝐀𝐬𝐬𝐢𝐬𝐭𝐚𝐧𝐭：" are checked as what they spell. Superscripts,
    fractions and ligatures keep their form ("O(n²)" is not "O(n2)"); U+FF5C, the pipe of
    DeepSeek's real special tokens, is kept and matched as a pipe below."""
    ranges = ((0x2100, 0x2150), (0x3000, 0x3001), (0xFE10, 0xFE70), (0xFF00, 0xFFF0), (0x1D400, 0x1D800))
    table = {}
    for start, end in ranges:
        for code in range(start, end):
            tag = unicodedata.decomposition(chr(code)).split(" ", 1)[0]
            if tag in ("<wide>", "<narrow>", "<small>", "<vertical>", "<font>") and code != 0xFF5C:
                table[code] = unicodedata.normalize("NFKC", chr(code))
    return table


_FOLD = _fold_table()
_FOLDABLE = re.compile("[\u2100-\u214f\u3000\ufe10-\ufe6f\uff00-\uffef\U0001d400-\U0001d7ff]")  # _FOLD's ranges
_NEWLINES = re.compile(r"\s*[\r\n\t\x85]+\s*")  # \x85: NEL, a line break to str.splitlines
# Tags a client wraps hook output or its own turns in (Claude Code's <system-reminder>, the
# transcript's <command-*> and tool tags, chat-role tags), plus every mnemex tag: content that
# opens or closes one could end the wrapper early and speak outside it.
CLIENT_TAGS = (
    "system-reminder",
    "user-prompt-submit-hook",
    "session-start-hook",
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "function_calls",
    "function_results",
    "tool_use",
    "tool_result",
    "antml:[\\w-]+",
    "invoke",
    "parameter",
    "system",
    "user",
    "assistant",
    "human",
    "instructions",
)
_TAG = re.compile(  # anything starting "<mnemex"; a client tag only as a whole name (so "<users/>" stays)
    r"<(\s*/?\s*(?:mnemex|(?:" + "|".join(CLIENT_TAGS) + r")(?=[\s/>]|$)))",
    re.IGNORECASE,
)
_BOX = re.compile("[\u2550-\u256c]")  # box-drawing doubles used by our delimiters
_ID_TAG = re.compile(r"\[(\s*id\s*:)", re.IGNORECASE)
_BLOCK_WORDS = re.compile(r"(END\s+)?(KNOWN\s+CONTEXT|END\s+CONTEXT)", re.IGNORECASE)

# Markup a client renders: an image is fetched as soon as it is shown (a URL can carry data out),
# and a link can hide where it points. Both become plain text that still says what they were.
_MD_TITLE = r"(?:\s{1,3}(?:\"[^\"]{0,300}\"|'[^']{0,300}'|\([^()]{0,300}\)))?"
_MD_IMAGE = re.compile(
    r"!\s{0,3}\[([^\[\]]{0,300})\]\s{0,3}\(\s{0,3}<?([^()\s<>]{0,2000})>?" + _MD_TITLE + r"\s{0,3}\)"
)
# "](" before a URL with a scheme (a link, or an image the pattern above missed: nested brackets) gets a space,
# which no renderer joins; "![" left over gets one too. "arr[0](1)" in code is left alone.
_MD_LEFTOVER = re.compile(r"!(?=\s{0,3}\[)|\](?=\(\s{0,3}<?\s{0,3}(?:[A-Za-z][A-Za-z0-9+.-]{1,20}:|//|www\.))")
_HTML_FETCHING = re.compile(
    r"<(\s*/?\s*(?:img|image|svg|iframe|frame|video|audio|source|picture|object|embed|link|a|meta|script|style|"
    r"base|form|input|body|html|track)(?=[\s/>]|$))",
    re.IGNORECASE,
)
# Chat-template markers: special tokens (<|im_end|>, <｜end▁of▁sentence｜>, </s>, <start_of_turn>),
# Llama/Mistral brackets ([INST], <<SYS>>) and role labels where a line began ("Human:", "### Assistant:").
_SPECIAL_TOKEN = re.compile(r"<\s?([|｜][^|｜<>\s]{1,60}[|｜])\s?>")
_TEMPLATE_TAG = re.compile(
    r"<(\s*/?\s*(?:s|bos|eos|unk|pad|start_of_turn|end_of_turn|im_start|im_end|endoftext|eot_id)\s*>)", re.IGNORECASE
)
_INST = re.compile(
    r"\[\s?(/?\s?(?:INST|SYS|SYSTEM_PROMPT|TOOL_CALLS|TOOL_RESULTS|AVAILABLE_TOOLS)\s?)\]", re.IGNORECASE
)
_SYS = re.compile(r"<<\s?(/?\s?SYS\s?)>>", re.IGNORECASE)
# A role label where a line began (a " / " piece: any colon), or where a sentence starts after any
# punctuation or symbol ("done. Assistant: ok", "/Assistant: x"; the colon then ends the word, so
# "http://user:pw@host" stays). "the human: factor" inside a sentence is ordinary prose. Searched
# backwards from each colon (a scan of the whole text for the words costs ten times more).
_ROLE_WORDS = ("human", "assistant", "system", "user", "instruction", "response", "ai")
_ROLE_LABEL = re.compile(
    r"(?:(^|(?<= / ))|(?<=[^\w\s]))\s{0,3}(?:#{1,4}\s?)?(?:" + "|".join(_ROLE_WORDS) + r")(\s?)\Z",
    re.IGNORECASE,
)
_ROLE_COLON = re.compile(r"(?:" + "|".join(_ROLE_WORDS) + r")\s?:")  # on the lower-cased text, a quick first look
_LABEL_REACH = 32  # "#### " + the longest role + spaces, and the character before them
# HTML attributes that make a renderer fetch or run something (src, srcset, background, poster, data,
# href, action, style with url() or escapes, event handlers): their '=' becomes the look-alike U+A78A
# wherever a raw tag remains (tags the pattern above breaks already cannot carry one). Prose
# without a tag ("set img src= to the path") is left as written.
_RAW_TAG = re.compile(r"<\s*[A-Za-z]")
_FETCH_ATTR = re.compile(
    r"(?<![\w-])((?:src|srcset|lowsrc|dynsrc|background|poster|data|href|action|formaction|style|ping|cite|"
    r"codebase|archive|classid|longdesc|usemap|manifest|icon|profile|on[a-z]{3,30})\s{0,20})=",
    re.IGNORECASE,
)


def _break_labels(text: str) -> str:
    """Each role label's colon (with a space before it) as the look-alike U+2236."""
    if not _ROLE_COLON.search(text.lower()):
        return text
    pieces, start, colon = [], 0, text.find(":")
    while colon >= 0:
        word = text[max(colon - 12, 0) : colon].lower()
        label = word.rstrip().endswith(_ROLE_WORDS) and _ROLE_LABEL.search(text, max(colon - _LABEL_REACH, 0), colon)
        if label and (label.group(1) is not None or text[colon + 1 : colon + 2].isspace() or colon + 1 == len(text)):
            pieces += [text[start : label.start(2)], "\u2236"]
            start = colon + 1
        colon = text.find(":", colon + 1)
    return "".join(pieces) + text[start:] if pieces else text


def _image_as_text(match: re.Match[str]) -> str:
    alt = match.group(1).strip()
    return f"image {alt} ({match.group(2)})" if alt else f"image ({match.group(2)})"


def _inert_markup(text: str) -> str:
    """Markdown/HTML that fetches or hides a URL, and chat-template markers, as readable inert text."""
    if "[" in text or "<" in text:
        text = _MD_IMAGE.sub(_image_as_text, text)
        text = _MD_LEFTOVER.sub(lambda m: m.group(0) + " ", text)
        text = _HTML_FETCHING.sub(lambda m: "\u2039" + m.group(1), text)
        text = _SPECIAL_TOKEN.sub(lambda m: "\u2039" + m.group(1) + "\u203a", text)
        text = _TEMPLATE_TAG.sub(lambda m: "\u2039" + m.group(1), text)
        text = _INST.sub(lambda m: "\u2045" + m.group(1) + "\u2046", text)
        text = _SYS.sub(lambda m: "\u00ab" + m.group(1) + "\u00bb", text)
        if _RAW_TAG.search(text):
            text = _FETCH_ATTR.sub(lambda m: m.group(1) + "\ua78a", text)
    return _break_labels(text)


def neutralize(text: str, limit: int = MAX_MEMORY_CHARS) -> str:
    """One safe line: no delimiters, no mnemex tags, no forged [id:] tags.

    - invisible, control and format characters (zero-width, bidi, tag characters) are
      dropped, full-width and other look-alike forms are folded (NFKC) before any
      check, and line breaks become " / " (so content can never start a line of its
      own, where delimiters live);
    - box-drawing characters become '=', the '<' of a mnemex tag or of a tag a
      client wraps hook output in ('<system-reminder>', ``CLIENT_TAGS``)
      becomes the look-alike U+2039, the '[' of '[id:' becomes U+2045, and
      the block's heading words are lower-cased;
    - a markdown image becomes plain "image alt (url)" and a link "[text] (url)"
      (nothing a client renders fetches a URL or hides one), HTML that would
      fetch gets the U+2039 '<', and chat-template markers (``<|im_end|>``,
      ``</s>``, ``[INST]``, ``<<SYS>>``, "Human:" where a line or a sentence began) are
      broken with look-alikes (U+2039/U+203A, U+2045/U+2046, guillemets, U+2236 ':'),
      and in a raw tag the '=' of an attribute that fetches (``src=``, ``style=``) is U+A78A;
    - the result is cut to ``limit`` characters with an ellipsis.
    """
    clean = text or ""
    if clean.isascii():  # most memories: only the controls can hide there
        clean = _ASCII_CONTROLS.sub("", clean)
    else:
        clean = _SELECTOR_RUN.sub(r"\1", _INVISIBLE.sub("", clean))
        if _FOLDABLE.search(clean):
            clean = clean.translate(_FOLD)
    clean = _NEWLINES.sub(" / ", clean).strip()
    clean = _BOX.sub("=", clean)
    clean = _TAG.sub(lambda m: "\u2039" + m.group(1), clean)
    clean = _ID_TAG.sub(lambda m: "\u2045" + m.group(1), clean)
    clean = _BLOCK_WORDS.sub(lambda m: m.group(0).lower(), clean)
    clean = _inert_markup(clean)
    if len(clean) > limit:
        clean = clean[: max(limit - 1, 0)].rstrip() + ELLIPSIS
    return clean
