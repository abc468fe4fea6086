"""Input rules for Embed; messages say what is wrong and how to fix it."""

from __future__ import annotations


class InvalidEmbedRequest(ValueError):
    pass


def check_texts(texts: list[str], *, max_batch: int, max_text_chars: int) -> None:
    if not texts:
        raise InvalidEmbedRequest("texts is empty: send at least one non-empty string")
    if len(texts) > max_batch:
        raise InvalidEmbedRequest(
            f"too many texts: {len(texts)} > {max_batch}; split the request into batches of at most {max_batch}"
        )
    for i, text in enumerate(texts):
        if not text.strip():
            raise InvalidEmbedRequest(f"texts[{i}] is empty or whitespace: every text must have content")
        if len(text) > max_text_chars:
            raise InvalidEmbedRequest(
                f"texts[{i}] is too long: {len(text)} characters > {max_text_chars}; "
                "chunk long documents before embedding"
            )
