"""Compiling large designs: a playbook, a facade and a state machine of 10,000 and
50,000 tools, however they are written, and passing the same ``tools=[...]`` to every run.

Run: ``python benchmarks/compile.py`` (add ``--write`` to update benchmarks/RESULTS.md).

Ways of writing each design (the tools themselves are made beforehand and not timed):
- playbook: the builder one tool at a time (``.with_tool(t).unlocked_by(previous)``,
  a chain), ``PlaybookTool.of(name, description, [t0, st.Unlock(t1, after=[t0]), ...])``,
  and a YAML file (``st.load_design``) over a tools file;
- facade: ``st.Facade.of(name, description, tools)`` and a YAML file;
- machine (N/10 states in a ring, 10 tools each, one of which moves to the next state):
  the builder one tool at a time (``.in_state(S).with_tool(t)``, ``.transitions_to``),
  ``StateMachineTool.of(..., tools={S: [t, st.Move(t2, to=S2)]})`` and a YAML file.
Each figure is the CPU time of writing the design (or loading the YAML) plus compiling
it (``st.disclosure_graph``), best of ``--rounds`` rounds. Targets: under 0.5 s at
10,000 tools and under 3 s at 50,000.

Repeated runs: CPU time of one ``ToolLoop.run`` (the scripted model answers at once)
given the same ``tools=[...]`` list each time, against one given the compiled graph,
median of ``--runs`` runs after one warm-up run. Target: a ratio of at most 1.
"""

from __future__ import annotations

import argparse
import enum
import functools
import gc
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st

SIZES = (10_000, 50_000)
TARGETS = {10_000: 0.5, 50_000: 3.0}
PER_STATE = 10


def _tools(n: int) -> list[st.Tool]:
    return [st.Tool.create(f"t{i}", f"Tool number {i}", lambda: "ok") for i in range(n)]


