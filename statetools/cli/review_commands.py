"""The reports of ``statetools check``, ``explore`` and ``tokens`` as tables on a terminal.

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

from statetools.cli.terminal import Output
from statetools.review.explore import Exploration
from statetools.review.findings import Report
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
from statetools.wording import counted


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
