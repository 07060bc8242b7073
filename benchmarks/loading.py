"""Loading large and hostile definition files: time and peak memory.

Run: ``python benchmarks/loading.py`` (add ``--write`` to update benchmarks/RESULTS.md).

Files, written into a temporary folder by this script:
- a genuine design of about 4 MB: many playbooks (conditions on earlier tools),
  state machines (states, transitions, global tools) and by-category facades over a
  tools file (``tools_from``) of schema-only tools with descriptions and parameters;
- a string bomb: a 1 MB anchor repeated through 200 aliases (200 MB expanded);
- a node bomb ("billion laughs"): nine levels of lists of ten aliases each;
- a file past the size limit (``MAX_SOURCE_BYTES``), made of genuine definitions.
Each is loaded with ``st.load_design(path)``, in a fresh process (so peak memory is
the loader's own). The table gives wall time (best of ``--rounds``) and the peak
resident memory of that process, and what the loader said.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

TARGET_SECONDS = 5.0
WORDS = [
    "order",
    "customer",
    "invoice",
    "refund",
    "shipment",
    "address",
    "payment",
    "ticket",
    "account",
    "report",
    "inventory",
    "product",
    "review",
    "schedule",
    "message",
    "record",
]


def _sentence(seed: int, words: int) -> str:
    picked = [WORDS[(seed * 7 + i * 3) % len(WORDS)] for i in range(words)]
    return ("Handle the " + " ".join(picked) + ".").capitalize()


def catalogue(tools: int) -> list[dict[str, Any]]:
    """An OpenAI-format tools file of ``tools`` schema-only tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": f"tool_{i}",
                "description": _sentence(i, 24),
                "parameters": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": _sentence(i + 1, 8)},
                        "count": {"type": "integer", "description": _sentence(i + 2, 6)},
                    },
                    "required": ["id"],
                },
            },
        }
        for i in range(tools)
    ]


def _playbook(n: int, tools: int) -> str:
    names = [f"tool_{(n * 13 + i) % tools}" for i in range(12)]
    names = list(dict.fromkeys(names))
    lines = [
        "  - kind: playbook",
        f"    name: playbook_{n}",
        f"    description: {_sentence(n, 30)}",
        "    tools:",
        f"      - {names[0]}",
    ]
    for i, name in enumerate(names[1:], start=1):
        lines += [
            f"      - tool: {name}",
            f"        unlocked_by: {{any_of: [{{after: {names[i - 1]}}}, "
            f"{{after: {{tools: [{names[0]}], count: 2}}}}]}}",
        ]
    return "\n".join(lines)


def _machine(n: int, tools: int) -> str:
    states = [f"S{i}" for i in range(6)]
    lines = [
        "  - kind: machine",
        f"    name: machine_{n}",
        f"    description: {_sentence(n + 3, 30)}",
        f"    initial: {states[0]}",
        f"    final_states: [{states[-1]}]",
        f"    global_tools: [tool_{n % tools}]",
        "    states:",
    ]
    for s, state in enumerate(states):
        lines.append(f"      {state}:")
        lines.append("        tools:")
        for j in range(3):
            name = f"tool_{(n * 17 + s * 3 + j + 1) % tools}"
            if j == 2 and s + 1 < len(states):
                lines += [
                    f"          - tool: {name}",
                    f"            transitions_to: {states[s + 1]}",
                ]
            else:
                lines.append(f"          - {name}")
    return "\n".join(lines)


def _facade(n: int, tools: int) -> str:
    names = list(dict.fromkeys(f"tool_{(n * 11 + i) % tools}" for i in range(8)))
    return "\n".join(
        [
            "  - kind: facade",
            f"    name: facade_{n}",
            f"    description: {_sentence(n + 5, 20)}",
            f"    usage_notes: {_sentence(n + 6, 20)}",
            f"    tools: [{', '.join(names)}]",
            "    categories:",
            f"      read: [{', '.join(names[:4])}]",
            f"      write: [{', '.join(names[4:])}]",
        ]
    )


