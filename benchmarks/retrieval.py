"""Search from the user's own words: recall@k of each ranker on the shared catalogues.

The query is what the user wrote (a BFCL turn, a tau-bench task's instruction); a turn
is found at k when every ground-truth tool of the turn is among the first k results
of the search facade's index (``searchable(..., ranker=...)``). The GitHub server has
no user tasks: each tool is searched with the first sentence of its own description.

Held out: BFCL tasks whose number is a multiple of 4 are the development tasks (any
choice made while building the search was tried on them only); the table reports the
other 150 tasks. tau-bench and GitHub were never used to tune.

The 2,000-tool BFCL catalogue adds to the 130 multi-turn tools the functions of BFCL's
single-turn categories, read from ``--bfcl-data`` (a folder with BFCL's
``BFCL_v4_*.json`` data files; they are not among the shared catalogues). Without it
that row is left out.

    python benchmarks/retrieval.py [--write] [--bfcl-data DIR] [--dev] [--example-requests FILE]

Timing runs on one core (BLAS threads set to 1, the process pinned to one CPU) and
counts the process's CPU time, so that other work on a shared machine does not count.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _report import machine_line, write_section

import statetools as st
from statetools.search import (
    BM25Ranker,
    CoUsageRanker,
    Ranker,
    local_embedder,
    ranker_for,
)
from statetools.tools.descriptions import first_sentence

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"  # numpy loads later (on the first search): one core

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "catalogues"
KS = (1, 3, 5, 10)
Turn = tuple[str, frozenset[str]]


def _tool(function: dict[str, Any], category: str | None = None) -> st.Tool:
    name = re.sub(r"[^A-Za-z0-9_-]", "_", function["name"])[:64]
    schema = function.get("parameters") or {"type": "object", "properties": {}}
    if schema.get("type") != "object":
        schema = {"type": "object", "properties": schema.get("properties") or {}}
    return st.Tool.create(
        name,
        function.get("description") or name,
        lambda **_: "",
        schema=schema,
        metadata={"category": category} if category else None,
    )


def _functions(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text())
    return [item.get("function", item) for item in data]


def bfcl(shared: Path) -> tuple[list[st.Tool], list[tuple[int, Turn]]]:
    """The 130 BFCL multi-turn tools (category: their API class) and every turn."""
    classes = json.loads((shared / "bfcl" / "bfcl_multi_turn_tools_by_class.json").read_text())
    tasks = json.loads((shared / "bfcl" / "bfcl_tasks_multi_turn_base.json").read_text())
    involved = {name for task in tasks["tasks"] for name in task["involved_classes"]}
    tools: dict[str, st.Tool] = {}
    for class_name, entry in classes["classes"].items():
        if class_name not in involved:
            continue
        for item in entry["tools"]:
            tool = _tool(item["function"], class_name)
            tools.setdefault(tool.name, tool)
    turns: list[tuple[int, Turn]] = []
    for number, task in enumerate(tasks["tasks"]):
        for messages, truth in zip(task["question_turns"], task["ground_truth"], strict=False):
            words = " ".join(m["content"] for m in messages if m.get("role") == "user")
            names = frozenset(call["name"] for call in truth)
            if words.strip() and names:
                turns.append((number, (words, names)))
    return list(tools.values()), turns


def bfcl_distractors(folder: Path, taken: set[str]) -> list[st.Tool]:
    """The functions of BFCL's single-turn data files, each name once."""
    tools: dict[str, st.Tool] = {}
    for path in sorted(folder.glob("BFCL_v4_*.json")):
        if "multi_turn" in path.name or "memory" in path.name or "web_search" in path.name:
            continue
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            for function in json.loads(line).get("function", []):
                try:
                    tool = _tool(function)
                except st.StatetoolsError:
                    continue
                if tool.name not in taken and tool.name not in tools:
                    tools[tool.name] = tool
    return list(tools.values())


def tau(shared: Path, domain: str) -> tuple[list[st.Tool], list[Turn]]:
    """A tau-bench domain's tools and one turn per test task (its instruction)."""
    tools = [_tool(f) for f in _functions(shared / "tau_bench" / f"{domain}_tools.openai.json")]
    tasks = json.loads((shared / "tau_bench" / f"{domain}_tasks_test.json").read_text())
    known = {tool.name for tool in tools}
    turns = []
    for task in tasks["tasks"]:
        names = frozenset(a["name"] for a in task["actions"] if a["name"] in known)
        if names:
            turns.append((task["instruction"], names))
    return tools, turns


