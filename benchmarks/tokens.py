"""Tool-definition tokens that disclosure saves on tasks written by others (oracle replay).

Run: ``python benchmarks/tokens.py`` (every catalogue; ``--write`` updates
benchmarks/RESULTS.md), or on any catalogue::

    python benchmarks/tokens.py --tools TOOLS.json --tasks TASKS.json --design DESIGN.yaml

Each task's ground-truth calls are replayed through the design by a scripted model that
makes the fewest disclosure calls needed before each call (see ``replay.py``), and the
tool definitions of every request are counted (o200k_base, as the OpenAI adapter sends
them). The same requests are counted with every tool (flat) and with only the tools the
task uses, each from its first use on (lower bound). The shared catalogues are converted
first (``convert.py``, into build/bench/).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parent))

import search_mode
from _report import machine_line, write_section
from alternatives import Catalogue
from alternatives import report as alternatives_report
from code_mode import design_rows
from code_mode import section as code_mode_section
from convert import BUILD, SHARED, convert_all
from modes import measure_modes
from modes import report as modes_report
from replay import (
    SEARCH_BY,
    Replay,
    Task,
    TaskResult,
    load_replay_design,
    read_tasks,
    read_tools,
)
from user_words import measure_all as user_words_rows
from user_words import section as user_words_section

import statetools as st
from statetools.models import ModelRequest
from statetools.review.explore import flat_tools
from statetools.review.tokens import tools_tokens

DESIGNS = Path(__file__).resolve().parent / "designs"
CATALOGUES = ("bfcl", "tau_retail", "tau_airline", "github")
RUNS = (
    ("BFCL multi-turn base, class facades", "bfcl", "bfcl.yaml"),
    ("BFCL multi-turn base, class facades by part", "bfcl", "bfcl_parts.yaml"),
    ("BFCL multi-turn base, search facade", "bfcl", "bfcl_search.yaml"),
    ("BFCL multi-turn base, search facade, one search per turn", "bfcl", "bfcl_search.yaml"),
    ("tau-bench retail, desk machine", "tau_retail", "tau_retail.yaml"),
    ("tau-bench retail, search after identification", "tau_retail", "tau_retail_search.yaml"),
    (
        "tau-bench retail, search after identification, one search per turn",
        "tau_retail",
        "tau_retail_search.yaml",
    ),
    (
        "tau-bench retail, search facade only, one search per turn",
        "tau_retail",
        "tau_retail_search_only.yaml",
    ),
    ("tau-bench airline, desk machine", "tau_airline", "tau_airline.yaml"),
    ("tau-bench airline, search after look-up", "tau_airline", "tau_airline_search.yaml"),
    (
        "tau-bench airline, search after look-up, one search per turn",
        "tau_airline",
        "tau_airline_search.yaml",
    ),
    (
        "tau-bench airline, search facade only, one search per turn",
        "tau_airline",
        "tau_airline_search_only.yaml",
    ),
    ("GitHub MCP server, toolset facades", "github", "github.yaml"),
    ("GitHub MCP server, search facade", "github", "github_search.yaml"),
    ("GitHub MCP server, search facade, one search per turn", "github", "github_search.yaml"),
)
SEARCH_STYLE = {"one search per turn": ("turn", "query", "names")}
"""How the replay searches, by the end of a run's label (default: replay.SEARCH_BY)."""
"""(label, catalogue, design under benchmarks/designs/) of every run."""
CATALOGUE_OF = {label: catalogue for label, catalogue, _ in RUNS}
LABELS = {
    "bfcl": "BFCL multi-turn base",
    "tau_retail": "tau-bench retail",
    "tau_airline": "tau-bench airline",
    "github": "GitHub MCP server",
}
BELOW_FLAT = 0.80
OF_LOWER = 2.0


