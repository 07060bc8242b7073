"""The review commands of ``statetools``: ``check``, ``explore``, ``tokens`` and
``render``, and their reports as tables on a terminal.

Off a terminal the commands print the reports' own plain text (``Report.to_text()``,
``Exploration.to_text()``); on one, :func:`show_report` and :func:`show_exploration`
draw the same content as rich tables.

>>> import io
>>> from statetools.cli.terminal import Output
>>> from statetools.review.findings import Finding, Report
>>> out = io.StringIO()
>>> show_report(Output.of(out), Report((Finding("ST008", "error", "Empty.", "facade:f"),)))
>>> print(out.getvalue(), end="")
facade:f: ST008 error [empty-facade] Empty.
1 error, 0 warnings
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO, cast

from statetools.cli.terminal import Output, UsageError
from statetools.engine.events import (
    Trace,
)
from statetools.engine.graph import DisclosureGraph, disclosure_graph
from statetools.engine.prompt_sections import expandable_prompts
from statetools.engine.scheduler import Scheduler
from statetools.review.explore import (
    Exploration,
    ExplorationTooLarge,
    Progress,
    explore,
    flat_tools,
    search,
)
from statetools.review.findings import Report
from statetools.review.model import DesignView
from statetools.review.prefix import PathBreaks, prefix_breaks
from statetools.review.prompt_states import (
    PROMPT_NUMBERS,
    SECTION_NUMBERS,
    SECTIONS_TITLE,
    prompt_rows,
    prompt_summary,
    prompt_table,
    section_rows,
    section_table,
)
from statetools.review.render import FORMATS, render
from statetools.review.tokens import tools_tokens
from statetools.spec.design import Design, load_design
from statetools.wording import counted


def design_file(path: str) -> Design:
    """The design in the file at ``path``; a missing file is a usage error."""
    if not Path(path).is_file():
        raise UsageError(f"no such file: {path}", hint="give the path of a design YAML file")
    return load_design(Path(path))


def design_graph(design: Design) -> DisclosureGraph:
    """The disclosure graph of ``design``; a file without definitions is a usage error."""
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


# -- check, explore, tokens, render --------------------------------------------------


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    """Report the design's problems; exit 1 if any is an error."""
    design = design_file(args.file)
    design_graph(design)  # a file without definitions is a usage error
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
    design = design_file(args.file)
    output = Output.of(out)
    with output.progress("exploring") as update:

        def progress(step: Progress) -> None:
            update(f"{counted(step.states, 'state')}, turn {step.depth}")

        try:
            exploration = explore(
                design_graph(design),
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


def _code_modedesign_graph(design: Design) -> DisclosureGraph:
    """The design with everything in it reached through one code-mode tool."""
    from statetools.code import CodeMode

    design_graph(design)  # a file without definitions is a usage error
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
    design = design_file(args.file)
    output = Output.of(out)
    graph = _code_modedesign_graph(design) if args.code_mode else design_graph(design)
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
    _prompt_tokens(output, design_graph(design), args)
    if args.prefix_breaks:
        _write_prefix_breaks(prefix_breaks(design_graph(design)), out, args.tool_search)
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
    design = design_file(args.file)
    target = Path(args.output)
    fmt = args.format or {".mmd": "mermaid", ".gv": "dot"}.get(target.suffix, target.suffix[1:])
    if fmt not in FORMATS:
        raise UsageError(
            f"cannot tell the format of {args.output}",
            hint="end the file name in .dot, .svg, .png or .mmd, or pass --format "
            f"({', '.join(FORMATS)})",
        )
    trace = _load_trace(args.trace) if args.trace else None
    render(design_graph(design), cast(Any, fmt), trace).save(target)
    out.write(f"wrote {target}\n")
    return 0


def show_report(output: Output, report: Report) -> None:
    """A check report: one row per finding, then the summary."""
    if not output.rich or not report.findings:
        output.line(report.to_text())
        return
    output.table(
        ("where", "code", "severity", "rule", "message"),
        [
            (
                f"{f.source}\n{f.path}" if f.source else f.path,
                f.code,
                f.severity,
                f.rule,
                f.message,
            )
            for f in report.findings
        ],
    )
    summary = report.to_text().splitlines()[-1]
    output.line(summary, "error" if report.errors else "warning" if report.warnings else "")


def show_exploration(output: Output, exploration: Exploration) -> None:
    """An exploration: the summary, the visible sets, the tools with their fewest turns."""
    if not output.rich:
        output.line(exploration.to_text())
        return
    summary = exploration.to_text().split("\n\n", 1)[0]
    for line in summary.splitlines():
        output.line(line)
    numbers = ("turns", "tools", "tokens")
    tokens = exploration.tool_tokens
    output.table(
        ("turns", "tools", "tokens", "after"),
        [
            (str(s.turns), str(len(s.tools)), f"{s.tokens:,}", _after(s.path))
            for s in exploration.visible_sets
        ],
        title="visible sets",
        right=numbers,
    )
    output.table(
        ("tool", "turns", "tokens", "after"),
        [
            (
                name,
                str(turns),
                f"{tokens[name]:,}",
                _after(exploration.paths[name]),
            )
            for name, turns in exploration.min_turns.items()
        ],
        title="tools",
        right=numbers,
    )
    if exploration.prompt_states:
        _show_prompts(output, exploration)
    if exploration.never_visible:
        output.line(f"never visible: {', '.join(exploration.never_visible)}", "warning")
    if exploration.dead_ends:
        ends = "; ".join(_after(path) for path in exploration.dead_ends)
        output.line(f"no tools left after: {ends}", "warning")


def show_tokens(
    output: Output,
    provider: str,
    rows: list[tuple[str, int, int]],
    template: tuple[str, list[int]] | None = None,
) -> None:
    """Token counts of tool sets: ``(set, tools, tokens)`` rows, the first one the first
    visible set; with a second row (every tool at once), what disclosure saves. With
    ``template`` (a model's name and one count per row: the tokens its chat template
    and tokenizer make of each set), those counts beside, and the saving in them."""
    counts = template[1] if template else []
    model = f"tokens ({template[0]})" if template else ""
    if output.rich:
        header = ("tool set", "tools", f"tokens ({provider}, o200k_base)")
        output.table(
            (*header, model) if template else header,
            [
                (label, str(tools), f"{tokens:,}", *([f"{counts[i]:,}"] if template else []))
                for i, (label, tools, tokens) in enumerate(rows)
            ],
            right=(*header[1:], model) if template else header[1:],
        )
    else:
        for index, (label, tools, tokens) in enumerate(rows):
            suffix = f" ({provider}, o200k_base)" if index == 0 else ""
            line = f"{label}: {counted(tools, 'tool')}, {tokens:,} tokens{suffix}"
            if template:
                line += f"; {counts[index]:,} in the model's template"
                line += f" ({template[0]})" if index == 0 else ""
            output.line(line)
    if len(rows) > 1:
        first, flat = rows[0][2], rows[1][2]
        saved = 1 - first / flat if flat else 0.0
        if template and counts[1]:
            in_model = 1 - counts[0] / counts[1]
            output.line(
                f"first request saves {saved:.1%} of the flat tool tokens "
                f"({in_model:.1%} in the model's template)",
                "note",
            )
        else:
            output.line(f"first request saves {saved:.1%} of the flat tool tokens", "note")


def _after(path: tuple[str, ...]) -> str:
    return ", ".join(path) if path else "(start)"


def show_prompt_states(output: Output, exploration: Exploration) -> None:
    """For ``statetools tokens``: per tool state, the tokens of the sections' prompt
    text (fewest and most reads) next to the tokens of the visible tools, after a
    summary; then each section's own tokens."""
    turns = "the start" if exploration.depth == 0 else f"turns 0 to {exploration.depth}"
    scope = "" if exploration.complete else f" ({turns} only: --max-states stopped the search)"
    summary = prompt_summary(exploration.prompt_states)
    first, _, legend = summary.partition("\n")
    output.line(first + scope + ("\n" + legend if legend else ""))
    if output.rich:
        _prompt_tables(output, exploration)
        return
    output.line(prompt_table(exploration.prompt_states))
    output.line("")
    output.line(SECTIONS_TITLE)
    output.line(section_table(exploration.prompt_sections))


def _show_prompts(output: Output, exploration: Exploration) -> None:
    output.line(prompt_summary(exploration.prompt_states))
    _prompt_tables(output, exploration)


def _prompt_tables(output: Output, exploration: Exploration) -> None:
    header, rows = prompt_rows(exploration.prompt_states)
    output.table(header, rows, title="prompt and tools per state", right=PROMPT_NUMBERS)
    header, rows = section_rows(exploration.prompt_sections)
    output.table(header, rows, title=SECTIONS_TITLE.rstrip(":"), right=SECTION_NUMBERS)