def github(shared: Path) -> tuple[list[st.Tool], list[Turn]]:
    """The GitHub server's tools; each searched by its description's first sentence."""
    path = shared / "github_mcp" / "github_mcp_tools.openai.json"
    tools = [_tool(f) for f in _functions(path)]
    turns = [(first_sentence(t.description), frozenset([t.name])) for t in tools]
    return tools, turns


class CachedEmbed:
    """The local embedder with its vectors kept by text, so that the hybrid ranker
    reuses the vectors the embeddings ranker computed (its index time is the sum)."""

    def __init__(self) -> None:
        self.embed = local_embedder()
        self.threshold = self.embed.threshold
        self.vectors: dict[str, Any] = {}

    def __call__(self, texts: list[str]) -> Any:
        import numpy as np

        if len(texts) == 1:  # a query: embedded each time, as in a run
            return self.embed(texts)
        missing = [text for text in dict.fromkeys(texts) if text not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.embed(missing), strict=True))
        return np.stack([self.vectors[text] for text in texts])


def measure(
    tools: Sequence[st.Tool],
    turns: Sequence[Turn],
    ranker: Ranker,
    example_requests: dict[str, list[str]] | None = None,
) -> tuple[dict[int, float], float, float, float]:
    """recall@k per k, ms per query, s per 1,000 tools indexed, mean share found @5."""
    facade = st.UnfoldingTool.searchable(
        "find_tools", "Find tools", list(tools), ranker=ranker, example_requests=example_requests
    )
    index = facade.search_index
    started = time.process_time()
    index._built()
    indexing = time.process_time() - started
    found = dict.fromkeys(KS, 0)
    share = 0.0
    times = []
    for words, names in turns:
        started = time.process_time()
        ranked = [tool.name for tool, _ in index.rank(words, max(KS))]
        times.append(time.process_time() - started)
        for k in KS:
            found[k] += names <= set(ranked[:k])
        share += len(names & set(ranked[:5])) / len(names)
    n = len(turns)
    return (
        {k: found[k] / n for k in KS},
        statistics.median(times) * 1000,
        indexing / len(tools) * 1000,
        share / n,
    )


VEHICLE_START = ("startEngine", ("pressBrakePedal", "lockDoors"))
"""The one precondition a design of BFCL's tools declares here: BFCL's vehicle API
refuses to start the engine unless the brake pedal is pressed and every door locked
(its error messages say so), so ``startEngine`` unlocks after those two."""


def with_locks(tools: Sequence[st.Tool]) -> list[Any]:
    """The BFCL tools as a design that declares :data:`VEHICLE_START` holds them: the
    three tools in a playbook, the rest as they are (the search's order unchanged)."""
    by_name = {tool.name: tool for tool in tools}
    start, needs = VEHICLE_START
    playbook = st.PlaybookTool.of(
        "vehicle_start",
        "Start the vehicle",
        [*(by_name[n] for n in needs), st.Unlock(by_name[start], after=list(needs))],
    )
    grouped = {start, *needs}
    items: list[Any] = [tool for tool in tools if tool.name not in grouped]
    return [*items, playbook]


_LISTED = re.compile(r"^- ([A-Za-z0-9_-]+)(?::| \(locked\))", re.MULTILINE)


def measure_in_runs(
    items: Sequence[Any],
    tasks: Sequence[Sequence[Turn]],
    ranker: Ranker,
    example_requests: dict[str, list[str]] | None = None,
) -> tuple[dict[int, float], float, float, float]:
    """As :func:`measure`, but each task is a run (a scheduler of its own) and each turn
    a call of the search facade, after the ground-truth calls of the task's earlier
    turns are recorded: what the model is shown, in order, locked matches with the
    tools they bring along. A turn counts at k when its tools are among the first k
    tools listed."""
    from statetools.engine.scheduler import Scheduler
    from statetools.messages import ToolCall

    facade = st.UnfoldingTool.searchable(
        "find_tools",
        "Find tools",
        list(items),
        ranker=ranker,
        max_results=max(KS),
        example_requests=example_requests,
    )
    started = time.process_time()
    facade.search_index._built()
    indexing = time.process_time() - started
    found = dict.fromkeys(KS, 0)
    share = 0.0
    times = []
    turns = 0
    done = st.ToolResult.text("done")
    for task in tasks:
        scheduler = Scheduler.for_items([facade])
        for words, names in task:
            search = scheduler.resolve("find_tools")
            assert isinstance(search, st.BaseTool)
            started = time.process_time()
            listed = _LISTED.findall(search.call({"query": words}).text)
            times.append(time.process_time() - started)
            for k in KS:
                found[k] += names <= set(listed[:k])
            share += len(names & set(listed[:5])) / len(names)
            turns += 1
            for number, name in enumerate(sorted(names)):
                scheduler.record(ToolCall(f"c{number}", name, {}), done)
    return (
        {k: found[k] / turns for k in KS},
        statistics.median(times) * 1000,
        indexing / sum(1 for _ in facade.search_index.tools) * 1000,
        share / turns,
    )


