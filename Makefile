# The two commands (see README):
#   make up     install into .venv and run the whole stack on loopback
#   make test   install into .venv (with dev tools) and run the test suite
.PHONY: up test install install-dev protos bench

install:
	bash scripts/install.sh

install-dev:
	bash scripts/install.sh --dev

up: install
	.venv/bin/mnemex up

test: install-dev
	.venv/bin/python -m pytest -q

protos: install-dev
	.venv/bin/python scripts/gen_protos.py
