"""``statetools worker``: run sessions of designs on Temporal (the ``temporal`` extra).

It imports ``temporalio`` only when run, so the rest of the command works without it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TextIO

from statetools.errors import StatetoolsError
from statetools.models.base import Model


class WorkerUsageError(StatetoolsError):
    """A mistake in a ``statetools worker`` command line."""


def _temporal() -> Any:
    try:
        import statetools.temporal as temporal_package
    except ImportError as exc:
        raise WorkerUsageError(
            f"the temporalio package is not installed ({exc})",
            hint="pip install 'statetools[temporal]'",
        ) from None
    return temporal_package


def _model(args: argparse.Namespace, designs: Any, package: Any) -> Model:
    if args.model_from:
        from statetools.spec.problems import Invalid
        from statetools.spec.references import import_object

        try:
            value = import_object(args.model_from)
        except Invalid as exc:
            raise WorkerUsageError(exc.message, path="--model-from", hint=exc.hint) from None
        model = value() if callable(value) and not isinstance(value, Model) else value
        if not isinstance(model, Model):
            raise WorkerUsageError(
                f"{args.model_from} is a {type(model).__name__}, not a model",
                path="--model-from",
                hint="name a Model, or a function returning one",
            )
        return model
    if args.model:
        from statetools.models.model_strings import resolve

        resolved: Model = resolve(args.model)
        return resolved
    for loaded in designs.values():
        if loaded.design is not None and loaded.design.script is not None:
            script: Model = package.ScriptByRequest(list(loaded.design.script))
            return script
    raise WorkerUsageError(
        "say which model the worker uses",
        path="statetools worker",
        hint="--model openai:gpt-4o-mini, --model-from module:MODEL, or a design with script:",
    )


def cmd_worker(args: argparse.Namespace, out: TextIO) -> int:
    """Run a worker until interrupted."""
    package = _temporal()
    designs = package.Designs(args.designs)
    model = _model(args, designs, package)

    async def serve() -> None:
        from temporalio.client import Client

        client = await Client.connect(args.temporal, namespace=args.namespace)
        worker = package.session_worker(
            client,
            args.task_queue,
            designs.values(),
            model,
            **worker_options(args),
        )
        sys.stderr.write(
            f"worker for {', '.join(designs)} on {args.temporal}, task queue {args.task_queue}\n"
        )
        sys.stderr.flush()
        await worker.run()

    asyncio.run(serve())
    return 0


def worker_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``temporalio.worker.Worker`` options the command line gives: the sticky
    timeout, and the capacity options that were given (the others keep Temporal's
    defaults)."""
    given = {
        "max_concurrent_workflow_tasks": args.max_concurrent_workflow_tasks,
        "max_concurrent_activities": args.max_concurrent_activities,
        "max_cached_workflows": args.max_cached_workflows,
    }
    options: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
    options["sticky_queue_schedule_to_start_timeout"] = timedelta(seconds=args.sticky_timeout)
    return options


def _at_least(minimum: int) -> Callable[[str], int]:
    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"expected a whole number of {minimum} or more, got {text!r}"
            )
        return value

    return count


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 10**9:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return value


def add_worker_command(commands: Any) -> None:
    """Add ``worker`` to the ``statetools`` subcommands."""
    sub = commands.add_parser(
        "worker",
        help="Run sessions of designs on Temporal (statetools[temporal]).",
        description="Run a Temporal worker for sessions of the designs: the workflow "
        "(the scheduler) and the model and tool activities. The user guide's page on durable "
        "sessions explains them.",
    )
    sub.add_argument(
        "designs",
        nargs="+",
        metavar="DESIGN",
        help="a design file, or an import path module:attribute",
    )
    sub.add_argument(
        "--temporal",
        default="127.0.0.1:7233",
        metavar="HOST:PORT",
        help="the Temporal server (default 127.0.0.1:7233)",
    )
    sub.add_argument(
        "--task-queue",
        required=True,
        metavar="Q",
        help="the task queue to take sessions from (start_session's task_queue)",
    )
    sub.add_argument("--namespace", default="default", help="Temporal namespace (default: default)")
    sub.add_argument(
        "--sticky-timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="how long a session's next step waits for this worker, which has the session "
        "in memory, before any worker takes it (a worker that died holds its sessions "
        "this long; default 10)",
    )
    sub.add_argument(
        "--max-concurrent-workflow-tasks",
        type=_at_least(2),
        metavar="N",
        help="workflow tasks (session steps) this worker runs at once (Temporal's default: 100)",
    )
    sub.add_argument(
        "--max-concurrent-activities",
        type=_at_least(1),
        metavar="N",
        help="model and tool calls this worker runs at once (Temporal's default: 100)",
    )
    sub.add_argument(
        "--max-cached-workflows",
        type=_at_least(0),
        metavar="N",
        help="sessions kept in memory between their steps (Temporal's default: 1000); "
        "a session not in memory is rebuilt from its history",
    )
    sub.add_argument("--model", metavar="SPEC", help="a model string, e.g. openai:gpt-4o-mini")
    sub.add_argument(
        "--model-from", metavar="MODULE:ATTR", help="a Model (or a function returning one)"
    )
    sub.set_defaults(handler=cmd_worker)