@attrs.frozen
class Summary:
    """Means over the tasks of one catalogue (failed tasks are counted, and listed)."""

    name: str
    design: str
    tasks: int
    failures: tuple[tuple[str, str], ...]
    catalogue_tools: int
    catalogue_tokens: int
    first_tokens: int
    flat: float
    statetools: float
    lower: float
    baseline: float | None
    flat_requests: float
    requests: float
    facades: float
    disclosures: float
    disclosure_tokens: float
    breaks: float
    flat_cost: float
    cost: float
    lower_cost: float
    baseline_cost: float | None
    kept: float
    kept_cost: float
    kept_breaks: float

    @property
    def below_flat(self) -> float:
        """How much less than flat statetools sends (0.8 = 80% less)."""
        return 1 - self.statetools / self.flat

    @property
    def of_lower(self) -> float:
        """statetools / lower bound."""
        return self.statetools / self.lower if self.lower else float("inf")

    @property
    def extra(self) -> float:
        """Mean extra requests per task."""
        return self.requests - self.flat_requests

    @property
    def extra_per_facade(self) -> float | None:
        """Extra requests per facade opened (None when no facade was opened)."""
        return self.extra / self.facades if self.facades else None

    def targets(self) -> list[tuple[str, bool, str]]:
        """(target, met, figure) for the three targets of the benchmark."""
        per_facade = self.extra_per_facade
        return [
            (
                f">= {BELOW_FLAT:.0%} below flat",
                self.below_flat >= BELOW_FLAT,
                f"{self.below_flat:.1%} below",
            ),
            (
                f"within {OF_LOWER:g}x of the lower bound",
                self.of_lower <= OF_LOWER,
                f"{self.of_lower:.2f}x",
            ),
            (
                "<= 1 extra request per facade opened",
                (per_facade is not None and per_facade <= 1.0) or self.extra == 0,
                "no facade opened"
                if per_facade is None
                else f"{per_facade:.2f} ({self.extra:.2f} extra / {self.facades:.2f} facades)",
            ),
        ]


def summarize(
    name: str, design_path: Path, replay: Replay, results: Sequence[TaskResult]
) -> Summary:
    """The means of a catalogue's results."""

    def mean(pick: Callable[[TaskResult], float]) -> float:
        return statistics.fmean(pick(r) for r in results) if results else 0.0

    with_baseline = [r for r in results if r.baseline is not None]
    graph = replay.graph
    return Summary(
        name=name,
        design=str(design_path),
        tasks=len(results),
        failures=tuple((r.id, r.failure) for r in results if r.failure is not None),
        catalogue_tools=len(replay.catalogue),
        catalogue_tokens=tools_tokens(replay.catalogue),
        first_tokens=tools_tokens(st.Scheduler(graph).visible()),
        flat=mean(lambda r: r.flat.tokens),
        statetools=mean(lambda r: r.statetools.tokens),
        lower=mean(lambda r: r.lower.tokens),
        baseline=(
            statistics.fmean(r.baseline.tokens for r in with_baseline if r.baseline)
            if with_baseline
            else None
        ),
        flat_requests=mean(lambda r: r.flat.requests),
        requests=mean(lambda r: r.statetools.requests),
        facades=mean(lambda r: r.facades_opened),
        disclosures=mean(lambda r: r.disclosures),
        disclosure_tokens=mean(lambda r: r.disclosure_tokens),
        breaks=mean(lambda r: r.statetools.breaks),
        flat_cost=mean(lambda r: r.flat.cost),
        cost=mean(lambda r: r.statetools.cost),
        lower_cost=mean(lambda r: r.lower.cost),
        kept=mean(lambda r: r.kept.tokens),
        kept_cost=mean(lambda r: r.kept.cost),
        kept_breaks=mean(lambda r: r.kept.breaks),
        baseline_cost=(
            statistics.fmean(r.baseline.cost for r in with_baseline if r.baseline)
            if with_baseline
            else None
        ),
    )


