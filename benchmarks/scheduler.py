"""Scheduler cost per turn (record + visible) for 100, 1,000 and 10,000 registered tools.

Run: ``python benchmarks/scheduler.py`` (add ``--write`` to update benchmarks/RESULTS.md).

Designs, each with N registered tools:
- chain: a playbook where tool i unlocks after tool i-1 (one new tool per turn);
- fan-out: a playbook shaped as a tree: each tool unlocks its own 4 children;
- machine: a state machine of N/10 states in a ring, with 10 tools each; one tool per
  state moves to the next state (a turn hides 10 tools and shows 10; at N=100 the
  20 turns go round the 10 states twice).
A turn is ``begin_turn()``, ``visible()`` and ``record(call, result)`` for the next
call of the design's walk. A round times 20 turns x ``--repeats`` runs and takes the
median turn; the table gives the best of ``--rounds`` rounds (as ``timeit`` advises,
to discard rounds slowed by other processes), with the garbage collector paused while
timing (as ``timeit`` does).
"""

from __future__ import annotations

import argparse
import enum
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st

SIZES = (100, 1_000, 10_000)
TURNS = 20
TARGET_US = 50.0
RESULT = st.ToolResult.text("ok")


def _tool(name: str) -> st.Tool:
    return st.Tool.create(name, f"Tool {name}", lambda: "ok")


def chain(n: int) -> tuple[list[Any], list[str]]:
    playbook = st.PlaybookTool("chain", "A chain").with_tool(_tool("t0"))
    for i in range(1, n):
        playbook = playbook.with_tool(_tool(f"t{i}")).unlocked_by(f"t{i - 1}")
    return [playbook], [f"t{i}" for i in range(TURNS)]


def fan_out(n: int) -> tuple[list[Any], list[str]]:
    playbook = st.PlaybookTool("fan", "A tree of fan-outs").with_tool(_tool("t0"))
    for i in range(1, n):
        playbook = playbook.with_tool(_tool(f"t{i}")).unlocked_by(f"t{(i - 1) // 4}")
    return [playbook], [f"t{i}" for i in range(TURNS)]


def machine(n: int) -> tuple[list[Any], list[str]]:
    count = n // 10
    states = enum.Enum("States", [f"S{i}" for i in range(count)])  # type: ignore[misc]
    sm: Any = st.StateMachineTool("m", "A long machine", states).with_initial_state("S0")
    for i in range(count):
        sm = sm.in_state(f"S{i}")
        for j in range(9):
            sm = sm.with_tool(_tool(f"s{i}_{j}"))
        sm = sm.with_tool(_tool(f"next{i}")).transitions_to(f"S{(i + 1) % count}")
    return [sm], [f"next{i % count}" for i in range(TURNS)]  # round the ring of states


DESIGNS: dict[str, Callable[[int], tuple[list[Any], list[str]]]] = {
    "chain": chain,
    "fan-out": fan_out,
    "machine": machine,
}


def measure(items: list[Any], walk: list[str], repeats: int, rounds: int) -> float:
    """The lowest, over ``rounds``, of the median per-turn time of ``repeats`` runs.

    Taking the best round (as ``timeit`` advises) discards rounds slowed down by other
    processes on the machine; the median inside a round discards single slow turns.
    """
    graph = st.disclosure_graph(*items)
    medians: list[float] = []
    gc.disable()  # as timeit does: collector pauses measure the heap, not the scheduler
    try:
        for _ in range(rounds):
            samples: list[float] = []
            for _ in range(repeats):
                scheduler = st.Scheduler(graph)
                for index, name in enumerate(walk):
                    call = st.ToolCall(f"c{index}", name, {})
                    started = time.perf_counter_ns()
                    scheduler.begin_turn()
                    scheduler.visible()
                    scheduler.record(call, RESULT)
                    samples.append((time.perf_counter_ns() - started) / 1000)
            medians.append(statistics.median(samples))
    finally:
        gc.enable()
    return min(medians)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="runs per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; the best one counts")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    rows = []
    verdicts = []
    for design, build in DESIGNS.items():
        figures = []
        for n in SIZES:
            if sys.stderr.isatty():
                print(f"\r{design} N={n}...", end="", file=sys.stderr, flush=True)
            items, walk = build(n)
            figures.append(measure(items, walk, args.repeats, args.rounds))
        ratio = figures[-1] / figures[0]
        ok = max(figures) < TARGET_US and ratio <= 1.5
        verdicts.append(ok)
        cells = " | ".join(f"{f:.1f}" for f in figures)
        rows.append(f"| {design} | {cells} | {ratio:.2f} | {'met' if ok else 'NOT met'} |")
    if sys.stderr.isatty():
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
    header = " | ".join(f"N={n:,}" for n in SIZES)
    body = "\n".join(
        [
            "## Scheduler: median microseconds per turn (begin_turn + visible + record)",
            "",
            "Command: `python benchmarks/scheduler.py --write`. "
            f"Target: under {TARGET_US:.0f} us at every N, and the N=10,000 figure at most "
            "1.5x the N=100 figure.",
            "",
            f"| design | {header} | 10,000 / 100 | target |",
            "|---|" + "---|" * len(SIZES) + "---|---|",
            *rows,
            "",
            machine_line(),
        ]
    )
    print(body)
    if args.write:
        write_section("scheduler", body)


if __name__ == "__main__":
    main()
