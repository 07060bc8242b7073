"""Reviewing skills folders: `statetools check`, `explore` and `tokens` on 10, 50, 200 skills.

Run: ``python benchmarks/skills_review.py`` (add ``--write`` to update
benchmarks/RESULTS.md).

Each folder, written into a temporary folder by this script, holds N skills (a
``SKILL.md`` with a name, a one-line description and a short body; every skill opens
``read_skill_file``, none has ``allowed-tools``), with a design file
``kind: skills``. Each command runs in this process as the CLI runs it
(``statetools.cli.main``: load the design, analyse, print; no token count cached), and
as the ``statetools`` command next to this Python, in a process of its own (the interpreter's start
and statetools' import included). The table gives the best of ``--rounds`` rounds,
the disclosure states explored and the lines printed. Target: each command under a
second for 50 skills, in process.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

from statetools.cli import main as cli
from statetools.review.tokens import count_text

SIZES = (10, 50, 200)
COMMANDS = ("check", "explore", "tokens")
TARGET_SKILLS = 50
TARGET_SECONDS = 1.0


def write_skills(root: Path, count: int) -> Path:
    """``root/design.yaml`` over a folder of ``count`` skills; returns the design."""
    for i in range(1, count + 1):
        folder = root / "skills" / f"skill-{i}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i}\ndescription: Skill number {i} does things.\n---\n"
            f"Body of skill {i}.\n",
            encoding="utf-8",
        )
    design = root / "design.yaml"
    design.write_text("definitions:\n  - kind: skills\n    path: skills\n", encoding="utf-8")
    return design


def run(command: str, design: Path) -> tuple[float, str]:
    """Seconds one CLI command takes, and what it printed."""
    out = io.StringIO()
    count_text.cache_clear()  # count every text again, as a fresh process does
    start = time.perf_counter()
    status = cli([command, str(design)], out)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"statetools {command} {design} exited with {status}")
    return seconds, out.getvalue()


def process_run(command: str, design: Path) -> tuple[float, float]:
    """Seconds and peak memory (MB) of ``statetools COMMAND DESIGN`` in a process of
    its own."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("statetools")), command, str(design)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"statetools {command} {design} exited with {process.returncode}")
    return seconds, usage.ru_maxrss / 1024


def measure(
    count: int, rounds: int
) -> tuple[int, list[tuple[str, float, tuple[float, float], int]]]:
    """The disclosure states explored, and per command: best seconds of ``rounds`` in
    this process, in a process of its own (with its peak memory), and the lines
    printed."""
    with tempfile.TemporaryDirectory() as folder:
        design = write_skills(Path(folder), count)
        run("check", design)  # warm the token encoding and imports once
        found = []
        for command in COMMANDS:
            best = min(run(command, design)[0] for _ in range(rounds))
            alone = min(process_run(command, design) for _ in range(rounds))
            lines = len(run(command, design)[1].splitlines())
            found.append((command, best, alone, lines))
        out = io.StringIO()
        cli(["explore", "--format", "json", str(design)], out)
        states: int = json.loads(out.getvalue())["states"]
    return states, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    rows = []
    worst = 0.0
    for count in SIZES:
        states, found = measure(count, args.rounds)
        for command, seconds, (alone, memory), lines in found:
            rows.append(
                f"| {count} | {command} | {states} | {seconds:.3f} | {alone:.2f} | "
                f"{memory:.0f} | {lines} |"
            )
            if count == TARGET_SKILLS:
                worst = max(worst, seconds)
    verdict = "met" if worst < TARGET_SECONDS else "NOT met"
    load = os.getloadavg()[0]
    body = "\n".join(
        [
            "## Reviewing skills folders: check, explore, tokens",
            "",
            "Command: `python benchmarks/skills_review.py --write`. N skills in a folder "
            "(each opens `read_skill_file`, none has `allowed-tools`), a design "
            "`kind: skills`; each command runs in-process as the CLI does (load, analyse, "
            f"print), best of {args.rounds} rounds after one warm-up, with no token count "
            "cached (`seconds`), and as a command in a process of its own, the "
            "interpreter's start and statetools' import included (`process seconds`, best "
            f"of {args.rounds}, with that process's peak resident memory: about 50 MB is "
            "the interpreter and statetools, and a command that counts tokens adds about "
            "140 MB for the o200k_base encoding). Loading one skill that opens "
            "`read_skill_file` opens what loading any other would, so every size has two "
            "disclosure states; the prompt text per state is reported from its fewest to "
            f"its most reads, with one row per skill for its own tokens. Load average "
            f"(1 min) when measured: {load:.1f}.",
            "",
            "| skills | command | states | seconds | process seconds | peak MB | lines printed |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
            f"Target: each command under {TARGET_SECONDS:.0f} s for {TARGET_SKILLS} skills, "
            f"in process: {verdict} (slowest {worst:.3f} s).",
            "",
            machine_line(),
        ]
    )
    print(body)
    if args.write:
        write_section("skills-review", body)


if __name__ == "__main__":
    main()
