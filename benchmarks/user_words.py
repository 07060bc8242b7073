"""Token replays that search with the user's words of each turn, counting the misses.

The oracle replay of ``tokens.py`` searches for each tool with the words of the tool's
own name (or asks for the exact names), which a real model cannot know. Here the
scripted model starts each turn that needs a tool it cannot see with one search in the
user's words of that turn (BFCL: the user's messages of the turn; tau-bench: the task's
instruction). What that search does not open is a *miss*: the model searches again,
as the oracle does (the words of the tool's name, then its exact name, which the search
answer's closest names give it), and each of these searches is an *extra search*. A tool
*never found* is one of a task's tools that no search in the user's words opened.

    python benchmarks/user_words.py [--write] [--catalogue bfcl|tau_retail|tau_airline]
        [--ranker bm25|hybrid ...] [--limit N] [--example-requests FILE]

The GitHub server has no user tasks, so it has no row. ``hybrid`` needs the
``statetools[embeddings]`` extra (``st.search.local_embedder()``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section
from convert import BUILD, SHARED, convert_all
from replay import (
    SEARCH_BY,
    Call,
    Oracle,
    Replay,
    Task,
    TaskResult,
    _names,
    answering,
    read_tasks,
    read_tools,
    simulate,
)

import statetools as st
from statetools.models import ModelRequest

DESIGNS = Path(__file__).resolve().parent / "designs"
RUNS = (
    ("BFCL multi-turn base", "bfcl", "bfcl_search.yaml"),
    ("tau-bench retail", "tau_retail", "tau_retail_search_only.yaml"),
    ("tau-bench airline", "tau_airline", "tau_airline_search_only.yaml"),
)
"""(label, catalogue, design with one search facade visible from the start)."""
ORACLE_BY = ("turn", "query", "names")
"""How today's "one search per turn" oracle searches (see ``replay.SEARCH_BY``)."""


def user_words(shared: Path, catalogue: str) -> dict[str, list[str]]:
    """Task id -> the user's words of each turn (ids as ``convert.py`` writes them)."""
    if catalogue == "bfcl":
        data = json.loads((shared / "bfcl" / "bfcl_tasks_multi_turn_base.json").read_text())
        return {
            str(task["id"]): [
                " ".join(m["content"] for m in turn if m.get("role") == "user")
                for turn in task["question_turns"]
            ]
            for task in data["tasks"]
        }
    domain = catalogue.removeprefix("tau_")
    data = json.loads((shared / "tau_bench" / f"{domain}_tasks_test.json").read_text())
    return {
        f"{domain}_{task.get('task_index', index)}": [task["instruction"]]
        for index, task in enumerate(data["tasks"])
    }


class WordsOracle(Oracle):
    """The oracle, but a turn that needs a tool it cannot see starts with a search of
    ``facade`` in the user's ``words``; tools that search missed are found as the oracle
    finds them (each of those searches is an extra one)."""

    def __init__(
        self,
        graph: st.DisclosureGraph,
        calls: Sequence[Call],
        state: st.DisclosureState | None,
        words: str,
        facade: str,
    ) -> None:
        super().__init__(graph, calls, state, SEARCH_BY)
        self.words = words
        self.facade = facade
        self.started = False
        self.sought: list[str] = []
        """Tools of the turn not shown before its search in the user's words."""
        self.found: list[str] = []
        """Those that search opened."""
        self.searches = 0

    async def _respond(self, request: ModelRequest) -> Any:
        if self.started or self.failure is not None:
            return await super()._respond(request)
        self.started = True
        shown = list(_names(self.shadow))
        needed = list(dict.fromkeys(c.name for c in self.pending if c.name not in shown))
        if not needed or self.facade not in shown or not self.words.strip():
            return await super()._respond(request)
        if request.tool_names != shown:
            return self._stop(f"the loop sent {request.tool_names}, the plan expected {shown}")
        arguments = {"query": self.words}
        if not await simulate(self.shadow, self.facade, arguments, self.context):
            return self._stop(f"the search in the user's words failed: {self.words!r}")
        visible = set(_names(self.shadow))
        self.sought = needed
        self.found = [name for name in needed if name in visible]
        self.searches = 1
        self.disclosures += 1
        self.kinds.append("disclosure")
        return (self.facade, arguments)


