"""Settings for CLI commands, with configuration errors turned into CLI failures."""

from __future__ import annotations

from kernel.config import ConfigError, Settings
from mnemex.cli.output import fail


def load_settings() -> Settings:
    try:
        return Settings.from_env()
    except ConfigError as exc:
        fail(f"configuration error: {exc}")
