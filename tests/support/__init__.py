"""What the tests and the benchmarks share: stack harnesses, fakes, corpora and helpers.

The direction of imports:

- ``tests/support`` is the bottom: it imports production code and itself, never another part of
  ``tests/`` nor ``bench/``.
- ``bench/`` imports from ``tests/`` only ``tests.support`` (a stack harness, a scenario, a corpus).
- A test imports ``bench`` only for the bench's own sake: to test its parsers, metrics and scenarios
  (``test_bench_*``, ``test_locomo_*``, ``test_issue36_attack_parts``), or to hold the stack to what a
  bench measures, with the bench's own workload or reader (``test_shared_project_writes``,
  ``test_block_says_each_fact_once``). Nothing else in ``tests/`` depends on ``bench/``.
- A test module never imports a ``conftest.py``: fixtures stay there, and a plain helper that a
  module imports lives here (``tests/unit/test_suite_parts.py`` checks all three).

``suites.py`` says which part of the suite (unit, integration, browser, e2e) each directory is.
"""
