"""Who owns a user: the stable hash the gateway routes by and the services check."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kernel.config import ConfigError, Settings
from kernel.sharding import NotThisShard, Shard, shard_of


def test_the_owner_of_a_user_never_changes() -> None:
    # Pinned values: a different hash (Python's salted hash(), another digest) would move every user.
    assert [shard_of(user, 4) for user in ("alice", "bob", "carol", "dave")] == [3, 2, 2, 3]
    assert shard_of("alice", 2) == int.from_bytes(bytes.fromhex("2bd806c97f0e00af"), "big") % 2
    assert shard_of("anyone", 1) == 0


def test_users_spread_over_the_shards() -> None:
    counts = Counter(shard_of(f"user{n}", 4) for n in range(4000))
    assert set(counts) == {0, 1, 2, 3}
    assert min(counts.values()) > 850  # about 1000 each


def test_a_shard_refuses_a_user_it_does_not_own_and_names_the_owner() -> None:
    owner = shard_of("alice", 3)
    Shard(owner, 3).check("alice")
    other = Shard((owner + 1) % 3, 3)
    assert not other.owns("alice")
    with pytest.raises(NotThisShard, match=f"belongs to shard {owner} of 3"):
        other.check("alice")


@pytest.mark.parametrize("raw", ["1", "a/2", "2/2", "-1/2", "1/0", ""])
def test_malformed_shard_settings_are_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="MNEMEX_SHARD"):
        Shard.parse(raw)


def test_settings_read_shards_and_their_addresses(tmp_path: Path) -> None:
    env = {
        "MNEMEX_HOME": str(tmp_path),
        "MNEMEX_MEMORY_SHARDS": "127.0.0.1:7001, 127.0.0.1:7002",
        "MNEMEX_SHARD": "1/2",
    }
    settings = Settings.from_env(env)
    assert settings.shards_of("memory") == ("127.0.0.1:7001", "127.0.0.1:7002")
    assert settings.shards_of("kg") == (settings.kg_addr,)
    assert settings.shard == Shard(1, 2)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("MNEMEX_MEMORY_SHARDS", "127.0.0.1:7001,127.0.0.1:7001", "twice"),
        ("MNEMEX_KG_SHARDS", "127.0.0.1:7001,nowhere", "HOST:PORT"),
        ("MNEMEX_SHARD", "3/2", "INDEX must be"),
    ],
)
def test_bad_shard_settings_name_the_variable(tmp_path: Path, variable: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as refused:
        Settings.from_env({"MNEMEX_HOME": str(tmp_path), variable: value})
    assert variable in str(refused.value)
