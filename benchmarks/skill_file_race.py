"""read_skill_file against a swapped link and a huge file (issue 30's reproducers).

A thread swaps ``notes.md`` inside a skill folder between a file inside the folder and
one outside it (``os.replace`` of a fresh link, as fast as it can) while the main thread
reads ``notes.md`` through ``read_skill_file`` 20,000 times; a read that returns the
outside file's text is a leak. Then a 300 MB file is read once, in a fresh process,
and its peak memory taken.

    python benchmarks/skill_file_race.py [--reads 20000] [--write]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

from statetools.sections.skills import file_reader

SECRET = "top secret\n"

HUGE = """
import resource, sys
from pathlib import Path
from statetools.sections.skills import file_reader
reader = file_reader({"s": Path(sys.argv[1])})
text = reader.call({"skill": "s", "path": "huge.txt"}).text
print(len(text), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def race(reads: int, switch: float) -> tuple[Counter[str], float]:
    """Answers of ``reads`` reads while the link is swapped, and the seconds taken."""
    tmp = Path(tempfile.mkdtemp())
    folder = tmp / "skills" / "s"
    folder.mkdir(parents=True)
    inside = folder / "inside.md"
    inside.write_text("inside\n", encoding="utf-8")
    secret = tmp / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    link = folder / "notes.md"
    os.symlink(inside, link)
    reader = file_reader({"s": folder.resolve()})
    stop = threading.Event()

    def swap() -> None:
        spare = folder / "spare"
        while not stop.is_set():
            for target in (inside, secret):
                os.symlink(target, spare)
                os.replace(spare, link)

    answers: Counter[str] = Counter()
    before = sys.getswitchinterval()
    sys.setswitchinterval(switch)
    swapper = threading.Thread(target=swap)
    swapper.start()
    start = time.perf_counter()
    try:
        for _ in range(reads):
            answers[reader.call({"skill": "s", "path": "notes.md"}).text] += 1
    finally:
        stop.set()
        swapper.join()
        sys.setswitchinterval(before)
    return answers, time.perf_counter() - start


def huge() -> tuple[int, int]:
    """(characters returned, peak MB) reading a 300 MB file in a fresh process."""
    folder = Path(tempfile.mkdtemp())
    with open(folder / "huge.txt", "w", encoding="utf-8") as file:
        file.write(("y" * 99 + "\n") * 10_000)
        file.seek(300_000_000 - 1)
        file.write("\n")
    done = subprocess.run(
        [sys.executable, "-c", HUGE, str(folder)], capture_output=True, text=True, check=True
    )
    chars, peak = done.stdout.split()
    return int(chars), int(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=20_000)
    parser.add_argument("--write", action="store_true", help="write RESULTS.md's section")
    args = parser.parse_args()
    rows = []
    for switch in (0.005, 0.00001):
        answers, seconds = race(args.reads, switch)
        inside = answers["inside\n"]
        leaks = answers[SECRET]
        refused = args.reads - inside - leaks
        rows.append(
            f"| {switch * 1000:g} ms | {args.reads:,} | {inside:,} | {refused:,} | {leaks} "
            f"| {seconds:.1f} |"
        )
    chars, peak = huge()
    body = "\n".join(
        [
            "## read_skill_file against a swapped link and a huge file",
            "",
            "Command: `python benchmarks/skill_file_race.py --write`. A thread swaps a link "
            "in a skill folder between a file inside it and one outside it while "
            "`read_skill_file` reads the link; *switch interval* is the interpreter's "
            "thread switch interval during the run (smaller: more interleavings). A leak "
            "is a read that returned the outside file. Target: 0 leaks.",
            "",
            "| switch interval | reads | read inside | refused (outside) | leaks | seconds |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
            f"A 300 MB file read once in a fresh process: {chars:,} characters returned "
            f"(the limit and its note), peak resident memory {peak} MB (the interpreter "
            "and statetools included).",
            "",
            machine_line(),
        ]
    )
    print(body)
    if args.write:
        write_section("skill-race", body)


if __name__ == "__main__":
    main()