def _states(n: int) -> type[enum.Enum]:
    return enum.Enum("Ring", [f"S{i}" for i in range(max(2, n // PER_STATE))])  # type: ignore[return-value]


def playbook_builder(tools: list[st.Tool]) -> Any:
    playbook = st.PlaybookTool("chain", "A chain").with_tool(tools[0])
    for previous, tool in itertools.pairwise(tools):
        playbook = playbook.with_tool(tool).unlocked_by(previous)
    return playbook


def playbook_of(tools: list[st.Tool]) -> Any:
    steps: list[Any] = [tools[0]]
    steps += [st.Unlock(tool, after=[previous]) for previous, tool in itertools.pairwise(tools)]
    return st.PlaybookTool.of("chain", "A chain", steps)


def facade_of(tools: list[st.Tool]) -> Any:
    return st.Facade.of("shelf", "Every tool", tools)


def _ring(tools: list[st.Tool]) -> tuple[type[enum.Enum], list[Any]]:
    states = _states(len(tools))
    members = list(states)
    return states, members


def machine_builder(tools: list[st.Tool]) -> Any:
    states, members = _ring(tools)
    machine = st.StateMachineTool("ring", "A ring", states).with_initial_state(members[0])
    for i, tool in enumerate(tools):
        here = members[(i // PER_STATE) % len(members)]
        machine = machine.in_state(here).with_tool(tool)
        if i % PER_STATE == 0:
            machine = machine.transitions_to(members[(i // PER_STATE + 1) % len(members)])
    return machine


def machine_of(tools: list[st.Tool]) -> Any:
    states, members = _ring(tools)
    by_state: dict[Any, list[Any]] = {}
    for i, tool in enumerate(tools):
        here = members[(i // PER_STATE) % len(members)]
        if i % PER_STATE == 0:
            later = members[(i // PER_STATE + 1) % len(members)]
            by_state.setdefault(here, []).append(st.Move(tool, to=later))
        else:
            by_state.setdefault(here, []).append(tool)
    return st.StateMachineTool.of("ring", "A ring", states, initial=members[0], tools=by_state)


def _yaml_files(folder: Path, n: int) -> dict[str, Path]:
    """A tools file of ``n`` schema-only tools, and a playbook, a facade and a machine
    over them."""
    catalogue = [
        {
            "type": "function",
            "function": {
                "name": f"t{i}",
                "description": f"Tool number {i}",
                "parameters": {"type": "object", "properties": {}},
            },
        }
        for i in range(n)
    ]
    (folder / f"tools_{n}.json").write_text(json.dumps(catalogue), encoding="utf-8")
    head = [f"tools_from: tools_{n}.json", "definitions:"]
    playbook = [*head, "  - kind: playbook", "    name: chain", "    description: A chain"]
    playbook += ["    tools:", "      - t0"]
    playbook += [f"      - {{tool: t{i}, unlocked_by: t{i - 1}}}" for i in range(1, n)]
    facade = [*head, "  - kind: facade", "    name: shelf", "    description: Every tool"]
    facade += ["    tools:"] + [f"      - t{i}" for i in range(n)]
    rings = max(2, n // PER_STATE)
    machine = [*head, "  - kind: machine", "    name: ring", "    description: A ring"]
    machine += ["    initial: S0", "    states:"]
    for s in range(rings):
        machine += [f"      S{s}:", "        tools:"]
        for j in range(PER_STATE):
            i = s * PER_STATE + j
            if i >= n:
                break
            if j == 0:
                machine.append(f"          - {{tool: t{i}, transitions_to: S{(s + 1) % rings}}}")
            else:
                machine.append(f"          - t{i}")
    files = {}
    for kind, lines in (("playbook", playbook), ("facade", facade), ("machine", machine)):
        path = folder / f"{kind}_{n}.yaml"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files[kind] = path
    return files


def _cpu(work: Callable[[], Any], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def _compile_table(rounds: int, folder: Path) -> list[str]:
    rows = []
    for n in SIZES:
        tools = _tools(n)
        files = _yaml_files(folder, n)
        cases: list[tuple[str, str, Callable[[], Any]]] = [
            ("playbook", "builder, one tool at a time", functools.partial(playbook_builder, tools)),
            ("playbook", "PlaybookTool.of", functools.partial(playbook_of, tools)),
            ("playbook", "YAML", functools.partial(_yaml, files["playbook"])),
            ("facade", "Facade.of", functools.partial(facade_of, tools)),
            ("facade", "YAML", functools.partial(_yaml, files["facade"])),
            ("machine", "builder, one tool at a time", functools.partial(machine_builder, tools)),
            ("machine", "StateMachineTool.of", functools.partial(machine_of, tools)),
            ("machine", "YAML", functools.partial(_yaml, files["machine"])),
        ]
        for design, written, make in cases:
            graph = st.disclosure_graph(make())
            assert len(graph) == n + (design == "facade"), (design, written, len(graph))
            seconds = _cpu(lambda make=make: st.disclosure_graph(make()), rounds)
            met = "met" if seconds < TARGETS[n] else "NOT met"
            rows.append(f"| {design} | {written} | {n:,} | {seconds:.3f} | {met} |")
            print(rows[-1], flush=True)
    return rows


def _yaml(path: Path) -> Any:
    return list(st.load_design(path).tools)


def _runs_table(runs: int) -> list[str]:
    rows = []
    for n in (2_000, 10_000):
        tools = _tools(n)
        items = [st.Facade.of("shelf", "Tools on a shelf", tools[: n // 2]), *tools[n // 2 :]]
        graph = st.disclosure_graph(*items)

        def run(given: list[Any]) -> None:
            st.ToolLoop(st.models.ScriptedModel(["Done."])).run("Go", tools=given)

        timings: dict[str, list[float]] = {"items": [], "graph": []}
        for given in (items, [graph]):  # warm up both
            run(given)
        for _ in range(runs):
            for key, given in (("items", items), ("graph", [graph])):
                start = time.process_time()
                run(given)
                timings[key].append(time.process_time() - start)
        ours = statistics.median(timings["items"]) * 1000
        compiled = statistics.median(timings["graph"]) * 1000
        ratio = ours / compiled
        met = "met" if ratio <= 1.05 else "NOT met"
        rows.append(f"| {n:,} | {ours:.2f} | {compiled:.2f} | {ratio:.2f} | {met} |")
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        compile_rows = _compile_table(args.rounds, Path(folder))
    run_rows = _runs_table(args.runs)
    lines = [
        "## Compiling large designs",
        "",
        "Command: `python benchmarks/compile.py --write`. CPU seconds to write a design "
        "(builder, `.of` constructor, or loading a YAML file over a tools file) and compile "
        f"it, best of {args.rounds} rounds; the tools are made beforehand. Targets: under "
        "0.5 s at 10,000 tools, under 3 s at 50,000.",
        "",
        "| design | written with | tools | CPU seconds | target |",
        "|---|---|---|---|---|",
        *compile_rows,
        "",
        "The same `tools=[...]` list given to every run (half the tools in a facade, half "
        "at the top level) against the compiled graph: CPU ms of one `ToolLoop.run` whose "
        f"scripted model answers at once, median of {args.runs} runs of each, interleaved. "
        "Target: the list costs no more than the graph (ratio <= 1, within 5% noise).",
        "",
        "| tools | `tools=[...]` ms | `tools=[graph]` ms | ratio | target |",
        "|---|---|---|---|---|",
        *run_rows,
        "",
        f"Load average (1 min): {load_before:.2f} when the run started, "
        f"{os.getloadavg()[0]:.2f} when it ended (the machine is shared).",
        "",
        machine_line(),
    ]
    body = "\n".join(lines)
    print(body)
    if args.write:
        write_section("compile", body)


if __name__ == "__main__":
    main()
