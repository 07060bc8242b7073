"""Concurrent runs with blocking tools: synchronous handlers run in worker threads.

Run: ``python benchmarks/concurrency.py`` (add ``--write`` to update benchmarks/RESULTS.md).

Measured:
- wall time of ``--runs`` concurrent ``arun``s on one event loop, each calling a tool
  whose synchronous handler sleeps ``--sleep`` seconds, then answering: by default
  (worker thread) and with ``on_loop_thread`` (the handler blocks the loop);
- the cost of the thread hop: microseconds per ``Tool.acall`` of a trivial synchronous
  handler, in a worker thread and on the loop's thread (median of ``--rounds``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st
from statetools.models import ScriptedModel

TARGET_RATIO = 1.5
"""Concurrent runs of a blocking tool take at most this times one run's sleep."""


def sleeper(seconds: float, *, on_loop_thread: bool) -> st.Tool:
    def nap() -> str:
        time.sleep(seconds)
        return "rested"

    return st.Tool.create("nap", "Sleep a while.", nap, metadata={"on_loop_thread": on_loop_thread})


async def concurrent_runs(runs: int, seconds: float, *, on_loop_thread: bool) -> float:
    tool = sleeper(seconds, on_loop_thread=on_loop_thread)
    loops = [st.ToolLoop(ScriptedModel([("nap", {}), "done"])) for _ in range(runs)]
    started = time.perf_counter()
    results = await asyncio.gather(*(loop.arun("go", tools=[tool]) for loop in loops))
    elapsed = time.perf_counter() - started
    assert [r.output for r in results] == ["done"] * runs
    return elapsed


async def hop_cost(calls: int, *, on_loop_thread: bool) -> float:
    tool = st.Tool.create(
        "noop", "Do nothing.", lambda: "ok", metadata={"on_loop_thread": on_loop_thread}
    )
    started = time.perf_counter()
    for _ in range(calls):
        await tool.acall({})
    return (time.perf_counter() - started) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4, help="concurrent runs")
    parser.add_argument("--sleep", type=float, default=1.0, help="seconds each handler sleeps")
    parser.add_argument("--calls", type=int, default=2000, help="calls per hop-cost round")
    parser.add_argument("--rounds", type=int, default=5, help="hop-cost rounds (median)")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()

    threaded = asyncio.run(concurrent_runs(args.runs, args.sleep, on_loop_thread=False))
    pinned = asyncio.run(concurrent_runs(args.runs, args.sleep, on_loop_thread=True))
    hops = {
        flag: statistics.median(
            asyncio.run(hop_cost(args.calls, on_loop_thread=flag)) for _ in range(args.rounds)
        )
        for flag in (False, True)
    }
    ratio = threaded / args.sleep
    verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
    body = "\n".join(
        [
            "## Concurrent runs with a blocking tool",
            "",
            "Command: `python benchmarks/concurrency.py --write`. "
            f"{args.runs} concurrent `arun`s on one event loop, each calling a tool whose "
            f"synchronous handler sleeps {args.sleep} s, then answering. Target: at most "
            f"{TARGET_RATIO}x one handler's sleep with the default (worker thread).",
            "",
            "| handler runs | wall seconds | x one sleep | target |",
            "|---|---|---|---|",
            f"| in a worker thread (default) | {threaded:.2f} | {ratio:.2f} | {verdict} |",
            f"| on the loop's thread (`on_loop_thread`) | {pinned:.2f} | "
            f"{pinned / args.sleep:.2f} | (blocks the loop) |",
            "",
            f"Cost of the thread hop, median of {args.rounds} rounds of {args.calls} "
            "`Tool.acall`s of a trivial synchronous handler: "
            f"{hops[False]:.0f} us per call in a worker thread, "
            f"{hops[True]:.0f} us on the loop's thread.",
            "",
            machine_line(),
        ]
    )
    print(body)
    if args.write:
        write_section("concurrency", body)


if __name__ == "__main__":
    main()
