"""What the tests and the benchmarks share: stack harnesses, fakes, corpora and helpers.

The direction of imports:

- ``tests/support`` is the bottom: it imports production code and itself, never another part of
  ``tests/`` nor ``bench/``.
- ``bench/`` imports from ``tests/`` only ``tests.support`` (a stack harness, a scenario, a corpus).
- A test imports ``bench`` only to test the bench itself: its parsers, metrics and scenarios
  (``test_bench_*``, ``test_locomo_*``), or to run a bench workload as a test.
- A test module never imports a ``conftest.py``: fixtures stay there, and a plain helper that a
  module imports lives here (``tests/unit/test_suite_parts.py`` checks all three).

``suites.py`` says which part of the suite (unit, integration, browser, e2e) each directory is.
"""
