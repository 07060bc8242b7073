"""``statetools eval``: a task file run with a real model, flat and with each design.

    statetools eval tasks.yaml --model openai-chat:qwen --base-url http://127.0.0.1:8080/v1 \\
        --flat --design machine=desk.yaml --out results.json --plot results.svg

Every finished run is saved at once in the journal (``--journal``, by default next to
``--out`` with ``.runs.jsonl``); the same command started again after an interruption
runs only what is missing. Exit status 0 when every run completed (whatever the
success rate), 130 when interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from statetools.cli.terminal import (
    Output,
    UsageError,
    add_model_options,
    is_terminal,
    model_options,
)
from statetools.evaluation import EvalReport, Progress, evaluate
from statetools.wording import counted

__all__ = ["add_eval_command"]


def _designs(values: list[str]) -> dict[str, str]:
    designs: dict[str, str] = {}
    for value in values:
        name, equals, path = value.partition("=")
        if not equals or not name or not path:
            raise UsageError(
                f"invalid --design {value!r}",
                hint="write --design NAME=PATH (e.g. machine=desk.yaml)",
            )
        if name in designs or name == "flat":
            raise UsageError(
                f"the condition name {name!r} is used twice (flat is the name of --flat)",
                hint="give each design its own name",
            )
        designs[name] = path
    return designs


def _native(value: str | None) -> bool | str | None:
    """``--native`` alone: the provider's first native mode; ``--native MODE``: that one."""
    return True if value == "" else value


def _journal(args: argparse.Namespace) -> Path | None:
    if args.journal:
        return Path(args.journal)
    if args.out:
        out = Path(args.out)
        return out.with_name(out.stem + ".runs.jsonl")
    return None


def cmd_eval(args: argparse.Namespace, out: TextIO) -> int:
    """Run the evaluation; print the side-by-side table; write the JSON and the plot."""
    designs = _designs(args.design)
    options = model_options(args)
    if not args.no_temperature:
        options["temperature"] = args.temperature
    journal = _journal(args)
    output = Output.of(out)
    shown = is_terminal(sys.stderr)

    def progress(step: Progress) -> None:
        record = step.record
        if record is None:
            if step.resumed:
                sys.stderr.write(
                    f"continuing: {step.resumed} of {counted(step.total, 'run')} already in "
                    f"{journal}\n"
                )
            return
        mark = "ok " if record.success else "FAIL"
        line = (
            f"[{step.done}/{step.total}] {mark} {record.condition} {record.task}"
            f"{f' #{record.repeat + 1}' if args.repeat > 1 else ''}: "
            f"{counted(record.requests, 'request')}, {record.wall:.1f} s"
            f"{f' ({record.error})' if record.error else ''}"
        )
        sys.stderr.write(("\r\x1b[K" if shown else "") + line + ("" if shown else "\n"))
        if shown and step.done == step.total:
            sys.stderr.write("\n")

    try:
        report: EvalReport = evaluate(
            args.tasks,
            args.model,
            designs,
            flat=args.flat or not designs,
            repeat=args.repeat,
            concurrency=args.concurrency,
            journal=journal,
            progress=progress,
            model_options=options,
            native=_native(args.native),
        )
    except KeyboardInterrupt:
        where = f"; finished runs are saved in {journal}" if journal else ""
        sys.stderr.write(f"\ninterrupted{where}: run the same command again to continue\n")
        return 130
    output.line(report.table())
    if args.out:
        Path(args.out).write_text(report.dumps(), encoding="utf-8")
        output.line(f"results written to {args.out}", "note")
    if args.plot:
        Path(args.plot).write_text(report.svg(), encoding="utf-8")
        output.line(f"plot written to {args.plot}", "note")
    return 0


def add_eval_command(commands: Any) -> None:
    """Add ``statetools eval`` to the command's subparsers.

    >>> parser = argparse.ArgumentParser()
    >>> add_eval_command(parser.add_subparsers())
    >>> parser.parse_args(["eval", "t.yaml", "--model", "openai-chat:m"]).concurrency
    4
    """
    help_text = "Run a task file with a real model, flat and with each design, side by side."
    sub = commands.add_parser("eval", help=help_text, description=help_text)
    sub.add_argument("tasks", metavar="TASKS", help="the task file (YAML or JSONL)")
    add_model_options(sub, model_required=True)
    sub.add_argument(
        "--design",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="a design to evaluate, under a name (repeatable)",
    )
    sub.add_argument(
        "--flat", action="store_true", help="also run flat: every tool in every request"
    )
    sub.add_argument(
        "--native",
        nargs="?",
        const="",
        metavar="MODE",
        help="also run each design in the provider's own disclosure mode, as the "
        "condition DESIGN+MODE (default tool_search for openai: and anthropic:; or "
        "deferred, allowed_tools)",
    )
    sub.add_argument("--repeat", type=int, default=1, metavar="N", help="runs per task (1)")
    sub.add_argument("--concurrency", type=int, default=4, metavar="N", help="runs at once (4)")
    sub.add_argument(
        "--temperature", type=float, default=0.0, metavar="T", help="sampling temperature (0)"
    )
    sub.add_argument(
        "--no-temperature",
        action="store_true",
        help="send no temperature (for models that refuse one)",
    )
    sub.add_argument("--out", metavar="PATH", help="write the report as JSON")
    sub.add_argument("--plot", metavar="PATH", help="write the plot (SVG)")
    sub.add_argument(
        "--journal",
        metavar="PATH",
        help="where finished runs are saved as they come (default: OUT with .runs.jsonl)",
    )
    sub.set_defaults(handler=cmd_eval)
