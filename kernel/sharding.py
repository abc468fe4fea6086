"""Which shard owns a user: the one rule the gateway routes by and the services check.

The memory and kg services keep per-scope state in process (search mirrors,
session state, graphs), so several replicas are correct only if each user's
scopes live on exactly one of them. A user belongs to shard
``shard_of(user, count)``: a stable hash (SHA-256, not Python's salted
``hash``), the same in every process and every run.

- The gateway is given the shards' addresses in order (``MNEMEX_MEMORY_SHARDS``,
  ``MNEMEX_KG_SHARDS``) and sends each call to its user's shard.
- Each service is told which shard it is (``MNEMEX_SHARD=INDEX/COUNT``); it
  refuses a call for a user it does not own (FAILED_PRECONDITION), and warms
  and sweeps only its own users' scopes, so two shards storing in one Chroma
  server never work on the same collections.

Sharding is by user, not by (user, project): a user's memory_bank spans their
projects and must live with them. Changing the shard count moves users; their
memories are in the shared Chroma server and the new owner rebuilds its mirrors
from there, but session state of sessions in flight stays with the old owner.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

SHARD_ENV = "MNEMEX_SHARD"


class NotThisShard(Exception):
    """A call reached a service that does not own its user (-> FAILED_PRECONDITION)."""


def shard_of(user: str, count: int) -> int:
    """The index, in ``range(count)``, of the shard that owns ``user``."""
    if count < 1:
        raise ValueError(f"shard count must be at least 1, not {count}")
    digest = hashlib.sha256(user.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count


@dataclass(frozen=True)
class Shard:
    """This process's place among ``count`` shards."""

    index: int
    count: int

    @classmethod
    def parse(cls, raw: str, variable: str = SHARD_ENV) -> Shard:
        """``"1/3"`` -> Shard(1, 3). Raises ValueError with a message naming ``variable``."""
        index, sep, count = raw.strip().partition("/")
        if not sep or not index.isdigit() or not count.isdigit():
            raise ValueError(f"{variable}={raw!r} is not INDEX/COUNT (example: 0/2 for the first of two shards)")
        shard = cls(int(index), int(count))
        if not 0 <= shard.index < shard.count:
            raise ValueError(f"{variable}={raw!r}: INDEX must be 0..COUNT-1")
        return shard

    def owns(self, user: str) -> bool:
        return shard_of(user, self.count) == self.index

    def check(self, user: str) -> None:
        """Raise NotThisShard, naming the right shard, unless this one owns ``user``."""
        owner = shard_of(user, self.count)
        if owner != self.index:
            raise NotThisShard(
                f"user {user!r} belongs to shard {owner} of {self.count}, and this is shard {self.index}: "
                "route by kernel.sharding.shard_of, or check that MNEMEX_MEMORY_SHARDS / MNEMEX_KG_SHARDS "
                "list the shards in the order of their MNEMEX_SHARD"
            )
