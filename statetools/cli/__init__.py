"""The ``statetools`` command: check, explore, measure, render and run designs.

Every command takes a design file (YAML or JSON; see docs/yaml.md). User errors print
one clear message and exit with status 2; ``check`` exits with 1 when it finds errors.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO, cast

from statetools.cli.eval_command import add_eval_command
from statetools.cli.review_commands import (
    show_exploration,
    show_prompt_states,
    show_report,
    show_tokens,
)
from statetools.cli.run_command import add_run_options, run_design
from statetools.cli.server_commands import add_mcp_commands
from statetools.cli.sessions import add_sessions_command
from statetools.cli.terminal import Output, UsageError
from statetools.cli.worker_command import add_worker_command
from statetools.disclosure.graph import DisclosureGraph, disclosure_graph
from statetools.disclosure.prompt_part import expandable_prompts
from statetools.disclosure.scheduler import Scheduler
from statetools.engine.events import (
    Trace,
)
from statetools.errors import StatetoolsError
from statetools.review.check import DEFAULT_TOKEN_BUDGET
from statetools.review.explore import (
    DEFAULT_MAX_STATES,
    ExplorationTooLarge,
    Progress,
    explore,
    flat_tools,
    search,
)
from statetools.review.findings import RULES
from statetools.review.model import DesignView
from statetools.review.prefix import PathBreaks, prefix_breaks
from statetools.review.render import FORMATS, render
from statetools.review.tokens import tools_tokens
from statetools.spec.design import Design, load_design
from statetools.wording import counted

PROVIDERS = ("openai", "anthropic")


# -- shared ------------------------------------------------------------------------


def _design(path: str) -> Design:
    if not Path(path).is_file():
        raise UsageError(f"no such file: {path}", hint="give the path of a design YAML file")
    return load_design(Path(path))


def _graph(design: Design) -> DisclosureGraph:
    if not design.definitions and not design.catalogue:
        raise UsageError(
            "the file defines no tools, playbooks or machines",
            path=design.source,
            hint="add 'kind: playbook', 'kind: machine' or 'kind: facade' definitions, "
            "or a 'tools:' list",
        )
    return (
        disclosure_graph(*design.tools)
        if design.definitions
        else disclosure_graph(*design.catalogue)
    )


# -- commands ------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    """Report the design's problems; exit 1 if any is an error."""
    design = _design(args.file)
    _graph(design)  # a file without definitions is a usage error
    report = design.check(
        disable=args.disable,
        token_budget=None if args.token_budget == 0 else args.token_budget,
        provider=args.provider,
    )
    if args.format == "json":
        out.write(report.to_json() + "\n")
    else:
        show_report(Output.of(out), report)
    return 1 if report.errors else 0


def cmd_explore(args: argparse.Namespace, out: TextIO) -> int:
    """Visible sets, minimum turns per tool and tokens per set."""
    design = _design(args.file)
    output = Output.of(out)
    with output.progress("exploring") as update:

        def progress(step: Progress) -> None:
            update(f"{counted(step.states, 'state')}, turn {step.depth}")

        try:
            exploration = explore(
                _graph(design),
                provider=args.provider,
                max_states=args.max_states,
                progress=progress,
            )
        except ExplorationTooLarge as exc:  # its hint names explore()'s arguments
            raise ExplorationTooLarge(
                exc.message,
                depth=exc.depth,
                states=exc.states,
                hint=f"pass a larger --max-states (now {args.max_states:,})",
            ) from exc
    if args.format == "json":
        out.write(exploration.to_json() + "\n")
    else:
        show_exploration(output, exploration)
    return 0


def _code_mode_graph(design: Design) -> DisclosureGraph:
    """The design with everything in it reached through one code-mode tool."""
    from statetools.code import CodeMode

    _graph(design)  # a file without definitions is a usage error
    return disclosure_graph(CodeMode(*(design.tools if design.definitions else design.catalogue)))


def _prompt_tokens(output: Output, graph: DisclosureGraph, args: argparse.Namespace) -> None:
    """Per explored state, the tokens of the text the sections write into the system
    prompt next to the tokens of the visible tools (designs with sections only)."""
    if not expandable_prompts(graph):
        return
    design = DesignView(graph)
    exploration = search(design, args.provider, args.max_states, None, stop_at_limit=True)
    show_prompt_states(output, exploration)


