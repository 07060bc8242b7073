"""Shared fixtures of the statetools test suite.

Hypothesis profiles: locally the property tests explore new examples on every run
(the ``default`` profile); in CI (the ``CI`` environment variable is set, as
``.ci/run`` does) they are derandomized, so a submission's result does not depend on
luck. A failure found locally is pinned with ``@example`` next to the test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.providers.provider_wire import PROVIDER_ENVIRONMENT, WireServer

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("default")
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[WireServer]:
    """The local wire server of the provider tests (tests/providers/provider_wire.py);
    no provider keys, settings or profiles of this machine reach the SDK clients."""
    for name in PROVIDER_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.config/anthropic profiles
    server = WireServer()
    server.start()
    yield server
    server.stop()
