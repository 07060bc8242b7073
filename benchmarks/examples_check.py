"""st.example_arguments over every tool of the shared catalogues: valid, and the same twice.

Run: ``python benchmarks/examples_check.py`` (``--write`` updates benchmarks/RESULTS.md).
Every tool's parameters schema (as the OpenAI SDK would send it) gets example arguments;
each example is checked with ``jsonschema`` against that schema, and generated a second
time to check it does not change. Exits with status 1 when any tool fails.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jsonschema

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section
from convert import BUILD, SHARED, convert_all
from replay import read_tools

import statetools as st

LABELS = {
    "bfcl": "BFCL multi-turn",
    "tau_retail": "tau-bench retail",
    "tau_airline": "tau-bench airline",
    "github": "GitHub MCP server",
}


def check(name: str, tools_file: Path) -> tuple[str, int, int, float, list[str]]:
    """(label, tools, valid, milliseconds per tool, failures) for one catalogue."""
    definitions = read_tools(tools_file)
    failures: list[str] = []
    valid = 0
    started = time.perf_counter()
    for tool in definitions:
        try:
            example = st.example_arguments(tool.input_schema)
        except st.StatetoolsError as exc:
            failures.append(f"{tool.name}: {exc}")
            continue
        errors = list(jsonschema.Draft202012Validator(tool.input_schema).iter_errors(example))
        if errors:
            failures.append(f"{tool.name}: {errors[0].message}")
        elif st.example_arguments(tool.input_schema) != example:
            failures.append(f"{tool.name}: a second example differs")
        else:
            valid += 1
    per_tool = (time.perf_counter() - started) * 1000 / max(len(definitions), 1)
    return LABELS[name], len(definitions), valid, per_tool, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    options = parser.parse_args()
    files = convert_all(options.shared, BUILD)
    rows = [check(name, tools) for name, (tools, _tasks) in files.items()]
    lines = [
        "### Example arguments for every catalogue tool",
        "",
        "`st.example_arguments(schema)` for each tool's parameters, checked with `jsonschema`",
        "against the schema and generated twice (it must not change). Command: "
        "`python benchmarks/examples_check.py --write`.",
        "",
        "| catalogue | tools | valid and stable | ms per tool |",
        "|---|---:|---:|---:|",
    ]
    failures: list[str] = []
    for label, count, valid, per_tool, failed in rows:
        lines.append(f"| {label} | {count} | {valid} | {per_tool:.2f} |")
        failures.extend(f"{label}: {line}" for line in failed)
    total = sum(row[1] for row in rows)
    passed = sum(row[2] for row in rows)
    verdict = "met" if not failures else "NOT met"
    lines += ["", f"Target (every example valid): **{verdict}**, {passed} of {total} tools."]
    lines += [f"- {line}" for line in failures]
    lines += ["", machine_line()]
    body = "\n".join(lines)
    print(body)
    if options.write:
        write_section("examples", body)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