def cmd_tokens(args: argparse.Namespace, out: TextIO) -> int:
    """Tokens of the first visible set (and, with --vs-flat, of every tool at once)."""
    design = _design(args.file)
    output = Output.of(out)
    graph = _code_mode_graph(design) if args.code_mode else _graph(design)
    counter = None
    if args.base_url:
        from statetools.review.template_tokens import TemplateTokens

        counter = TemplateTokens(args.base_url, system_prompt=design.system_prompt)
    in_model: list[int] = []
    with output.progress("counting tokens") as update:
        first = Scheduler(graph, strict_sections=False).visible()
        update(f"first visible set: {counted(len(first), 'tool')}")
        rows = [("first visible set", len(first), tools_tokens(first, args.provider))]
        sets = [first]
        if args.vs_flat:
            flat = flat_tools(graph)
            update(f"every tool at once: {counted(len(flat), 'tool')}")
            label = "flat (every tool at once, no facades)"
            rows.append((label, len(flat), tools_tokens(flat, args.provider)))
            sets.append(flat)
        if counter is not None:
            update("counting with the server's template")
            in_model = [counter.tools_tokens(tools) for tools in sets]
    template = (counter.model_name(), in_model) if counter is not None else None
    show_tokens(output, args.provider, rows, template)
    _prompt_tokens(output, _graph(design), args)
    if args.prefix_breaks:
        _write_prefix_breaks(prefix_breaks(_graph(design)), out, args.tool_search)
    return 0


PATHS_SHOWN = 40


def _write_prefix_breaks(paths: list[PathBreaks], out: TextIO, tool_search: bool = False) -> None:
    """Every path that no other path extends, the most breaks first (with
    ``tool_search``: the breaks of OpenAI's ``tool_search`` mode, then the default's)."""
    prefixes = {p.path[:i] for p in paths for i in range(len(p.path))}

    def breaks(p: PathBreaks) -> int:
        return p.search_breaks if tool_search else p.breaks

    ends = sorted(
        (p for p in paths if p.path not in prefixes),
        key=lambda p: (-breaks(p), len(p.path), p.path),
    )
    broken = sum(1 for p in ends if breaks(p))
    aside = "default mode" if tool_search else "registration order"
    mode = " in tool_search mode" if tool_search else ""
    out.write(
        f"prefix breaks per path{mode} ({counted(len(ends), 'path')}, {broken} with breaks; "
        f"{aside} in parentheses):\n"
    )
    for p in ends[:PATHS_SHOWN]:
        route = ", ".join(p.path) if p.path else "(start)"
        other = p.breaks if tool_search else p.registration_breaks
        out.write(f"  {breaks(p)} ({other})  {route}\n")
    if len(ends) > PATHS_SHOWN:
        out.write(f"  ... and {len(ends) - PATHS_SHOWN} more\n")


def _load_trace(path: str) -> Trace:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(
            f"cannot read trace {path}: {exc}", hint="use a file from --save-trace"
        ) from exc
    if isinstance(data, dict):
        data = data.get("trace", data)
    try:
        return Trace.from_json(data)
    except Exception as exc:
        raise UsageError(
            f"{path} is not a statetools trace", hint="use a file from --save-trace"
        ) from exc


def cmd_render(args: argparse.Namespace, out: TextIO) -> int:
    """Draw the design (DOT, SVG, PNG or Mermaid, from the output's suffix)."""
    design = _design(args.file)
    target = Path(args.output)
    fmt = args.format or {".mmd": "mermaid", ".gv": "dot"}.get(target.suffix, target.suffix[1:])
    if fmt not in FORMATS:
        raise UsageError(
            f"cannot tell the format of {args.output}",
            hint="end the file name in .dot, .svg, .png or .mmd, or pass --format "
            f"({', '.join(FORMATS)})",
        )
    trace = _load_trace(args.trace) if args.trace else None
    render(_graph(design), cast(Any, fmt), trace).save(target)
    out.write(f"wrote {target}\n")
    return 0


def cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    """Run the design in a tool loop and print the transcript."""
    return run_design(_design(args.file), args, out)


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
