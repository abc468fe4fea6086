# The commands (see README):
#   make up     install into .venv and run the whole stack on loopback
#   make test   install into .venv (with dev tools), run the quality gate (ruff, mypy) and the test suite
#   make test-fast   only the unit tests (tests/unit, marked `unit` by tests/conftest.py), no install, no lint
.PHONY: up test test-fast lint install install-dev protos bench

install:
	bash scripts/install.sh

install-dev:
	bash scripts/install.sh --dev

up: install
	.venv/bin/mnemex up

# The tests run services in-process too: they get the heap scrubbing the supervisor gives every service
# (mnemex/supervisor/specs.py HEAP_SCRUB_ENV), so no stale request bytes reach a file a native library writes.
test: lint
	MALLOC_PERTURB_=165 .venv/bin/python -m pytest -q

# The unit tests alone: no network, no service started; under 2 minutes on a 2-core machine.
test-fast:
	MALLOC_PERTURB_=165 .venv/bin/python -m pytest -q -m unit -p no:cacheprovider tests/unit

# The quality gate, also the first half of `make test`.
lint: install-dev
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	MYPYPATH=hooks .venv/bin/mypy --strict --disallow-any-explicit $(HOOK_MODULES)

# The hooks run as top-level scripts that import each other by bare name (hook_json, hook_client), which the
# package-wide run cannot resolve; this second run checks them as the modules they run as.
HOOK_MODULES = $(patsubst hooks/%.py,-m %,$(filter-out hooks/__init__.py,$(wildcard hooks/*.py)))

protos: install-dev
	.venv/bin/python scripts/gen_protos.py
