"""The ``statetools`` command: check, explore, measure, render and run designs.

Every command takes a design file (YAML or JSON; see docs/yaml.md). User errors print
one clear message and exit with status 2; ``check`` exits with 1 when it finds errors.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from statetools.cli.eval_command import add_eval_command
from statetools.cli.examples_command import add_examples_command
from statetools.cli.review_commands import (
    cmd_check,
    cmd_explore,
    cmd_render,
    cmd_tokens,
    design_file,
)
from statetools.cli.run_command import add_run_options, add_sessions_command, run_design
from statetools.cli.server_commands import add_mcp_commands, add_worker_command
from statetools.errors import StatetoolsError
from statetools.review.check import DEFAULT_TOKEN_BUDGET
from statetools.review.explore import DEFAULT_MAX_STATES
from statetools.review.findings import RULES
from statetools.review.render import FORMATS

PROVIDERS = ("openai", "anthropic")


def cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    """Run the design in a tool loop and print the transcript."""
    return run_design(design_file(args.file), args, out)


# -- parser ------------------------------------------------------------------------


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("statetools")
    except PackageNotFoundError:  # run from a source tree that is not installed
        return "(not installed)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="statetools",
        description="Check, explore, measure, render and run tool-disclosure designs.",
        epilog="Each command takes a design file: YAML (or JSON) naming tools by import "
        "path (module:function) and arranging them into playbooks, state machines and "
        "facades; the user guide's YAML reference describes every key. "
        "Exit status: 0 ok, 1 check found errors, 2 usage or input error.",
    )
    parser.add_argument("--version", action="version", version=f"statetools {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, handler: Any, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("file", metavar="FILE", help="the design file")
        sub.add_argument(
            "--verbose",
            action="store_true",
            help="show what stdio MCP servers write on stderr while they are listed "
            "(otherwise shown only when one fails)",
        )
        sub.set_defaults(handler=handler)
        return sub

    def provider(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--provider",
            choices=PROVIDERS,
            default="openai",
            help="count tokens as this provider's SDK sends tools (default: openai)",
        )

    sub = command("check", cmd_check, "Report problems of a design, with stable codes.")
    sub.add_argument("--format", choices=("text", "json"), default="text", help="default: text")
    sub.add_argument(
        "--disable",
        action="append",
        default=[],
        metavar="CODE",
        help="switch a check off, by code or name (repeatable): "
        + ", ".join(f"{rule.code} {rule.name}" for rule in RULES),
    )
    sub.add_argument(
        "--token-budget",
        type=int,
        default=DEFAULT_TOKEN_BUDGET,
        metavar="N",
        help="largest visible set allowed, in tokens "
        f"(0: no limit; default {DEFAULT_TOKEN_BUDGET})",
    )
    provider(sub)

    sub = command("explore", cmd_explore, "List visible sets, turns to reach each tool, tokens.")
    sub.add_argument("--format", choices=("text", "json"), default="text", help="default: text")
    sub.add_argument(
        "--max-states",
        type=int,
        default=DEFAULT_MAX_STATES,
        metavar="N",
        help=f"stop with an error beyond N disclosure states (default {DEFAULT_MAX_STATES:,})",
    )
    provider(sub)

    sub = command(
        "tokens",
        cmd_tokens,
        "Count the tokens of the first visible set (with sections: of the prompt text "
        "and the tools in each state).",
    )
    sub.add_argument("--vs-flat", action="store_true", help="compare with all tools at once")
    sub.add_argument(
        "--code-mode",
        action="store_true",
        help="count the design as code mode shows it: one run_code tool listing the "
        "callable tools as Python functions (st.CodeMode)",
    )
    sub.add_argument(
        "--max-states",
        type=int,
        default=DEFAULT_MAX_STATES,
        metavar="N",
        help="with sections: explore at most N disclosure states for the prompt tokens "
        f"per state (default {DEFAULT_MAX_STATES:,})",
    )
    sub.add_argument(
        "--prefix-breaks",
        action="store_true",
        help="count, per path, the requests whose tools array breaks the cached prefix",
    )
    sub.add_argument(
        "--tool-search",
        action="store_true",
        help="with --prefix-breaks: count them in OpenAI's tool_search mode (facades as "
        "namespaces of deferred tools)",
    )
    sub.add_argument(
        "--base-url",
        metavar="URL",
        help="also count as a local model reads the tools: its chat template and "
        "tokenizer, asked of the llama.cpp llama-server (started with --jinja) at URL",
    )
    provider(sub)

    sub = command("render", cmd_render, "Draw the design with graphviz (or as Mermaid).")
    sub.add_argument("-o", "--output", required=True, metavar="OUT", help="file to write")
    sub.add_argument("--format", choices=FORMATS, help="default: from the suffix of OUT")
    sub.add_argument("--trace", metavar="TRACE.json", help="mark the path of a saved run")

    sub = command("run", cmd_run, "Run the design in a tool loop, printing a live transcript.")
    add_run_options(sub)
    provider(sub)
    add_mcp_commands(commands)
    add_sessions_command(commands)
    add_worker_command(commands)
    add_eval_command(commands)
    add_examples_command(commands)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Entry point of the ``statetools`` command; returns the exit status."""
    stream = out or sys.stdout
    args = _parser().parse_args(argv)
    if getattr(args, "verbose", False):
        with _server_stderr_shown():
            return _answer(args, stream)
    return _answer(args, stream)


def _answer(args: argparse.Namespace, stream: TextIO) -> int:
    """Run the command ``args`` chose; returns the exit status."""
    try:
        return int(args.handler(args, stream))
    except StatetoolsError as exc:
        if _broken_pipe(exc):  # the reader went away while a listener or model wrote
            return _quiet_exit(stream)
        sys.stderr.write(f"statetools {args.command}: error: {exc}\n")
        return 2
    except BrokenPipeError:  # the reader went away (e.g. `statetools run ... | head`)
        return _quiet_exit(stream)
    except OSError as exc:  # a file that cannot be read or written
        where = f"{exc.filename}: " if exc.filename else ""
        sys.stderr.write(f"statetools {args.command}: error: {where}{exc.strerror or exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130


@contextlib.contextmanager
def _server_stderr_shown() -> Iterator[None]:
    """``--verbose``: MCP servers listed for the design write on our stderr."""
    try:
        from statetools.mcp.design_servers import SHOW_SERVER_STDERR
    except ImportError:  # no mcp extra: no MCP servers to hear from
        yield
        return
    token = SHOW_SERVER_STDERR.set(True)
    try:
        yield
    finally:
        SHOW_SERVER_STDERR.reset(token)


def _broken_pipe(error: BaseException) -> bool:
    """Whether ``error`` was caused, at any depth, by the reader closing the pipe."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, BrokenPipeError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _quiet_exit(stream: TextIO) -> int:
    """Exit 0 without a word: later writes (and the interpreter's final flush) of the
    closed stream go to /dev/null instead of raising again."""
    # a test's StringIO has no file descriptor: nothing will flush it
    with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
    return 0
