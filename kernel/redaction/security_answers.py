"""The answer to a security question, told (issue 36): "Security question 'first pet' → Mr. Whiskerbottom",
"security answer: Fluffy", "memorable word = pineapple", "Sicherheitsfrage Haustier, Antwort: Bello".

A question's noun introduces the answer only through an arrow or the word "answer" (in a few languages): after
a colon it introduces the question itself ("Security question: What was your first pet's name?"). A value that
reads as a sentence about answers ("are case-sensitive", "is stored hashed") stays. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.places import Place

_QUESTION = (
    r"(?:security|secret|challenge)[ \t]+questions?|sicherheitsfrage|"
    r"question[ \t]+(?:secr[eè]te|de[ \t]+s[eé]curit[eé])|"
    r"pregunta[ \t]+(?:de[ \t]+seguridad|secreta)|domanda[ \t]+(?:di[ \t]+sicurezza|segreta)|beveiligingsvraag"
)
_ANSWER = r"answer|antwort|r[eé]ponse|respuesta|risposta|antwoord|resposta"
_NAMED = (
    r"(?:security|secret)[ \t]+answer|memorable[ \t]+(?:word|answer|name)|"
    r"(?:mother'?s|mum'?s|mom'?s)[ \t]+maiden[ \t]+name|sicherheitsantwort|geheimantwort"
)
# The value: a few words, a title and its dot kept with the name ("Mr. Whiskerbottom").
_VALUE = r"((?:(?:Mr|Mrs|Ms|Dr|Sir|St)\.[ \t])?[^\s,;()?][^\n,;()?]{0,40}?)(?=[ \t]*(?:$|[,;()—–]|\.(?:[ \t]|$)))"
_TOLD = (
    rf"(?i)(?<![\w-])(?:(?:{_QUESTION})\b[^\n→]{{0,60}}?(?:→|->|=>|⇒|\b(?:{_ANSWER})\b[ \t]*(?:is|ist|est|es|è|:|=))"
    rf"|(?:{_NAMED})\b[ \t]*(?:is|was|:|=|→|->))[ \t]*[\"'“‘]?{_VALUE}"
)
# A sentence about answers, not one: "answers are case-sensitive", "answer is stored hashed".
_ABOUT = re.compile(
    r"(?i)(?:the|a|an|not|never|always|stored|hashed|encrypted|required|optional|case|set|wrong|incorrect|correct|"
    r"empty|blank|missing|same|different|changed|reset|needed|used|checked|asked|shown|hidden|what|which|who|where|"
    r"when|how|why|in|on|at|for|to|of|your|my|see|check|ask|read|go|click|use|visit|contact|call)\b"
)


def _keep_about(match: re.Match[str]) -> bool:
    value = match.group(1)
    return _ABOUT.match(value) is not None or value.endswith("?")


ANSWERS: list[Place] = [
    Place(
        "security-answer",
        _TOLD,
        1,
        _keep_about,
        line_words=(
            "question",
            "frage",
            "pregunta",
            "domanda",
            "vraag",
            "answer",
            "memorable",
            "maiden",
            "antwort",
        ),
    )
]