class WordsReplay(Replay):
    """A replay whose model searches with the user's words of each turn (``words``:
    task id -> words per turn); ``self.oracles`` keeps each task's turn oracles."""

    def __init__(
        self,
        design: st.Design,
        catalogue: Sequence[Any],
        words: Mapping[str, Sequence[str]],
        facade: str,
    ) -> None:
        super().__init__(design, catalogue)
        self.words = words
        self.facade = facade
        self.oracles: dict[str, list[WordsOracle]] = {}

    def oracle(
        self, task: Task, number: int, turn: Sequence[Call], state: st.DisclosureState | None
    ) -> Oracle:
        """A :class:`WordsOracle` with the user's words of this turn."""
        said = self.words.get(task.id, [])
        words = said[number - 1] if number <= len(said) else ""
        oracle = WordsOracle(self.graph, turn, state, words, self.facade)
        self.oracles.setdefault(task.id, []).append(oracle)
        return oracle


@attrs.frozen
class Row:
    """Means over one catalogue's tasks for one way of searching."""

    catalogue: str
    search: str
    tasks: int
    failed: int
    tokens: float
    requests: float
    flat_requests: float
    searches: float
    words_searches: float
    sought: int
    missed: int
    never_found: int
    tools: int
    turns_missing: float
    tasks_missing: int


def _design(path: Path, ranker: str, asked: Mapping[str, Sequence[str]] | None = None) -> st.Design:
    """The design with its search facade's ``ranker`` (and ``asked``, example requests
    per tool name, for the tools the design has)."""
    text = path.read_text(encoding="utf-8")
    if ranker != "bm25":
        bare = st.load_design(text, base_dir=path.parent)
        names = {tool.name for tool in bare.catalogue}
        extra = ""
        if asked:
            kept = {name: list(requests) for name, requests in asked.items() if name in names}
            extra = f", example_requests: {json.dumps(kept)}"
        text = text.replace(
            "search: {max_results: 3}", f"search: {{max_results: 3, ranker: {ranker}{extra}}}"
        )
    bare = st.load_design(text, base_dir=path.parent)
    return st.load_design(text, tools=answering(bare.catalogue), base_dir=path.parent)


def _facade(design: st.Design) -> str:
    graph = st.disclosure_graph(*design.tools)
    return next(name for name in graph.facades)


def run(
    label: str,
    tools: Path,
    tasks: Path,
    design_path: Path,
    words: Mapping[str, Sequence[str]] | None,
    ranker: str,
    limit: int | None,
    asked: Mapping[str, Sequence[str]] | None = None,
) -> Row:
    """Replay a catalogue's tasks: the oracle (``words`` None) or in the user's words
    (``asked``: example requests per tool for the search facade)."""
    design = _design(design_path, ranker, asked)
    catalogue = read_tools(tools)
    todo = read_tasks(tasks)[:limit]
    if words is None:
        replay: Replay = Replay(design, catalogue, search_by=ORACLE_BY)
    else:
        replay = WordsReplay(design, catalogue, words, _facade(design))
    results: list[TaskResult] = [replay.run(task) for task in todo]
    oracles = replay.oracles if isinstance(replay, WordsReplay) else {}
    sought = missed = never = used = turns_missing = tasks_missing = 0
    words_searches = 0
    for task in todo:
        turns = oracles.get(task.id, [])
        found = {name for o in turns for name in o.found}
        wanted = {name for o in turns for name in o.sought}
        sought += sum(len(o.sought) for o in turns)
        miss = sum(len(o.sought) - len(o.found) for o in turns)
        missed += miss
        never += len(wanted - found)
        used += len({c.name for c in task.calls})
        words_searches += sum(o.searches for o in turns)
        turns_missing += sum(1 for o in turns if len(o.found) < len(o.sought))
        tasks_missing += miss > 0
    n = len(results) or 1
    return Row(
        catalogue=label,
        search=(f"user's words, {ranker}" if words is not None else f"oracle, {ranker}")
        + (" + example requests" if asked else ""),
        tasks=len(results),
        failed=sum(1 for r in results if r.failure is not None),
        tokens=statistics.fmean(r.statetools.tokens for r in results) if results else 0.0,
        requests=statistics.fmean(r.statetools.requests for r in results) if results else 0.0,
        flat_requests=statistics.fmean(r.flat.requests for r in results) if results else 0.0,
        searches=statistics.fmean(r.disclosures for r in results) if results else 0.0,
        words_searches=words_searches / n,
        sought=sought,
        missed=missed,
        never_found=never,
        tools=used,
        turns_missing=turns_missing / n,
        tasks_missing=tasks_missing,
    )


