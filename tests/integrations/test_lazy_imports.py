"""``import statetools`` never imports a bridge's framework."""

from __future__ import annotations

import subprocess
import sys

FRAMEWORKS = ("pydantic_ai", "langchain", "langchain_core", "langgraph", "agents", "opentelemetry")


def test_import_statetools_imports_no_framework() -> None:
    code = (
        "import sys, statetools, statetools.integrations, statetools.integrations.bridge\n"
        f"print(sorted(m for m in {FRAMEWORKS!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == "[]\n"
