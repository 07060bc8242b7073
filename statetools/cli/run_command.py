"""``statetools run``: a design run in a tool loop, with a live transcript; and the
``sessions`` command, which lists the runs saved by ``run --session``.

The model is the design's script or ``--model``; a session (``--session``) continues
where its saved run stopped; a design with check errors is refused unless
``--no-check``; ``--save-trace`` writes the trace even when the run fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from statetools.cli.terminal import Output, UsageError, add_model_options, model_options
from statetools.cli.transcript import Transcript, Watched
from statetools.durable import SqliteStore
from statetools.engine.events import ToolCalled, ToolStarted
from statetools.engine.run_result import LoopResult
from statetools.errors import StatetoolsError
from statetools.loop.toolloop import ToolLoop
from statetools.models.base import Model
from statetools.models.scripted import ScriptedModel
from statetools.spec.design import Design
from statetools.spec.preflight import design_refused
from statetools.wording import counted

__all__ = [
    "add_run_options",
    "run_design",
    "DEFAULT_STORE",
    "add_session_options",
    "add_sessions_command",
    "open_store",
]


def _model(spec: str, args: argparse.Namespace, disclosure: str | None = None) -> Model:
    """The model of ``--model``; a missing key's hint speaks of what a CLI user can do."""
    from statetools.models.model_strings import parse, resolve

    options: dict[str, Any] = {} if parse(spec)[0] == "scripted" else model_options(args)
    if disclosure:
        options["disclosure"] = disclosure
    try:
        return resolve(spec, **options)
    except StatetoolsError as error:
        if error.hint and "api_key=..." in error.hint:
            hint = error.hint.replace("pass api_key=...", "pass --api-key KEY")
            raise UsageError(error.message, path=error.path, hint=hint) from error
        raise


def _preflight(design: Design) -> None:
    """Refuse a design with check errors; print its warnings (to stderr)."""
    report = design.check(token_budget=None)
    for finding in report.warnings:
        sys.stderr.write(f"warning: {finding}\n")
    if report.errors:
        raise design_refused(report, design.source)


def run_design(design: Design, args: argparse.Namespace, out: TextIO) -> int:
    """``statetools run``: run ``design`` in a tool loop and print the transcript."""
    if args.model:
        model: Model = _model(args.model, args, args.disclosure)
    elif args.disclosure:
        raise UsageError(
            "--disclosure chooses how a provider's model gets the tools",
            hint="pass --model too, e.g. --model openai:gpt-5-mini --disclosure allowed_tools",
        )
    else:
        scripted = design.scripted_model()
        if scripted is None:
            raise UsageError(
                "the file has no script and no --model was given",
                path=design.source,
                hint="add a 'script:' to the file, or pass --model openai:gpt-4o-mini",
            )
        model = scripted
    store = open_store(args.store) if args.session else None
    saved = store.saved(args.session) if store is not None else None
    prompt: str | None = args.prompt or (None if saved is not None else design.prompt)
    if saved is not None and isinstance(model, ScriptedModel):
        model.continue_after(saved.result.messages)  # the script goes on where it stopped
    if not prompt and saved is None:
        raise UsageError("no prompt", hint="add 'prompt:' to the file or pass --prompt TEXT")
    if not args.no_check:
        _preflight(design)
    output = Output.of(out)
    transcript = Transcript(output)
    loop = ToolLoop(
        Watched(model, transcript, args.provider),
        system_prompt=design.system_prompt,
        max_iterations=args.max_iterations,
        check_design=False,
    )
    if saved is not None:
        output.line(
            f"session {args.session}: continuing after "
            f"{counted(saved.result.iterations, 'model call')}",
            "note",
        )
    if prompt:
        output.line(f"user: {prompt}", "user")
    transcript.legend()
    error: StatetoolsError | None = None
    running: dict[str, str] = {}  # call id -> name of each tool started and not returned

    async def streamed() -> LoopResult:
        stream = loop.stream(
            prompt,
            tools=design.tools,
            context=design.run_context(),
            session=args.session,
            store=store,
        )
        try:
            async for event in stream:
                if isinstance(event, ToolStarted):
                    running[event.call_id] = event.name
                elif isinstance(event, ToolCalled):
                    running.pop(event.call_id, None)
                transcript(event)
        except asyncio.CancelledError as cancelled:  # Ctrl-C: asyncio cancels the run,
            partial = getattr(cancelled, "result", None) or loop.last_result  # then waits
            if args.save_trace and partial is not None:  # for tools in worker threads
                _save_trace(args.save_trace, partial.trace, output)
            _wait_for_tools(sorted(set(running.values())))
            raise
        return stream.result

    try:
        result = asyncio.run(streamed())
        trace = result.trace
        if not transcript.shown(str(result.output)):  # the final answer is printed once
            output.line(f"answer: {result.output}", "answer")
    except StatetoolsError as exc:
        partial = getattr(exc, "result", None)
        if partial is None:
            raise
        trace, error = partial.trace, exc
    if args.save_trace:
        _save_trace(args.save_trace, trace, output)
    if error is not None:
        raise error
    return 0


