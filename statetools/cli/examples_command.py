"""``statetools examples``: a model writes example requests for the tools of a design.

    statetools examples desk.yaml --model openai-chat:qwen \\
        --base-url http://127.0.0.1:8080/v1 --out requests.json

The tools are those below the design's search facades (each once, in the order the
facades hold them), or every tool of the design when it has no search facade. The
result is JSON, tool name to a list of requests, for ``search: example_requests:``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from statetools.cli.review_commands import design_file, design_graph
from statetools.cli.terminal import Output, UsageError, add_model_options, model_options
from statetools.definitions.unfolding import UnfoldingTool
from statetools.engine.graph import DisclosureGraph
from statetools.errors import StatetoolsError
from statetools.search.examples import example_requests
from statetools.tools.tool import BaseTool
from statetools.wording import counted

__all__ = ["add_examples_command", "tools_to_describe"]


def tools_to_describe(graph: DisclosureGraph) -> tuple[list[BaseTool], int]:
    """The tools below the search facades of ``graph`` (each once, first place first)
    and how many search facades there are; every tool of the graph when there is none.

    >>> from statetools import Tool, disclosure_graph
    >>> a, b = (Tool.create(n, n.upper(), lambda: 1) for n in "ab")
    >>> tools, facades = tools_to_describe(disclosure_graph(
    ...     UnfoldingTool.searchable("find", "Find tools", [a]), b))
    >>> [tool.name for tool in tools], facades
    (['a'], 1)
    """
    found: dict[str, BaseTool] = {}
    facades = 0
    for entry in graph.entries.values():
        facade = entry.tool
        if isinstance(facade, UnfoldingTool) and facade.search is not None:
            facades += 1
            for tool in facade.search_index.tools:
                found.setdefault(tool.name, tool)
    if facades:
        return list(found.values()), facades
    return [entry.tool for entry in graph.entries.values()], 0


def cmd_examples(args: argparse.Namespace, out: TextIO) -> int:
    """Write the example requests of the design's tools as JSON."""
    from statetools.models.model_strings import parse

    graph = design_graph(design_file(args.file))
    tools, facades = tools_to_describe(graph)
    if not tools:
        raise UsageError("the design has no tools to write requests for", path=args.file)
    options: dict[str, Any] = {} if parse(args.model)[0] == "scripted" else model_options(args)
    if args.no_temperature:
        options["temperature"] = None
    where = f"below {counted(facades, 'search facade')}" if facades else "(no search facade: all)"
    sys.stderr.write(
        f"asking {args.model} for example requests of {counted(len(tools), 'tool')} {where}\n"
    )
    try:
        found = example_requests(
            tools,
            args.model,
            per_tool=args.per_tool,
            concurrency=args.concurrency,
            model_options=options,
        )
    except StatetoolsError as error:
        if error.hint and "api_key=..." in error.hint:
            hint = error.hint.replace("pass api_key=...", "pass --api-key KEY")
            raise UsageError(error.message, path=error.path, hint=hint) from error
        raise
    for name, requests in found.items():
        if not requests:
            sys.stderr.write(f"warning: no usable request for tool '{name}'\n")
    text = json.dumps(found, indent=2, ensure_ascii=False) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        written = sum(len(requests) for requests in found.values())
        Output.of(out).line(
            f"{counted(written, 'request')} for {counted(len(found), 'tool')} written to "
            f"{args.out}",
            "note",
        )
    else:
        out.write(text)
    return 0


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {value!r}")
    return number


def add_examples_command(commands: Any) -> None:
    """Add ``statetools examples`` to the command's subparsers.

    >>> parser = argparse.ArgumentParser()
    >>> add_examples_command(parser.add_subparsers())
    >>> parser.parse_args(["examples", "d.yaml", "--model", "openai-chat:m"]).per_tool
    4
    """
    help_text = (
        "Have a model write, for each tool below the design's search facades, requests a "
        "user would make when it is needed (JSON for search: example_requests:)."
    )
    sub = commands.add_parser("examples", help=help_text, description=help_text)
    sub.add_argument("file", metavar="FILE", help="the design file")
    add_model_options(sub, model_required=True)
    sub.add_argument(
        "--per-tool", type=_positive, default=4, metavar="N", help="requests per tool (4)"
    )
    sub.add_argument(
        "--concurrency", type=_positive, default=4, metavar="N", help="requests at once (4)"
    )
    sub.add_argument(
        "--no-temperature",
        action="store_true",
        help="send no temperature (for models that refuse one; default: temperature 0)",
    )
    sub.add_argument("--out", metavar="FILE", help="write the JSON here (default: standard output)")
    sub.set_defaults(handler=cmd_examples)
