"""The RESULTS.md section that sets statetools' designs against the alternatives.

One table per catalogue: the baselines of ``baselines.py`` and every statetools design
replayed on the same tasks, with the targets of the search facade's issue: the best
design sends fewer tool tokens and costs less under caching than the ideal tool search,
with at most one extra request per disclosure step; on BFCL, within 2x of the lower
bound.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs
from baselines import allowed_tools, github_toolsets, ideal_search, own_grouping, two_layer
from replay import Measure, Task, TaskResult, definition_entries, read_tasks, read_tools

BFCL_OF_LOWER = 2.0


@attrs.frozen
class Row:
    """Means per task of one strategy on one catalogue."""

    label: str
    tokens: float
    requests: float
    cost: float
    breaks: float
    disclosures: float | None = None
    """Disclosure calls per task (statetools designs only)."""


@attrs.frozen
class Catalogue:
    """A catalogue's tasks, tools and the replays of its statetools designs."""

    label: str
    name: str
    tools_file: Path
    tasks_file: Path
    designs: tuple[tuple[str, Sequence[TaskResult]], ...]


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _row(label: str, measures: Sequence[Measure]) -> Row:
    return Row(
        label,
        _mean([m.tokens for m in measures]),
        _mean([m.requests for m in measures]),
        _mean([m.cost for m in measures]),
        _mean([m.breaks for m in measures]),
    )


def baseline_rows(catalogue: Catalogue, shared: Path) -> tuple[Row, Row, list[Row]]:
    """(flat, lower bound, the alternatives) on one catalogue, over the tasks every
    design replayed."""
    tools = read_tools(catalogue.tools_file)
    texts = dict(zip((t.name for t in tools), definition_entries(tools), strict=True))
    done = replayed_by_all(catalogue)
    tasks = [t for t in read_tasks(catalogue.tasks_file) if t.id in done]
    first = {r.id: r for r in catalogue.designs[0][1]}
    flat = _row("flat (every tool, every request)", [first[t.id].flat for t in tasks])
    lower = _row("lower bound (only the tools used)", [first[t.id].lower for t in tasks])
    rows = [
        _row("OpenAI allowed_tools", [allowed_tools(t, tools) for t in tasks]),
        _row("ideal tool search", [ideal_search(t, texts) for t in tasks]),
        _row("two-layer catalogue (st.layered)", [two_layer(t, tools) for t in tasks]),
    ]
    grouping = _grouping(catalogue, tasks, tools, first, shared)
    if grouping is not None:
        rows.append(grouping)
    return flat, lower, rows


def _grouping(
    catalogue: Catalogue,
    tasks: Sequence[Task],
    tools: Sequence[object],
    first: Mapping[str, TaskResult],
    shared: Path,
) -> Row | None:
    if catalogue.name == "bfcl":
        measures = [first[t.id].baseline for t in tasks]
        if all(m is not None for m in measures):
            return _row("own grouping (BFCL's involved classes)", [m for m in measures if m])
    if catalogue.name == "github":
        groups = github_toolsets(shared)
        return _row(
            "own grouping (the task's toolsets)",
            [own_grouping(t, tools, groups) for t in tasks],  # type: ignore[arg-type]
        )
    return None


def replayed_by_all(catalogue: Catalogue) -> set[str]:
    """The tasks every design replayed without a failure (each table compares these)."""
    sets = [{r.id for r in results if r.failure is None} for _, results in catalogue.designs]
    return set.intersection(*sets) if sets else set()


def design_row(label: str, results: Sequence[TaskResult], ids: set[str]) -> Row:
    """A statetools design's means over the tasks ``ids``."""
    chosen = [r for r in results if r.id in ids]
    row = _row(label, [r.statetools for r in chosen])
    return attrs.evolve(row, disclosures=_mean([r.disclosures for r in chosen]))


def _n(value: float) -> str:
    return f"{value:,.0f}"


def table(catalogue: Catalogue, shared: Path) -> tuple[list[str], list[str]]:
    """(table lines, target lines) of one catalogue."""
    flat, lower, rows = baseline_rows(catalogue, shared)
    ids = replayed_by_all(catalogue)
    designs = [design_row(f"statetools: {label}", res, ids) for label, res in catalogue.designs]

    def line(row: Row) -> str:
        of_lower = row.tokens / lower.tokens if lower.tokens else float("inf")
        return (
            f"| {row.label} | {_n(row.tokens)} | {of_lower:.2f}x | "
            f"{row.requests - flat.requests:+.2f} | {row.cost / flat.cost:.3f} | "
            f"{row.breaks:.2f} |"
        )

    lines = [
        f"#### {catalogue.label} ({len(ids)} tasks)",
        "",
        "| strategy | tool tokens/task | x lower bound | extra requests | cost vs flat | "
        "prefix breaks |",
        "|---|---:|---:|---:|---:|---:|",
        *(line(r) for r in [flat, lower, *rows, *designs]),
        "",
    ]
    return lines, targets(catalogue, lower, rows, designs, flat)