def run_catalogue(
    name: str, tools: Path, tasks: Path, design: Path, limit: int | None = None
) -> tuple[Summary, list[TaskResult]]:
    """Replay every task of one catalogue (progress on a terminal)."""
    style = next((v for k, v in SEARCH_STYLE.items() if name.endswith(k)), SEARCH_BY)
    replay = Replay(
        load_replay_design(design), read_tools(tools), modes=measure_modes, search_by=style
    )
    missing = sorted(
        {t.name for t in replay.catalogue} - {t.name for t in flat_tools(replay.graph)}
    )
    if missing:
        print(f"{name}: the design leaves out {', '.join(missing)}", file=sys.stderr)
    todo = read_tasks(tasks)[:limit]
    searching = Replay(replay.design, replay.catalogue, search_by=style, wrap=search_mode.wrap)
    results = []
    for index, task in enumerate(todo, start=1):
        if sys.stderr.isatty():
            print(f"\r{name}: task {index}/{len(todo)}", end="", file=sys.stderr, flush=True)
        results.append(with_search_mode(replay.run(task), searching, task))
    if sys.stderr.isatty():
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
    return summarize(name, design, replay, results), results


def with_search_mode(result: TaskResult, searching: Replay, task: Task) -> TaskResult:
    """``result`` with the task replayed in OpenAI's ``tool_search`` mode among its modes
    (left out when that replay fails: the failure is printed)."""
    requests: list[ModelRequest] = []
    searched = searching.run(task, requests)
    if searched.failure is not None:
        print(f"{task.id}: tool_search replay failed: {searched.failure}", file=sys.stderr)
        return result
    modes = {**result.modes, search_mode.MODE: search_mode.measure_search(requests)}
    return attrs.evolve(result, modes=modes)


def _n(value: float) -> str:
    return f"{value:,.0f}"


def _why(s: Summary) -> list[str]:
    """Why a missed target was missed, and what would fix it (from the figures)."""
    notes = []
    over = s.statetools - s.lower
    shown = over - s.disclosure_tokens
    spent = (
        f"the design sends {_n(over)} tokens per task more than the lower bound: "
        f"{_n(s.disclosure_tokens)} in the {s.disclosures:.2f} requests per task that make "
        f"disclosure calls, and {_n(shown)} in tools shown but not called (the start set of "
        f"{_n(s.first_tokens)} tokens, facades, the rest of an opened group)"
    )
    if s.below_flat < BELOW_FLAT:
        room = (1 - BELOW_FLAT) * s.flat - s.lower
        fix = (
            "Fewer disclosure requests (disclosing in the same response as the call before, "
            "which this one-call-per-response replay never does) and fewer tools shown but "
            "not called (smaller groups, or a tool search that opens only the named tools) "
            "would close the gap"
        )
        if s.disclosure_tokens > room:
            fix += "; the disclosure requests alone take more than the target leaves"
        fix += "."
        notes.append(
            f"- {s.name}, {BELOW_FLAT:.0%} below flat NOT met ({s.below_flat:.1%}): the "
            f"lower bound alone is {1 - s.lower / s.flat:.1%} below flat, so the target "
            f"leaves {_n(room)} tokens per task above it; {spent}. {fix}"
        )
    if s.of_lower > OF_LOWER:
        notes.append(
            f"- {s.name}, within {OF_LOWER:g}x of the lower bound NOT met "
            f"({s.of_lower:.2f}x): {spent}. A facade opens its whole group where a task "
            "calls one or two of its tools; a facade that opens only the named tools (a "
            "tool search) over a short start set would come close to the lower bound."
        )
    per_facade = s.extra_per_facade
    if s.extra > 0 and (per_facade is None or per_facade > 1.0):
        other = s.disclosures - s.facades
        notes.append(
            f"- {s.name}, one extra request per facade opened NOT met: {other:.2f} of the "
            f"{s.disclosures:.2f} disclosure calls per task are not facade openings but "
            "calls the design requires before a tool and the ground truth leaves out "
            "(identifying the customer before the first look-up or change); each costs a "
            "request. Every facade opened costs exactly one."
        )
    return notes


