"""A worker that runs statetools sessions: ``statetools worker DESIGN --temporal
HOST:PORT --task-queue Q`` or :func:`session_worker` in your own process."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker

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
