"""Code mode on the replayed tasks: one script per user turn calls the turn's tools.

Run: ``python benchmarks/code_mode.py`` (every catalogue; ``--write`` updates its
section of benchmarks/RESULTS.md). ``benchmarks/tokens.py`` runs it too, next to its
own designs.

The oracle of ``replay.py`` plans each turn: the ground-truth calls, each preceded by
the fewest disclosure calls that make it callable (planned on the same items without
code mode, whose disclosure is the same). Here the scripted model sends the whole plan
as one ``run_code`` script, then answers; so a turn costs two requests whatever the
number of calls. The scripts really run (Monty sandbox, every tool answering ``ok``)
and every planned call must run, in order, for the task to count as replayed. Counted:
the tools array of every request, as the OpenAI adapter sends it (``run_code`` with the
stubs of the tools callable at that request), and the tokens of the scripts the model
writes (output tokens, which later requests carry in their history).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section
from convert import BUILD, SHARED, convert_all
from replay import (
    FAILING,
    Call,
    Measure,
    Task,
    answering,
    disclosure_path,
    load_replay_design,
    measure,
    read_tasks,
    read_tools,
    reference_requests,
    simulate,
    tools_entries,
)

import statetools as st
from statetools.code.stubs import function_name
from statetools.engine.events import ToolCalled
from statetools.models.base import ToolDefinition
from statetools.models.openai_chat import OpenAIChatModel
from statetools.review.tokens import count_text

DESIGNS = Path(__file__).resolve().parent / "designs"
CODE_RUNS = (
    ("BFCL multi-turn base", "bfcl", None),
    ("BFCL multi-turn base", "bfcl", "bfcl_search.yaml"),
    ("tau-bench retail", "tau_retail", None),
    ("tau-bench retail", "tau_retail", "tau_retail.yaml"),
    ("tau-bench airline", "tau_airline", None),
    ("tau-bench airline", "tau_airline", "tau_airline.yaml"),
    ("GitHub MCP server", "github", None),
    ("GitHub MCP server", "github", "github_search.yaml"),
)
"""(catalogue label, catalogue, design under benchmarks/designs/ put in code mode, or
None: every tool of the catalogue in code mode)."""


@attrs.frozen
class CodeResult:
    """One task replayed in code mode."""

    id: str
    code: Measure
    flat: Measure
    script_tokens: int
    calls: int
    failure: str | None


def script_of(steps: Sequence[tuple[str, Mapping[str, Any], bool]]) -> str:
    """The script making ``steps`` (tool, arguments, fails) in order; a call that fails
    (the benchmark's environment refused it) is caught, as a model would.

    >>> print(script_of([("get_user", {"id": 7}, False), ("cancel", {}, True)]))
    get_user(**{'id': 7})
    try:
        cancel(**{})
    except RuntimeError as error:
        print(error)
    """
    lines: list[str] = []
    for name, arguments, fails in steps:
        call = f"{function_name(name)}(**{dict(arguments)!r})"
        if fails:
            lines += ["try:", f"    {call}", "except RuntimeError as error:", "    print(error)"]
        else:
            lines.append(call)
    return "\n".join(lines)


def _without_script(state: st.DisclosureState) -> dict[str, int]:
    return {name: n for name, n in state.call_counts.items() if name != "run_code"}


async def plan_turn(
    graph: st.DisclosureGraph, state: st.DisclosureState | None, turn: Sequence[Call]
) -> tuple[list[tuple[str, dict[str, Any], bool]], st.DisclosureState] | str:
    """The calls of one turn's script (disclosure calls first where needed) and the
    state after them; the reason when a call cannot be reached."""
    shadow = st.Scheduler(graph, state)
    context = {FAILING: frozenset(call.key for call in turn if call.fails)}
    steps: list[tuple[str, dict[str, Any], bool]] = []
    for call in turn:
        if shadow.explain(call.name) is not None:
            path = await disclosure_path(graph, shadow.snapshot(), call.name)
            if path is None:
                return f"no disclosure path reaches '{call.name}'"
            for name, arguments in path:
                await simulate(shadow, name, arguments, context)
                steps.append((name, arguments, False))
        if await simulate(shadow, call.name, call.arguments, context) is None:
            return f"'{call.name}' does not run in the shadow scheduler"
        steps.append((call.name, dict(call.arguments), call.fails))
    return steps, shadow.snapshot()


class CodeReplay:
    """Replays tasks with one code-mode item holding ``items``."""

    def __init__(self, items: Sequence[Any], catalogue: Sequence[ToolDefinition]) -> None:
        self.plain = st.disclosure_graph(*items)
        self.graph = st.disclosure_graph(st.CodeMode(*items, calls=500, output=2_000))
        self.catalogue = list(catalogue)
        self.adapter = OpenAIChatModel("gpt-4o", api_key="offline")

    async def arun(self, task: Task) -> CodeResult:
        """Replay one task (a failure is recorded with its reason, never skipped)."""
        requests: list[st.ModelRequest] = []
        state: st.DisclosureState | None = None
        messages: list[st.Message] = []
        failure: str | None = None
        script_tokens = calls = 0
        for number, turn in enumerate(task.turns, start=1):
            planned = await plan_turn(self.plain, state, turn)
            if isinstance(planned, str):
                failure = f"turn {number}: {planned}"
                break
            steps, expected = planned
            script = script_of(steps)
            script_tokens += count_text(script)
            answers: list[Any] = [("run_code", {"code": script})] if steps else []
            model = st.models.ScriptedModel([*answers, "done"])  # a turn without calls: answer
            events: list[Any] = []
            loop = st.ToolLoop(model, listeners=(events.append,), check_design=False)
            context = {FAILING: frozenset(call.key for call in turn if call.fails)}
            result = await loop.arun(
                [*messages, st.UserMessage(f"turn {number}")],
                tools=[self.graph],
                state=state,
                context=context,
            )
            requests.extend(model.requests)
            ran = [(e.name, dict(e.arguments)) for e in events if isinstance(e, ToolCalled)]
            if ran[:-1] != [(name, arguments) for name, arguments, _ in steps]:
                failure = f"turn {number}: the script ran {ran[:-1]}, planned {steps}"
                break
            calls += len(steps)
            messages, state = list(result.messages), result.state
            if _without_script(state) != _without_script(expected):
                failure = f"turn {number}: the run's state differs from the plan's"
                break
        entries = [tools_entries(r, self.adapter) for r in requests]
        return CodeResult(
            id=task.id,
            code=measure(entries),
            flat=measure(reference_requests(task, self.catalogue)),
            script_tokens=script_tokens,
            calls=calls,
            failure=failure,
        )


@attrs.frozen
class CodeSummary:
    """Means over one catalogue's tasks in code mode."""

    catalogue: str
    design: str
    tasks: int
    failures: tuple[tuple[str, str], ...]
    flat: float
    flat_requests: float
    code: float
    requests: float
    script_tokens: float
    cost: float
    flat_cost: float


def run_code_mode(
    label: str, tools: Path, tasks: Path, design: str | None, limit: int | None = None
) -> CodeSummary:
    """Replay every task of a catalogue with its tools (or ``design``) in code mode."""
    catalogue = read_tools(tools)
    if design is None:
        items: list[Any] = list(answering(catalogue).values())
        name = "every tool"
    else:
        items = list(load_replay_design(DESIGNS / design).tools)
        name = design
    replay = CodeReplay(items, catalogue)
    todo = read_tasks(tasks)[:limit]
    results = []
    for index, task in enumerate(todo, start=1):
        if sys.stderr.isatty():
            print(f"\r{label} ({name}): task {index}/{len(todo)}", end="", file=sys.stderr)
        results.append(asyncio.run(replay.arun(task)))
    if sys.stderr.isatty():
        print("\r" + " " * 70 + "\r", end="", file=sys.stderr)

    def mean(values: Sequence[float]) -> float:
        return statistics.fmean(values) if values else 0.0

    return CodeSummary(
        catalogue=label,
        design=name,
        tasks=len(results),
        failures=tuple((r.id, r.failure) for r in results if r.failure is not None),
        flat=mean([r.flat.tokens for r in results]),
        flat_requests=mean([r.flat.requests for r in results]),
        code=mean([r.code.tokens for r in results]),
        requests=mean([r.code.requests for r in results]),
        script_tokens=mean([r.script_tokens for r in results]),
        cost=mean([r.code.cost for r in results]),
        flat_cost=mean([r.flat.cost for r in results]),
    )


def report(
    summaries: Sequence[CodeSummary],
    others: Mapping[str, Sequence[tuple[str, float, float, float]]],
    command: str,
) -> str:
    """The RESULTS.md section: code mode next to flat and the replayed designs
    (``others``: catalogue label -> (design, tokens/task, requests/task, cost vs flat))."""
    rows = []
    for s in summaries:
        rows.append(
            f"| {s.catalogue} | code mode, {s.design} | {s.tasks} | {len(s.failures)} | "
            f"{s.code:,.0f} | {s.requests:.2f} | {s.cost / s.flat_cost:.3f} | "
            f"{s.script_tokens:,.0f} |"
        )
    flats: dict[str, CodeSummary] = {}
    for s in summaries:
        flats.setdefault(s.catalogue, s)
    for catalogue, s in flats.items():
        rows.append(
            f"| {catalogue} | flat | {s.tasks} | 0 | {s.flat:,.0f} | {s.flat_requests:.2f} | "
            "1.000 | 0 |"
        )
        for design, tokens, requests, cost in others.get(catalogue, ()):
            rows.append(
                f"| {catalogue} | {design} | {s.tasks} | | {tokens:,.0f} | {requests:.2f} | "
                f"{cost:.3f} | 0 |"
            )
    failures = [
        f"- {s.catalogue} ({s.design}) task {task}: {why}"
        for s in summaries
        for task, why in s.failures
    ]
    return "\n".join(
        [
            "## Code mode: one script per turn (oracle replay)",
            "",
            f"Command: `{command}`. The ground-truth calls of each user turn (with the "
            "fewest disclosure calls each needs, planned as in the oracle replay of 'Tool "
            "tokens on real tasks') are sent "
            "as one `run_code` script, which really runs in the Monty sandbox; then the "
            "model answers. So a turn costs two requests, whatever its number of calls (one "
            "for a turn without calls). "
            "*Tool tokens/task*: o200k_base tokens of the `tools` array of every request "
            "(for code mode: `run_code`, whose description holds the stubs of the tools "
            "callable at that request, and any tool outside it), summed per task. "
            "*Cost vs flat*: billed tool tokens with prompt caching (write 1.25x, read "
            "0.1x) as a ratio to flat. *Script tokens/task*: the scripts the model writes "
            "(output tokens; later requests carry them in the history, as they would "
            "carry the calls of the other designs). The designs' rows are that replay's "
            "(one call per request).",
            "",
            "| catalogue | design | tasks | failed | tool tokens/task | requests/task | "
            "cost vs flat | script tokens/task |",
            "|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            "Replay failures: " + ("none." if not failures else ""),
            *failures,
            "",
            "Reading it: code mode over every tool sends the whole catalogue as stubs in "
            "each request (stubs are shorter than JSON schemas), but needs two requests per "
            "turn instead of one per call. Over a design, the stubs are only those of the "
            "tools callable at the request, and the disclosure calls ride in the same script "
            "at no request. Under caching it pays where the callable tools change: "
            "`run_code`'s description then changes, so its whole entry is written again, "
            "where a design with plain tools appends the opened tools after a cached prefix.",
            "",
            machine_line(),
        ]
    )


def section(
    files: Mapping[str, tuple[Path, Path]],
    others: Mapping[str, Sequence[tuple[str, float, float, float]]],
    command: str,
    limit: int | None = None,
) -> str:
    """Code mode on every catalogue in ``files`` (catalogue -> tools, tasks files), as
    the RESULTS.md section, next to ``others`` (see :func:`report`)."""
    summaries = [
        run_code_mode(label, *files[key], design, limit)
        for label, key, design in CODE_RUNS
        if key in files
    ]
    return report(summaries, others, command)


def design_rows(
    runs: Sequence[tuple[str, str, float, float, float]],
) -> dict[str, list[tuple[str, float, float, float]]]:
    """``others`` for :func:`report` from the replayed designs: (run label, catalogue
    label, tokens/task, requests/task, cost vs flat) each."""
    rows: dict[str, list[tuple[str, float, float, float]]] = {}
    for label, catalogue, tokens, requests, cost in runs:
        rows.setdefault(catalogue, []).append((label.split(", ", 1)[-1], tokens, requests, cost))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    parser.add_argument("--limit", type=int, default=None, help="replay the first N tasks")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    from tokens import LABELS, RUNS, run_catalogue

    files = convert_all(args.shared, BUILD)
    replayed = []
    for label, key, design in RUNS:
        summary, _ = run_catalogue(label, *files[key], DESIGNS / design, args.limit)
        ratio = summary.cost / summary.flat_cost if summary.flat_cost else 0.0
        replayed.append((label, LABELS[key], summary.statetools, summary.requests, ratio))
    body = section(
        files, design_rows(replayed), "python benchmarks/code_mode.py --write", args.limit
    )
    print(body)
    if args.write:
        write_section("code mode", body)


if __name__ == "__main__":
    main()
