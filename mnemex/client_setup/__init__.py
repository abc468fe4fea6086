"""Install and remove mnemex in Claude Code, Cursor and OpenCode configs.

Entry points (the CLI wires ``mnemex init --client claude,cursor,opencode [--dry-run]``
and ``mnemex uninit [--client ...] [--dry-run]`` to these):

- ``init(home=None, *, clients=None, cursor=False, opencode=False, dry_run=False,
  python=None, hook_python=None, gateway_url=None, environ=None) -> SetupResult``
  (``clients`` default: ``("claude",)``; ``cursor``/``opencode`` add those).
- ``uninit(home=None, *, dry_run=False, clients=CLIENTS) -> SetupResult``
- ``SetupResult.render()``: the diff (dry run) or a summary; ``.changed``; ``.skipped``.
- ``SetupError``: a config cannot be merged safely; its message says what to do.

Besides the client configs, ``init`` writes the client folder
``<mnemex home>/client/``: ``hooks/*.py`` (copies the hook commands run) and
``connection.json`` (0600: the stack's ``MNEMEX_*`` settings and its start command).
"""

from mnemex.client_setup.client_entries import CLIENTS
from mnemex.client_setup.files import SetupError
from mnemex.client_setup.result import FileChange, SetupResult
from mnemex.client_setup.setup import init, manifest_path, targets, uninit

__all__ = ["CLIENTS", "FileChange", "SetupError", "SetupResult", "init", "manifest_path", "targets", "uninit"]