def report(summaries: Sequence[Summary], command: str) -> str:
    """The RESULTS.md section."""
    rows = []
    for s in summaries:
        rows.append(
            f"| {s.name} | {s.tasks} | {len(s.failures)} | "
            f"{_n(s.flat)} | {_n(s.statetools)} | {_n(s.lower)} | {s.below_flat:.1%} | "
            f"{s.of_lower:.2f}x | {s.flat_requests:.2f} | {s.extra:+.2f} | "
            f"{s.facades:.2f} | {s.disclosures - s.facades:.2f} | "
            f"{s.cost / s.flat_cost:.2f} | {s.lower_cost / s.flat_cost:.2f} | "
            f"{s.breaks:.2f} |"
        )
    targets = []
    for s in summaries:
        cells = [f"{'met' if ok else 'NOT met'}: {figure}" for _, ok, figure in s.targets()]
        targets.append(f"| {s.name} | {' | '.join(cells)} |")
    headers = " | ".join(target for target, _, _ in summaries[0].targets()) if summaries else ""
    sizes = [
        f"- {s.name}: {s.catalogue_tools} tools, "
        f"{_n(s.catalogue_tokens)} tokens flat; first request of the design "
        f"(`{Path(s.design).name}`) {_n(s.first_tokens)} tokens."
        for s in summaries
    ]
    extra_lines = []
    for s in summaries:
        if s.baseline is not None and s.baseline_cost is not None:
            less = 1 - s.statetools / s.baseline
            extra_lines.append(
                f"- {s.name}: BFCL itself shows each task only the tools of the API classes "
                f"it involves ({_n(s.baseline)} tokens per task, cost "
                f"{_n(s.baseline_cost)}). statetools, not told the classes, sends "
                f"{abs(less):.1%} {'less' if less >= 0 else 'more'} than that, at "
                f"{s.cost / s.baseline_cost:.2f}x its cached cost."
            )
    failures = [
        f"- {s.name} task {task}: {reason}" for s in summaries for task, reason in s.failures
    ]
    notes = [line for s in summaries for line in _why(s)]
    return "\n".join(
        [
            "## Tool tokens on real tasks (oracle replay)",
            "",
            f"Command: `{command}`. Each task's ground-truth calls are replayed through "
            "the design under `benchmarks/designs/` by a scripted model that, before a "
            "call whose tool is not visible, makes the fewest disclosure calls that "
            "reveal it (a breadth-first search over the real scheduler); every tool "
            "answers `ok`. Counted: o200k_base tokens (bpe-openai "
            f"{metadata.version('bpe-openai')}, offline) of the `tools` array of every model "
            "request, as the OpenAI adapter sends it, summed per task. *Flat*: every tool "
            "in every request, no extra requests. *Lower bound*: only the tools the task "
            "calls, each from its first call on. *Cost*: estimated billed tool tokens with "
            "prompt caching (first request written at 1.25x; later requests read the "
            "tools equal to the previous request's up to the first change at 0.1x and "
            "write the rest at 1.25x; flat caches after its first request), as a ratio to "
            "flat. *Prefix breaks*: requests per task whose tools differ from the "
            "previous request's before its end (a removed facade or a state change), "
            "which re-bill everything after the change; opened tools are appended at the "
            "end and break nothing.",
            "",
            "| catalogue | tasks | failed | flat tokens/task | statetools | lower bound | "
            "below flat | x lower bound | flat requests | extra requests | facades opened "
            "| other disclosure calls | cost vs flat | lower-bound cost vs flat | "
            "prefix breaks |",
            "|---|" + "---|" * 14,
            *rows,
            "",
            f"| targets | {headers} |",
            "|---|---|---|---|",
            *targets,
            "",
            *(notes or ["Every target is met."]),
            "",
            *sizes,
            *extra_lines,
            "",
            "Replay failures (a ground-truth call that did not run, or ran differently "
            "from the plan): " + ("none." if not failures else ""),
            *failures,
            "",
            "Caching and facades: the scheduler appends what a call reveals after the "
            "tools already shown, so an opened tool breaks no cached prefix. What does "
            "break it is a tool leaving the array: a plain facade that unfolds is removed, "
            "so every tool after it is written again; a by-category facade stays until "
            "all its categories are open; a state change replaces the state's tools. The "
            "last columns estimate the same replays had unfolded facades stayed in place "
            "(called again, a facade lists its tools): more tokens, fewer prefix breaks.",
            "",
            "| design | prefix breaks | tokens/task | cost vs flat | facades kept: prefix "
            "breaks | tokens/task | cost vs flat |",
            "|---|---|---|---|---|---|---|",
            *[
                f"| {s.name} | {s.breaks:.2f} | {_n(s.statetools)} | "
                f"{s.cost / s.flat_cost:.3f} | {s.kept_breaks:.2f} | {_n(s.kept)} | "
                f"{s.kept_cost / s.flat_cost:.3f} |"
                for s in summaries
            ],
            "",
            "The cost estimate counts tool definitions only, with the issue's model of "
            "caching. Providers cache only prompts of at least 1,024 tokens, and a prefix "
            "break also re-bills the system prompt and conversation that follow the tools, "
            "which this replay (fixed one-word results) does not measure.",
            "",
            machine_line(),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--catalogue",
        choices=[*CATALOGUES, "all"],
        default=None,
        help="a shared catalogue, or all of them (the default without --tools)",
    )
    parser.add_argument("--tools", type=Path, help="an OpenAI-format tools file")
    parser.add_argument("--tasks", type=Path, help="a neutral tasks file")
    parser.add_argument("--design", type=Path, help="a statetools design over those tools")
    parser.add_argument("--name", default="custom", help="label of a --tools/--tasks run")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    parser.add_argument("--limit", type=int, default=None, help="replay the first N tasks")
    parser.add_argument("--json", type=Path, help="write every task's figures to this file")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    custom = (args.tools, args.tasks, args.design)
    if any(custom) and not all(custom):
        parser.error("--tools, --tasks and --design go together")
    if all(custom) and args.catalogue:
        parser.error("give either --catalogue or --tools/--tasks/--design")
    started = time.perf_counter()
    runs: list[tuple[str, Path, Path, Path]] = []
    if all(custom):
        runs.append((args.name, args.tools, args.tasks, args.design))
        command = "python benchmarks/tokens.py --tools ... --tasks ... --design ..."
    else:
        chosen = CATALOGUES if args.catalogue in (None, "all") else (args.catalogue,)
        files = convert_all(args.shared, BUILD)
        for label, name, design in RUNS:
            if name in chosen:
                tools, tasks = files[name]
                runs.append((label, tools, tasks, DESIGNS / design))
        command = "python benchmarks/tokens.py --write" + (
            f" --catalogue {args.catalogue}" if args.catalogue not in (None, "all") else ""
        )
    summaries = []
    dump = {}
    by_mode = []
    replayed: dict[tuple[str, Path, Path], list[tuple[str, list[TaskResult]]]] = {}
    for name, tools, tasks, design in runs:
        summary, results = run_catalogue(name, tools, tasks, design, args.limit)
        summaries.append(summary)
        by_mode.append((name, summary.flat_cost, results))
        dump[name] = [attrs.asdict(r) for r in results]
        key = (CATALOGUE_OF.get(name, args.name), tools, tasks)
        replayed.setdefault(key, []).append((name.split(", ", 1)[-1], results))
    catalogues = [
        Catalogue(LABELS.get(key, key), key, tools, tasks, tuple(designs))
        for (key, tools, tasks), designs in replayed.items()
    ]
    body = (
        report(summaries, command)
        + "\n"
        + modes_report(by_mode)
        + "\n"
        + alternatives_report(catalogues, args.shared, command)
    )
    print(body)
    code_body = words_body = ""
    if not all(custom):  # code mode on the same catalogues, next to these designs
        rows = [
            (s.name, LABELS[CATALOGUE_OF[s.name]], s.statetools, s.requests, s.cost / s.flat_cost)
            for s in summaries
        ]
        picked = {key: files[key] for key in chosen}
        code_body = code_mode_section(picked, design_rows(rows), command, args.limit)
        print(code_body)
        words_body = user_words_section(  # searching with the user's words, next to these
            user_words_rows(files, chosen, args.shared, limit=args.limit), command
        )
        print(words_body)
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(dump, indent=1), encoding="utf-8")
    if args.write:
        write_section("tokens", body)
        if code_body:
            write_section("code mode", code_body)
        if words_body:
            write_section("user words", words_body)


if __name__ == "__main__":
    main()