def by_task(numbered: Sequence[tuple[int, Turn]], *, development: bool) -> list[list[Turn]]:
    """The BFCL turns of the development (or the held-out) tasks, grouped by task."""
    tasks: dict[int, list[Turn]] = {}
    for number, turn in numbered:
        if (number % 4 == 0) == development:
            tasks.setdefault(number, []).append(turn)
    return list(tasks.values())


def rankers(
    cache: CachedEmbed, traces: Sequence[frozenset[str]]
) -> dict[str, Callable[[], Ranker]]:
    """The rankers measured; with ``traces`` (the development tasks' tools per turn) also
    the hybrid ranker with the tools they used together moved up."""
    chosen: dict[str, Callable[[], Ranker]] = {
        "bm25": BM25Ranker,
        "embeddings": lambda: ranker_for("embeddings", embed=cache),
        "hybrid": lambda: ranker_for("hybrid", embed=cache),
    }
    if traces:
        chosen["hybrid + co-usage"] = lambda: CoUsageRanker(
            ranker_for("hybrid", embed=cache), traces
        )
    return chosen


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the table to RESULTS.md")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    parser.add_argument("--bfcl-data", type=Path, help="BFCL's data folder (2,000-tool row)")
    parser.add_argument("--dev", action="store_true", help="the development tasks instead")
    parser.add_argument(
        "--example-requests",
        type=Path,
        help="a JSON file of example requests per BFCL tool (benchmarks/example_requests.py)",
    )
    args = parser.parse_args(argv)
    asked: dict[str, list[str]] = {}
    if args.example_requests is not None:
        asked = json.loads(args.example_requests.read_text())
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    bfcl_tools, bfcl_turns = bfcl(args.shared)
    chosen = [turn for number, turn in bfcl_turns if (number % 4 == 0) == args.dev]
    development = [turn for number, turn in bfcl_turns if number % 4 == 0]
    traces = [names for number, (_, names) in bfcl_turns if number % 4 == 0]
    catalogues: list[tuple[str, list[st.Tool], list[Turn]]] = [
        (f"BFCL multi-turn classes ({len(bfcl_tools)} tools)", bfcl_tools, chosen)
    ]
    if args.bfcl_data is not None:
        extra = bfcl_distractors(args.bfcl_data, {t.name for t in bfcl_tools})
        everything = bfcl_tools + extra
        catalogues.append((f"BFCL, whole ({len(everything)} tools)", everything, chosen))
    if not args.dev:
        bfcl_rows = list(catalogues)
        for title, tools, _ in bfcl_rows:  # what the choices were made on, for comparison
            catalogues.append((f"{title}, development tasks", tools, development))
        for domain in ("retail", "airline"):
            tools, turns = tau(args.shared, domain)
            catalogues.append((f"tau-bench {domain} ({len(tools)} tools)", tools, turns))
        tools, turns = github(args.shared)
        catalogues.append((f"GitHub server, own descriptions ({len(tools)} tools)", tools, turns))

    cache = CachedEmbed()
    rows = []
    for title, tools, turns in catalogues:
        held_out = title.startswith("BFCL") and not title.endswith("development tasks")
        learned = traces if held_out and not args.dev else []
        measured: list[tuple[str, Callable[[], Ranker], dict[str, list[str]] | None, bool]]
        measured = [(name, make, None, False) for name, make in rankers(cache, learned).items()]
        names = {tool.name for tool in tools}
        hybrid = rankers(cache, [])["hybrid"]
        if title.startswith("BFCL"):
            measured.append(("hybrid + locks", hybrid, None, True))
        if asked and title.startswith("BFCL multi-turn") and set(asked) <= names:
            for name in ("embeddings", "hybrid"):
                make = rankers(cache, [])[name]
                measured.append((f"{name} + example requests", make, asked, False))
            measured.append(("hybrid + example requests + locks", hybrid, asked, True))
        tasks = by_task(bfcl_turns, development=args.dev or not held_out)
        for name, make, requests, locks in measured:
            recall, per_query, per_thousand, share = (
                measure_in_runs(with_locks(tools), tasks, make(), requests)
                if locks
                else measure(tools, turns, make(), requests)
            )
            row = (
                f"| {title} | {len(turns)} | {name} | "
                + " | ".join(f"{recall[k]:.2f}" for k in KS)
                + f" | {share:.2f} | {per_query:.1f} | {per_thousand:.1f} |"
            )
            print(row, flush=True)
            rows.append(row)
    body = "\n".join(
        [
            "## Search from the user's own words: recall@k per ranker",
            "",
            "A turn counts at k when every ground-truth tool of the turn is among the first k",
            "results of a search facade searched with the user's words of that turn (tau-bench:",
            "the task's instruction; GitHub: each tool's own first sentence, as `check` does).",
            "'share@5' is the mean share of a turn's tools in the first 5. BFCL rows report the",
            "150 held-out tasks (the 50 with a number divisible by 4 were used while building).",
            "The 'development tasks' rows are those 50 (what the choices below were made on).",
            "embeddings and hybrid use `st.search.local_embedder()` (all-MiniLM-L6-v2 on numpy)",
            'as `searchable(..., ranker="embeddings" | "hybrid")` builds them: the embeddings',
            "ranker scores each tool by the closer of its whole text and its own words (name,",
            "description without the opening it shares with other tools, parameters), embeds",
            "the query without its quoted values (the whole query when what is left reaches",
            "no tool), and finds nothing when no tool reaches the model's threshold (0.25);",
            "hybrid fuses BM25 (weight 1) and it (weight 2) by reciprocal rank with constant 10.",
            "'hybrid + co-usage' is `CoUsageRanker(hybrid, traces)` with the tools of each turn",
            "of the 50 development tasks as traces (BFCL only: no traces for the others).",
            "'+ example requests' gives each of the 128 tools the (up to) four requests that",
            "`st.search.example_requests` had a local model (Qwen2.5-Coder-1.5B-Instruct",
            "Q4_K_M on a freshly started llama.cpp server, asked not to reuse its prompt cache)",
            "write from the tool's own words",
            "(`searchable(..., example_requests=...)`, `benchmarks/example_requests.py`);",
            "each request is one more vector of its tool. Only the 128-tool rows have them",
            "(the other 1,396 functions have none written, so they are not measured that way).",
            "'+ locks' searches as a run does, with the one precondition BFCL's vehicle API",
            "states in its errors declared (`startEngine` unlocks after `pressBrakePedal` and",
            "`lockDoors`): each task is a run whose earlier turns' tools are recorded as called,",
            "each turn one call of the search facade, and a turn counts at k when its tools are",
            "among the first k tools listed; a locked match brings the tools it waits for, just",
            "before it (its ms/query includes the scheduler's work).",
            "Times are CPU time on one core (BLAS on one thread, the process pinned to one CPU;",
            "the machine was shared, so wall-clock read higher): median ms per query (query",
            "embedding included), seconds to index 1,000 tools (embedding every tool's text",
            "and own words; hybrid's index reuses the vectors the embeddings row computed, so",
            "its figure is only the BM25 part).",
            "",
            "| catalogue | turns | ranker | @1 | @3 | @5 | @10 | share@5 | ms/query "
            "| s/1,000 tools |",
            "|---|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            machine_line(),
            "",
            "`python benchmarks/retrieval.py --write --bfcl-data DIR --example-requests FILE`"
            " (DIR: BFCL's `bfcl_eval/data` folder; FILE: written by"
            " `python benchmarks/example_requests.py --base-url URL --out FILE`;"
            " `make bench BFCL_DATA=DIR`).",
        ]
    )
    if args.write and not args.dev:
        write_section("retrieval", body)


if __name__ == "__main__":
    main()
