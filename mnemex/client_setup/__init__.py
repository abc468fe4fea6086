"""Install and remove mnemex in Claude Code, Cursor and OpenCode configs.

Entry points (the CLI wires ``mnemex init [--cursor] [--opencode] [--dry-run]``
and ``mnemex uninit [--dry-run]`` to these):

- ``init(home=None, *, cursor=False, opencode=False, dry_run=False) -> SetupResult``
- ``uninit(home=None, *, dry_run=False) -> SetupResult``
- ``SetupResult.render()``: the diff (dry run) or a summary; ``.changed``.
- ``SetupError``: a config cannot be merged safely; its message says what to do.
"""

from mnemex.client_setup.files import SetupError
from mnemex.client_setup.setup import FileChange, SetupResult, init, manifest_path, targets, uninit

__all__ = ["FileChange", "SetupError", "SetupResult", "init", "manifest_path", "targets", "uninit"]