def _save_trace(path: str, trace: Any, output: Output) -> None:
    """Write ``trace`` as JSON to ``path`` and say so."""
    Path(path).write_text(json.dumps(trace.to_json(), indent=1) + "\n", encoding="utf-8")
    output.line(f"trace saved to {path}", "note")


def _wait_for_tools(names: list[str]) -> None:
    """After Ctrl-C: synchronous tools still running in worker threads keep the process
    alive until they return (a thread cannot be stopped). Say so, and let a second
    Ctrl-C end the process at once (the session store has every answered step)."""
    workers = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if not names or not any(t.is_alive() and not t.daemon for t in workers):
        return  # nothing holds the process: a cancelled async tool has stopped already
    signal.signal(signal.SIGINT, lambda _signal, _frame: os._exit(130))
    which = ("tool " if len(names) == 1 else "tools ") + ", ".join(names)
    sys.stderr.write(f"interrupted: waiting for {which} to return; Ctrl-C again to exit now\n")
    sys.stderr.flush()


def add_run_options(sub: argparse.ArgumentParser) -> None:
    """The options of ``statetools run`` (``--provider`` aside, which every command has).

    >>> sub = argparse.ArgumentParser(prog="run")
    >>> add_run_options(sub)
    >>> sub.parse_args(["--model", "openai:gpt-5-mini", "--no-check"]).max_iterations
    20
    """
    sub.add_argument(
        "--model",
        metavar="MODEL",
        help="openai:NAME (Responses API), openai-chat:NAME (Chat Completions), "
        "anthropic:NAME or scripted:PATH (default: the file's script)",
    )
    add_model_options(sub)
    sub.add_argument(
        "--disclosure",
        choices=("tools", "allowed_tools", "deferred"),
        help="how the model gets the visible tools: the tools array (default), "
        "allowed_tools (OpenAI) or deferred (Anthropic); the user guide's providers page "
        "explains them",
    )
    sub.add_argument(
        "--no-check",
        action="store_true",
        help="run even if `statetools check` finds errors in the design",
    )
    sub.add_argument("--prompt", metavar="TEXT", help="the user's message (default: the file's)")
    sub.add_argument("--save-trace", metavar="PATH", help="write the run's trace as JSON")
    add_session_options(sub)
    sub.add_argument(
        "--max-iterations", type=int, default=20, metavar="N", help="model calls allowed (20)"
    )


DEFAULT_STORE = Path(".statetools") / "sessions.db"
"""Where sessions are kept when no --store is given (relative to the current folder)."""


def add_session_options(sub: argparse.ArgumentParser) -> None:
    """``--session ID`` and ``--store FILE`` for ``statetools run``."""
    sub.add_argument(
        "--session",
        metavar="ID",
        help="save the run as session ID after every step; run again to continue it "
        "(a --prompt is a new user message)",
    )
    sub.add_argument(
        "--store", metavar="FILE", help=f"the session store (default: {DEFAULT_STORE})"
    )


def open_store(path: str | None) -> SqliteStore:
    """The store at ``path`` (or the default one)."""
    return SqliteStore(path or DEFAULT_STORE)


def cmd_sessions(args: argparse.Namespace, out: TextIO) -> int:
    """List the saved sessions, the most recent first."""
    with open_store(args.store) as store:
        sessions = store.sessions()
    if not sessions:
        out.write(f"no sessions in {store.path}\n")
        return 0
    width = max(len(s.id) for s in sessions)
    for info in sessions:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.updated))
        calls = "model call " if info.iterations == 1 else "model calls"
        out.write(f"{info.id:<{width}}  {info.outcome:<12} {info.iterations:>3} {calls}  {when}\n")
    return 0


def add_sessions_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``statetools sessions``."""
    text = "List the sessions saved by `statetools run --session`."
    sub = commands.add_parser("sessions", help=text, description=text)
    sub.add_argument(
        "--store", metavar="FILE", help=f"the session store (default: {DEFAULT_STORE})"
    )
    sub.set_defaults(handler=cmd_sessions)
