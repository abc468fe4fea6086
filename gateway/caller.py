"""Who a request acts for: one ``Caller(user, project)``, resolved once at each edge.

- HTTP routes: ``CallerResolver.resolve(cwd)`` with the request's ``cwd`` and the
  user a per-user token authenticated (``gateway.user_tokens.authenticated_user``,
  set by the bearer check), else the configured ``MNEMEX_USER``;
- the MCP runner: the same, once per tool call (its ``cwd`` argument, header or default);
- the viewer: ``CallerResolver.pinned(project)``, the project named by ``?project=``.

Services take a ``Caller``, never a ``cwd``; ``caller.scope`` is the one
``common_pb.Scope`` every memory and kg request of the call carries.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.user_tokens import authenticated_user
from kernel import projects
from kernel.config import Settings
from protos.mnemex.common.v1 import common_pb2 as common_pb


@dataclass(frozen=True)
class Caller:
    """One request's user and project. ``remote``: a per-user token made it, so it may not reach other users'
    data, and its cwd is a path on the user's machine, never ours to probe."""

    user: str
    project: str
    remote: bool = False

    @property
    def scope(self) -> common_pb.Scope:
        return common_pb.Scope(user=self.user, project=self.project)


class CallerResolver:
    """Turns a request's ``cwd`` (and its authenticated user) into a ``Caller``."""

    def __init__(self, settings: Settings) -> None:
        self._home = settings.home
        self._default_user = settings.user
        self._projects = projects.CachedResolver(settings.home)

    def user(self) -> str:
        """Whose memories this request reaches: a per-user token's user, else the configured user."""
        return authenticated_user.get() or self._default_user

    def resolve(self, cwd: str | None) -> Caller:
        authenticated = authenticated_user.get()
        if authenticated is not None:
            return Caller(authenticated, projects.resolve_remote(cwd, self._home), remote=True)
        return Caller(self._default_user, self._projects(cwd))

    def pinned(self, project: str) -> Caller:
        """The viewer's caller: the project is the one it names (already checked), not resolved from a cwd."""
        authenticated = authenticated_user.get()
        return Caller(authenticated or self._default_user, project, remote=authenticated is not None)
