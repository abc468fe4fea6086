from __future__ import annotations

from gateway.reply_models import HealthOut
from tests.integration.gateway.live_stack import LiveStack


def test_health_is_ok(live: LiveStack) -> None:
    health = live.get_as("/api/health", HealthOut)
    assert health.status == "ok"
    assert set(health.services) == {"embedding", "memory", "kg"}
