"""The attack suite's issue-36 parts can fail, and the gRPC one holds against another OS user.

The other behaviours these parts replay have their own tests (repair:
``tests/integration/cli/test_repair_salvage.py``; inert content:
``tests/unit/gateway/test_inert_content.py``, ``test_containment.py``; a
foreign home and the marker probe: ``tests/unit/test_foreign_paths.py``; the
internal credential: ``tests/integration/stack/test_grpc_credential.py``).
What had none: a call from a process of another OS user, which this runs as
the suite does (``bench.reliability.grpc_access``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.reliability import grpc_access, inert_content


def test_every_hostile_form_trips_a_detector_and_ordinary_text_none() -> None:
    """Stored raw, each form would count as failed: the inert-content rows can go non-zero."""
    for family, forms in inert_content.FORMS.items():
        for form in forms:
            assert inert_content.trips(form.format(m="walrus anchor ref1z")), (family, form)
    for form in inert_content.ORDINARY:
        assert inert_content.trips(form.format(m="walrus anchor ref1z")) == [], form


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another uid needs root")
def test_no_process_without_the_secret_gets_a_grpc_answer_not_even_another_os_user(tmp_path: Path) -> None:
    rows = grpc_access.run(tmp_path)
    assert len(rows) == 4
    for row in rows:
        assert row.tried > 0 and row.failed == 0 and row.lost == 0, row
