from __future__ import annotations

import asyncio

import pytest

from services.memory.storage.group_commit import GroupCommit


def test_concurrent_updates_share_store_calls_and_all_land() -> None:
    calls: list[tuple[object, list[str], list[dict[str, object]]]] = []

    async def flush(target: object, ids: list[str], metas: list[dict[str, object]]) -> None:
        await asyncio.sleep(0.01)  # a slow store call
        calls.append((target, ids, metas))

    async def main() -> GroupCommit[object]:
        commit = GroupCommit(flush)
        await asyncio.gather(*(commit.update("col", f"id{i}", {"n": i}) for i in range(20)))
        await commit.update("col", "id0", {"n": 100})
        return commit

    commit = asyncio.run(main())
    assert commit.updates == 21 and commit.calls < 5
    written = {i: m for _, ids, metas in calls for i, m in zip(ids, metas, strict=True)}
    assert written["id19"] == {"n": 19} and calls[-1][1] == ["id0"] and calls[-1][2] == [{"n": 100}]


def test_a_failed_store_call_fails_its_waiters_only() -> None:
    async def flush(target: object, ids: list[str], metas: list[dict[str, object]]) -> None:
        if target == "broken":
            raise OSError("disk full")

    async def main() -> None:
        commit = GroupCommit(flush)
        with pytest.raises(OSError, match="disk full"):
            await commit.update("broken", "a", {"x": 1})
        await commit.update("fine", "b", {"x": 1})

    asyncio.run(main())
