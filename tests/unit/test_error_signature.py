"""The error line of a tool's output and its normalised signature (kernel.error_signature)."""

from __future__ import annotations

import pytest

from kernel.error_signature import error_line, of_output, signature

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/home/dev/shop/tests/conftest.py", line 3, in <module>\n'
    "    import billing.tax\n"
    "ModuleNotFoundError: No module named 'billing.tax'\n"
)


def test_the_last_exception_line_names_the_error() -> None:
    assert error_line(TRACEBACK) == "ModuleNotFoundError: No module named 'billing.tax'"
    assert error_line("compiling...\nerror[E0308]: mismatched types\n --> src/main.rs:4:18") == (
        "error[E0308]: mismatched types"
    )
    assert error_line("all good\n3 files changed") == ""


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (TRACEBACK, TRACEBACK.replace("billing.tax", "ledger").replace("/home/dev/shop", "/srv/app")),
        (
            "alembic.util.exc.CommandError: Can't locate revision identified by 'ae1027a6acf'",
            "CommandError: Can't locate revision identified by '51c2d0e9b7f3'",
        ),
        (
            'psycopg2.OperationalError: connection to server at "db" (10.0.0.5), port 5432 failed: Connection refused',
            'OperationalError: connection to server at "localhost" (127.0.0.1), port 5433 failed: Connection refused',
        ),
    ],
)
def test_the_same_error_with_other_names_has_one_signature(one: str, other: str) -> None:
    assert of_output(one)[1] == of_output(other)[1] != ""


def test_different_errors_keep_different_signatures() -> None:
    assert signature("ModuleNotFoundError: No module named 'x'") != signature("ImportError: cannot import name 'x'")
    assert signature("fatal: not a git repository") != signature("fatal: refusing to merge unrelated histories")


def test_a_pytest_failure_is_named_by_its_E_line_not_by_the_tally() -> None:
    output = "E   AssertionError: invoice total -2147 != 2147\nE   assert False\n1 failed in 3.20s"
    assert error_line(output) == "AssertionError: invoice total -2147 != 2147"
    assert of_output(output)[1] == "assertionerror: invoice total -<n> != <n>"


def test_a_number_with_a_unit_is_normalised() -> None:
    assert signature("ReadTimeout: no answer after 31.02s from the bucket") == signature(
        "ReadTimeout: no answer after 9.5s from the bucket"
    )


@pytest.mark.parametrize("output", ["1 failed in 31.02s", "error during build", "FAILED (failures=2)", "exit status 1"])
def test_a_bare_tally_has_no_signature(output: str) -> None:
    """A signature shared by every failing run of a tool would tie unrelated problems together."""
    assert of_output(output)[1] == ""