def section(rows: Sequence[Row], command: str) -> str:
    """The RESULTS.md section."""
    lines = []
    for r in rows:
        words = r.search.startswith("user")
        extra = r.searches - r.words_searches if words else 0.0
        lines.append(
            f"| {r.catalogue} | {r.search} | {r.tasks} | {r.failed} | {r.tokens:,.0f} | "
            f"{r.requests:.2f} | {r.requests - r.flat_requests:+.2f} | {r.searches:.2f} | "
            + (
                f"{extra:.2f} | {r.missed}/{r.sought} ({r.missed / max(r.sought, 1):.0%}) | "
                f"{r.turns_missing:.2f} | {r.tasks_missing} | "
                f"{r.never_found}/{r.tools} ({r.never_found / max(r.tools, 1):.0%}) |"
                if words
                else "- | - | - | - | - |"
            )
        )
    return "\n".join(
        [
            "## Token replays searching with the user's words",
            "",
            f"Command: `{command}`. The replay of the tokens section (same designs' search "
            "facade, visible from the start, 3 results per query; o200k_base tokens of the "
            "tools array of every request), with two ways of searching. *oracle*: today's "
            "'one search per turn' model, which asks for the exact names of the turn's "
            "tools. *user's words*: a turn that needs a tool not shown yet starts with one "
            "search whose query is the user's words of the turn (BFCL: the turn's user "
            "messages; tau-bench: the task's instruction, its only turn). A tool that "
            "search did not open is a *miss*: the model searches again with the words of "
            "the tool's name, then by its exact name (a search that finds nothing answers "
            "with the closest names and the groups), one *extra search* each (fewer when "
            "one search opens several). *Never found*: a task's tools that no search in "
            "the user's words opened (the same count as the misses, since an opened tool "
            "stays open, but out of every tool the tasks call: some were opened by an "
            "earlier turn's search before they were needed). Extra requests are counted "
            "against flat (every tool in every request). bm25 is the designs' ranker; "
            "hybrid is `ranker: hybrid` (BM25 fused with `st.search.local_embedder()`); "
            "'+ example requests' adds to it the requests a local model wrote for each "
            "tool (`benchmarks/example_requests.py`, FILE: its output).",
            "",
            "| catalogue | search | tasks | failed | tokens/task | requests/task | extra "
            "requests | searches/task | extra searches/task | tools missed / sought | "
            "turns with a miss per task | tasks with a miss | tools never found |",
            "|---|" + "---|" * 12,
            *lines,
            "",
            machine_line(),
        ]
    )


def measure_all(
    files: Mapping[str, tuple[Path, Path]],
    chosen: Sequence[str],
    shared: Path,
    rankers: Sequence[str] = ("bm25", "hybrid"),
    limit: int | None = None,
    asked: Mapping[str, Sequence[str]] | None = None,
) -> list[Row]:
    """The oracle row and one row per ranker in the user's words, per chosen catalogue
    (``files``: catalogue -> (tools, tasks), as ``convert.convert_all`` returns); with
    ``asked`` (example requests per BFCL tool) one more BFCL row, hybrid with them."""
    rows = []
    for label, catalogue, design in RUNS:
        if catalogue not in chosen:
            continue
        tools, tasks = files[catalogue]
        said = user_words(shared, catalogue)
        plan: list[tuple[dict[str, list[str]] | None, str]] = [(None, "bm25")]
        plan += [(said, ranker) for ranker in rankers]
        for words, ranker in plan:
            row = run(label, tools, tasks, DESIGNS / design, words, ranker, limit)
            print(row, file=sys.stderr, flush=True)
            rows.append(row)
        if asked and catalogue == "bfcl":
            row = run(label, tools, tasks, DESIGNS / design, said, "hybrid", limit, asked)
            print(row, file=sys.stderr, flush=True)
            rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--catalogue", action="append", choices=[c for _, c, _ in RUNS], help="(repeatable)"
    )
    parser.add_argument(
        "--ranker", action="append", choices=["bm25", "hybrid"], help="(repeatable)"
    )
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    parser.add_argument("--limit", type=int, default=None, help="replay the first N tasks")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    parser.add_argument(
        "--example-requests",
        type=Path,
        help="example requests per BFCL tool (JSON, from benchmarks/example_requests.py)",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    files = convert_all(args.shared, BUILD)
    chosen = args.catalogue or [c for _, c, _ in RUNS]
    asked = json.loads(args.example_requests.read_text()) if args.example_requests else None
    rankers = args.ranker or ["bm25", "hybrid"]
    rows = measure_all(files, chosen, args.shared, rankers, args.limit, asked)
    command = "python benchmarks/user_words.py --write" + (
        " --example-requests FILE" if asked else ""
    )
    body = section(rows, command)
    print(body)
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if args.write:
        write_section("user words", body)


if __name__ == "__main__":
    main()
