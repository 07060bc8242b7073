"""What a session save costs as the session grows (issue 30: 2.3 ms per save at the
start, 70.9 ms by turn 400 when every save rewrote the whole run).

A run of TURNS turns (each: the model calls a tool whose answer is 200 characters,
then the next request) is saved to a SqliteStore after every model response and every
answer, as ``loop.run(..., session=, store=)`` does. Each save is timed; the table
gives the median milliseconds of the saves of the turns around each mark, and the whole
run's seconds with and without the store.

    python benchmarks/session_saves.py [--turns 1000] [--write]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st
from statetools.loop.sessions import SavedRun
from statetools.models import ModelRequest, ScriptedModel

MARKS = (10, 100, 250, 400, 700, 1000)


class TimedStore(st.SqliteStore):
    """A SqliteStore that times each save, by the turn it saves."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.times: dict[int, list[float]] = {}

    def save(self, session: str, run: SavedRun) -> None:
        start = time.perf_counter()
        super().save(session, run)
        spent = time.perf_counter() - start
        self.times.setdefault(run.result.iterations, []).append(spent)


def run(turns: int, store: st.SqliteStore | None) -> float:
    lookup = st.Tool.create("lookup", "Look a record up", lambda n: f"record {n}: " + "x" * 188)

    def step(request: ModelRequest) -> Any:
        done = sum(1 for message in request.messages if message.role == "tool")
        return ("lookup", {"n": done}) if done < turns else "done"

    loop = st.ToolLoop(ScriptedModel([step] * (turns + 1)), max_iterations=turns + 5)
    start = time.perf_counter()
    if store is None:
        loop.run("Look up every record.", tools=[lookup])
    else:
        loop.run("Look up every record.", tools=[lookup], session="s1", store=store)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="runs; each mark's median")
    parser.add_argument("--write", action="store_true", help="write RESULTS.md's section")
    args = parser.parse_args()
    bare = run(args.turns, None)
    with tempfile.TemporaryDirectory() as folder:
        store = TimedStore(Path(folder) / "runs.db")
        stored = run(args.turns, store)
        store.close()
    marks = [m for m in MARKS if m <= args.turns]
    medians = {}
    for mark in marks:
        window = [
            t for turn in range(max(1, mark - 4), mark + 1) for t in store.times.get(turn, [])
        ]
        medians[mark] = statistics.median(window) * 1000
    rows = [
        f"| {mark:,} | {medians[mark]:.2f} | {medians[mark] / medians[marks[0]]:.2f} |"
        for mark in marks
    ]
    last, first = medians[marks[-1]], medians[marks[0]]
    verdict = "met" if last <= 2 * first else "NOT met"
    body = "\n".join(
        [
            "## Session saves as the session grows",
            "",
            "Command: `python benchmarks/session_saves.py --write`. One run of "
            f"{args.turns:,} turns (a tool call answered with 200 characters each) saved to a "
            "`SqliteStore` after every model response and every answer. *ms per save*: "
            "the median of the saves of the ten turns up to the mark (the median of "
            f"{args.repeat} runs); *x turn {marks[0]}*: that against the first mark. Before "
            "store version 2 (the whole run rewritten at every save) issue 30 measured 2.3 ms "
            "per save at the start and 70.9 ms by turn 400; this benchmark on that store "
            "(commit d5c1d11, 400 turns, one run) gave 0.29 ms at turn 10, 11.8 at 100, 26.0 "
            "at 250 and 64.6 at 400, and the run took 27.9 s with the store, 0.4 s without.",
            "",
            f"| turn | ms per save | x turn {marks[0]} |",
            "|---|---|---|",
            *rows,
            "",
            f"Target: a save at turn {marks[-1]:,} within 2x of turn {marks[0]}: {verdict} "
            f"({last / first:.2f}x). The whole run: {stored:.1f} s with the store, "
            f"{bare:.1f} s without (best of {args.repeat}).",
            "",
            machine_line(),
        ]
    )
    print(body)
    if args.write:
        write_section("session-saves", body)


if __name__ == "__main__":
    main()