def targets(
    catalogue: Catalogue, lower: Row, rows: Sequence[Row], designs: Sequence[Row], flat: Row
) -> list[str]:
    """The target lines of one catalogue: met or not, with figures."""
    ideal = next(r for r in rows if r.label == "ideal tool search")
    best = min(designs, key=lambda r: (r.cost, r.tokens))
    fewer = best.tokens < ideal.tokens
    cheaper = best.cost < ideal.cost
    extra = best.requests - flat.requests
    steps = best.disclosures or 0.0
    per_step = extra / steps if steps else 0.0
    lines = [
        f"- {catalogue.label}: best design *{best.label.removeprefix('statetools: ')}*. "
        f"Fewer tool tokens than the ideal tool search: **{'met' if fewer else 'NOT met'}** "
        f"({_n(best.tokens)} vs {_n(ideal.tokens)}, {best.tokens / ideal.tokens:.2f}x). "
        f"Lower cost under caching: **{'met' if cheaper else 'NOT met'}** "
        f"({best.cost / flat.cost:.4f} vs {ideal.cost / flat.cost:.4f} of flat). "
        f"At most one extra request per disclosure step: "
        f"**{'met' if per_step <= 1.0 + 1e-9 else 'NOT met'}** ({extra:.2f} extra requests for "
        f"{steps:.2f} disclosure calls per task)."
    ]
    if catalogue.name == "bfcl":
        of_lower = best.tokens / lower.tokens
        lines.append(
            f"- {catalogue.label}: within {BFCL_OF_LOWER:g}x of the lower bound: "
            f"**{'met' if of_lower <= BFCL_OF_LOWER else 'NOT met'}** ({of_lower:.2f}x)."
        )
    if not (fewer and cheaper):
        lines.append(f"  Why: {_why(best, ideal, lower)}")
    return lines


def _why(best: Row, ideal: Row, lower: Row) -> str:
    searches = ideal.requests - lower.requests
    return (
        f"the ideal search sends {_n(ideal.tokens - lower.tokens)} tokens per task above the "
        f"lower bound (its search tool in every request, {searches:.2f} search requests); "
        f"the design sends {_n(best.tokens - lower.tokens)} above it with "
        f"{best.disclosures or 0.0:.2f} disclosure requests. Both open tools the same way "
        "(appended, one request per search); the ideal search loads each tool just before "
        "its first call, where a search per turn opens all of a turn's tools at once, so "
        "they ride in every request from the first search on, and a word search opens up to "
        "max_results matches. With one tool per task the mechanisms coincide and what is "
        "left is the size of the search tool itself (statetools' takes query and names)."
    )


def report(catalogues: Sequence[Catalogue], shared: Path, command: str) -> str:
    """The whole section: one table per catalogue, then the targets."""
    body = [
        "### Against the alternatives",
        "",
        f"Command: `{command}`. The same tasks, counting and caching model as above "
        "(`benchmarks/baselines.py`, `benchmarks/alternatives.py`). *Ideal tool search*: a "
        "search tool of a real size always shown, each first use of a tool costs one search "
        "request that loads exactly it. *OpenAI allowed_tools*: the whole catalogue in every "
        "request, the tools used so far allowed in `tool_choice` (uncached). *Two-layer "
        "catalogue*: `st.layered` base forms plus `tool_detail`; each first use costs one "
        "detail request, then the full tool replaces its base form at the end. *Own "
        "grouping*: the catalogue's groups of the tools a task uses, shown from the start "
        "(told the groups in advance). Extra requests are counted against flat. Search "
        "designs: the replay searches with the words of the tool's name (what a model "
        "would type) and, if the tool is not among the matches, by its exact name (the "
        "search that missed is not counted); *one search per turn*: the first search of a "
        "turn asks by exact name for every tool the rest of the turn calls, which the "
        "facade's `names` allows and a one-tool search does not.",
        "",
    ]
    target_lines: list[str] = []
    for catalogue in catalogues:
        lines, found = table(catalogue, shared)
        body += lines
        target_lines += found
    return "\n".join([*body, "Targets:", "", *target_lines])