def genuine_design(folder: Path, target_bytes: int, tools: int = 2_000) -> Path:
    """A design file of about ``target_bytes`` (and its tools file) in ``folder``."""
    (folder / "catalogue.json").write_text(json.dumps(catalogue(tools)), encoding="utf-8")
    parts = ["tools_from: catalogue.json", "definitions:"]
    size = sum(len(p) + 1 for p in parts)
    n = 0
    while size < target_bytes:
        for make in (_playbook, _machine, _facade):
            text = make(n, tools)
            parts.append(text)
            size += len(text) + 1
        n += 1
    path = folder / f"design_{target_bytes // 1_000_000}mb.yaml"
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return path


def string_bomb(folder: Path) -> Path:
    """A 1 MB anchor repeated through 200 aliases."""
    path = folder / "string_bomb.yaml"
    aliases = ", ".join(["*big"] * 200)
    path.write_text(f"big: &big {'x' * 1_000_000}\nkind: playbook\nname: [{aliases}]\n")
    return path


def node_bomb(folder: Path) -> Path:
    """Nine levels of ten aliases each: a billion values from a few hundred bytes."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"a{level}: &a{level} [{refs}]")
    lines.append("kind: playbook")
    path = folder / "node_bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


PROBE = textwrap.dedent(
    """
    import resource, sys, time
    import statetools as st
    start = time.perf_counter()
    cpu = time.process_time()
    try:
        design = st.load_design(sys.argv[1])
        outcome = f"loaded: {len(design.definitions)} definitions"
    except st.SpecError as exc:
        text = str(exc)
        text = text.replace(sys.argv[1], sys.argv[1].rsplit("/", 1)[-1])
        outcome = f"SpecError ({len(text)} characters): {text}"
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{seconds}\\t{cpu}\\t{peak}\\t{outcome}")
    """
)


def measure(path: Path, rounds: int) -> tuple[float, float, float, str]:
    """Best wall time, its CPU time and peak memory (MB), and what the loader said."""
    best: tuple[float, float, float, str] | None = None
    for _ in range(rounds):
        done = subprocess.run(
            [sys.executable, "-c", PROBE, str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        seconds, cpu, peak, outcome = done.stdout.strip().split("\t", 3)
        if best is None or float(seconds) < best[0]:
            best = (float(seconds), float(cpu), float(peak), outcome)
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    from statetools.spec.source import MAX_SOURCE_BYTES

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = [
            ("genuine design, about 4 MB", genuine_design(folder, 4_000_000)),
            ("string bomb: 1 MB anchor x 200 aliases", string_bomb(folder)),
            ("node bomb: 10^9 values", node_bomb(folder)),
            (
                f"genuine design past the limit ({MAX_SOURCE_BYTES:,} bytes)",
                genuine_design(folder, MAX_SOURCE_BYTES + 2_000_000),
            ),
        ]
        rows = []
        for label, path in files:
            seconds, cpu, peak, outcome = measure(path, args.rounds)
            size = path.stat().st_size
            rows.append((label, size, seconds, cpu, peak, outcome))
            print(f"{label}: {size:,} bytes, {seconds:.2f} s ({cpu:.2f} s CPU), {peak:.0f} MB")
            print(f"  {outcome}")
    load = os.getloadavg()[0]
    genuine = rows[0]
    verdict = "met" if genuine[2] < TARGET_SECONDS else "NOT met"
    table = [
        "| file | bytes | seconds | CPU seconds | peak memory (MB) | outcome |",
        "|---|---|---|---|---|---|",
        *(
            f"| {label} | {size:,} | {seconds:.2f} | {cpu:.2f} | {peak:.0f} | "
            f"{outcome.replace('|', '/')} |"
            for label, size, seconds, cpu, peak, outcome in rows
        ),
    ]
    body = "\n".join(
        [
            "## Loading large and hostile files",
            "",
            "Command: `python benchmarks/loading.py --write`. Each file is loaded with "
            "`st.load_design(path)` in a fresh process; seconds are the best of "
            f"{args.rounds} rounds (with that round's CPU time), peak memory is that "
            "process's maximum resident set (including the interpreter and statetools, "
            f"about 60 MB). Load average (1 min) when measured: {load:.1f}; wall time "
            "grows above CPU time when other processes share the cores.",
            "",
            *table,
            "",
            f"Target: a genuine 4 MB design loads in under {TARGET_SECONDS:.0f} s: "
            f"{verdict} ({genuine[2]:.2f} s, {genuine[3]:.2f} s CPU).",
            "",
            machine_line(),
        ]
    )
    if args.write:
        write_section("loading", body)


if __name__ == "__main__":
    main()
