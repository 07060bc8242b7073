"""Fixtures of the provider wire tests (the local server, ``wire``, is in tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.providers.provider_wire import PROVIDER_ENVIRONMENT


@pytest.fixture(autouse=True)
def _no_provider_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Keys, settings and profiles of the developer's machine never reach these tests."""
    for name in PROVIDER_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.config/anthropic profiles
