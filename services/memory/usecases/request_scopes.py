"""The scope a request acts in: its user (or the default user) and project, owned by this shard.

Every RPC resolves its scope here first, so a request for a user another shard
owns is refused (``NotThisShard``) before anything is read or written.
"""

from __future__ import annotations

from collections.abc import Callable

from services.memory.domain.naming import Scope, make_scope


class RequestScopes:
    def __init__(self, default_user: str, check_owner: Callable[[str], None] | None = None) -> None:
        self._default_user = default_user
        self._check_owner = check_owner  # raises NotThisShard for a user another shard owns; None: not sharded

    def resolve(self, user: str, project: str) -> Scope:
        scope = make_scope(user, project, self._default_user)
        if self._check_owner is not None:
            self._check_owner(scope.user)
        return scope
