"""CPU time of ``import statetools`` side by side with ``import pydantic_ai``.

Run: ``python benchmarks/import_time.py`` (add ``--write`` to update benchmarks/RESULTS.md).

Each round starts two fresh interpreters, one per package, in alternating order (so
that a busy moment of the machine falls on both alike); each measures the CPU time
(``time.process_time``) of its one import statement, so the interpreter's own start
is left out. The ratio is taken within each round and the table gives the medians
over ``--rounds`` rounds. Target: statetools at most 0.3 of pydantic-ai.

It also lists what ``import statetools`` loads: the number of modules, and whether
any of the modules a plain run does not need (networkx, graphviz, yaml and the
review, spec and testing packages) is among them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

TARGET = 0.3
HEAVY = (
    "networkx",
    "graphviz",
    "yaml",
    "statetools.review",
    "statetools.spec",
    "statetools.testing",
)
PROBE = """
import json, sys, time
before = set(sys.modules)
start = time.process_time()
import {package}
cpu = time.process_time() - start
loaded = sorted(set(sys.modules) - before)
print(json.dumps({{"cpu": cpu, "modules": loaded}}))
"""


def measure(package: str) -> tuple[float, list[str]]:
    """CPU seconds of ``import package`` in a fresh interpreter, and the modules it loaded."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run(  # bytecode is written on the first import and read after
        [sys.executable, "-c", PROBE.format(package=package)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    data = json.loads(out.strip().splitlines()[-1])
    return float(data["cpu"]), list(data["modules"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    measure("statetools")  # warm the file cache and the bytecode caches of both
    measure("pydantic_ai")
    ours: list[float] = []
    theirs: list[float] = []
    ratios: list[float] = []
    modules: list[str] = []
    for index in range(args.rounds):
        order = ("statetools", "pydantic_ai") if index % 2 == 0 else ("pydantic_ai", "statetools")
        cpu: dict[str, float] = {}
        for package in order:
            cpu[package], loaded = measure(package)
            if package == "statetools":
                modules = loaded
        ours.append(cpu["statetools"])
        theirs.append(cpu["pydantic_ai"])
        ratios.append(cpu["statetools"] / cpu["pydantic_ai"])
    ratio = statistics.median(ratios)
    heavy = sorted({h for m in modules for h in HEAVY if m == h or m.startswith(f"{h}.")})
    own = [m for m in modules if m.split(".")[0] == "statetools"]
    try:
        load = f"{os.getloadavg()[0]:.1f}"
    except OSError:
        load = "unknown"
    met = "met" if ratio <= TARGET else "NOT met"
    lines = [
        "## Import time: `import statetools` against `import pydantic_ai`",
        "",
        "Command: `python benchmarks/import_time.py --write`. Each of "
        f"{args.rounds} rounds starts a fresh interpreter per package (alternating which "
        "goes first) and measures the CPU time (`time.process_time`) of the import "
        "statement alone; the ratio is taken within each round, and the table gives "
        f"medians. Load average (1 min) when measured: {load}.",
        "",
        "| package | median CPU ms | min CPU ms | modules loaded |",
        "|---|---|---|---|",
        f"| statetools | {statistics.median(ours) * 1000:.0f} | {min(ours) * 1000:.0f} | "
        f"{len(modules)} ({len(own)} of statetools) |",
        f"| pydantic_ai | {statistics.median(theirs) * 1000:.0f} | {min(theirs) * 1000:.0f} | |",
        "",
        f"Ratio statetools / pydantic_ai, median of the rounds' ratios: {ratio:.2f} "
        f"(rounds range {min(ratios):.2f} to {max(ratios):.2f}). Target <= {TARGET}: {met}.",
        "",
        "Loaded by `import statetools` among networkx, graphviz, yaml and the review, "
        f"spec and testing packages: {', '.join(heavy) if heavy else 'none'}.",
        "",
        machine_line(),
    ]
    body = "\n".join(lines)
    print(body)
    if args.write:
        write_section("import-time", body)


if __name__ == "__main__":
    main()
