"""Helpers shared by the benchmarks: machine facts and RESULTS.md sections."""

from __future__ import annotations

import datetime as dt
import os
import platform
import re
import sys
from importlib import metadata
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")
HEADER = (
    "# Benchmark results\n\n"
    "Every table below is regenerated from scratch, offline, by `make bench`; each section "
    "names the command that writes it.\n"
)


def machine_line() -> str:
    """Where and when the figures were taken."""
    versions = ", ".join(
        f"{name} {metadata.version(name)}" for name in ("statetools", "networkx", "attrs", "cattrs")
    )
    cpu = platform.processor() or platform.machine()
    return (
        f"Measured {dt.date.today().isoformat()} on {platform.system()} {cpu}, "
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}; {versions}."
    )


def write_section(name: str, body: str) -> None:
    """Replace the section ``name`` of RESULTS.md (between its markers) with ``body``."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{body.rstrip()}\n{end}"
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else HEADER
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    text = (
        pattern.sub(lambda _: block, text)
        if pattern.search(text)
        else f"{text.rstrip()}\n\n{block}\n"
    )
    RESULTS.write_text(text, encoding="utf-8")
