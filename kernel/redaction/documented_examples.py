"""Credentials that providers' docs and RFCs print for readers to copy (issue 36): public since, so no rule redacts
them, whichever finds them (``kernel.privacy`` checks each value against them).

Stripe's test keys, shown on every page of its API reference; the Basic credentials of RFC 7617 and RFC 2617
("Aladdin:open sesame", "test:123\u00a3") and of RFC 6749 ("s6BhdRkqt3:gX1fBat3bV"); RFC 6749's example access
token and refresh token. AWS's examples end in ``EXAMPLE`` and are told by their shape
(``kernel.redaction.values.placeholder_token``). Plain data.
"""

from __future__ import annotations

DOCUMENTED_EXAMPLES = frozenset(
    (
        "pk_test_TYooMQauvdEDq54NiTphI7jx",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "pk_test_6pRNASCoBOKtIshFeQd4XMUh",
        "sk_test_26PHem9AhJZvU623DfE1x4sd",
        "QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
        "dGVzdDoxMjPCow==",
        "czZCaGRSa3F0MzpnWDFmQmF0M2JW",
        "2YotnFZFEjr1zCsicMWpAA",
        "tGzv3JOkF0XG5Qx2TlKWIA",
    )
)
