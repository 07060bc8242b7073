"""Fixtures of the provider wire tests: a local server, tools and an injection strategy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.providers.provider_wire import WireServer

PROVIDER_ENVIRONMENT = (
    "OPENAI_API_KEY",
    "OPENAI_ADMIN_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_CUSTOM_HEADERS",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CONFIG_DIR",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_IDENTITY_TOKEN",
    "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "ANTHROPIC_FEDERATION_RULE_ID",
    "ANTHROPIC_ORGANIZATION_ID",
)


@pytest.fixture(autouse=True)
def _no_provider_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Keys, settings and profiles of the developer's machine never reach these tests."""
    for name in PROVIDER_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.config/anthropic profiles


@pytest.fixture
def wire() -> Iterator[WireServer]:
    server = WireServer()
    server.start()
    yield server
    server.stop()
