"""The CLI's sessions: ``run --session`` options and the ``sessions`` command."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TextIO

from statetools.durable import SqliteStore

__all__ = ["DEFAULT_STORE", "add_session_options", "add_sessions_command", "open_store"]

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
