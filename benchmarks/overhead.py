"""Per-request overhead of the loop for 10 to 10,000 registered tools.

Run: ``python benchmarks/overhead.py`` (``--write`` updates benchmarks/RESULTS.md).

A run is 20 tool calls (one per model request) and a final answer: 21 requests. With
N registered tools, either 10 are visible or all N are. The N - 10 tools that are not
visible are hidden two ways: locked behind an unlock that never happens, or inside two
facades (10 visible: 8 tools and the 2 facades) that are never opened. Each figure is
the median over repeated runs of (run time / 21), in milliseconds, measured two ways:
with the ScriptedModel alone, and with the OpenAI adapter building each request body
and serializing it to JSON as the SDK would send it (no network). The design is
compiled once (``st.disclosure_graph``) and passed to every run, as a long-lived agent
would; the compile time is reported separately.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st
from statetools.models import ModelCapabilities, ModelRequest, ModelResponse, ScriptedModel
from statetools.models.openai_chat import OpenAIChatModel

SIZES = (10, 200, 2_000, 10_000)
CALLS = 20
TARGET_MS = 0.5


def _tool(name: str) -> st.Tool:
    return st.Tool.create(
        name,
        f"Tool {name}",
        lambda q="": "ok",
        schema=st.InputSchema.of(st.Parameter.string("q", "Query", required=False)),
    )


VARIANTS = ("unlocks", "facades", "all visible")
"""How the N - 10 tools that are not visible are hidden (or not)."""
FACADES = 2


def design(n: int, variant: str) -> st.DisclosureGraph:
    """N registered tools. ``unlocks``: 10 visible, the rest locked behind an unlock that
    never happens; ``facades``: 8 visible tools and 2 facades that hold the rest (one
    tool each at N=10) and are never opened; ``all visible``: all N."""
    if variant == "all visible":
        return st.disclosure_graph(
            st.PlaybookTool("bench", "Benchmark tools").with_tools(
                *(_tool(f"v{i}") for i in range(n))
            )
        )
    if variant == "facades":
        plain = [_tool(f"v{i}") for i in range(10 - FACADES)]
        hidden = max(n - 10, FACADES)
        facades = [
            st.UnfoldingTool.of(
                f"group{g}",
                f"Open tool group {g}",
                [_tool(f"h{i}") for i in range(g, hidden, FACADES)],
            )
            for g in range(FACADES)
        ]
        return st.disclosure_graph(*plain, *facades)
    playbook = st.PlaybookTool("bench", "Benchmark tools").with_tools(
        *(_tool(f"v{i}") for i in range(10))
    )
    playbook = playbook.with_tools(_tool("never"))
    for i in range(10, n - 1):
        playbook = playbook.with_tool(_tool(f"l{i}")).unlocked_by("never_called")
    return st.disclosure_graph(playbook)


class OpenAIBodies:
    """The ScriptedModel, behind the OpenAI adapter's request building (no network)."""

    def __init__(self, inner: ScriptedModel) -> None:
        self.inner = inner
        self.adapter = OpenAIChatModel("gpt-4o-mini", api_key="offline")

    @property
    def capabilities(self) -> ModelCapabilities:
        return self.inner.capabilities

    async def complete(self, request: ModelRequest) -> ModelResponse:
        json.dumps(self.adapter.request_body(request))
        return await self.inner.complete(request)


def one_run(graph: st.DisclosureGraph, openai: bool) -> float:
    callable_now = [name for name in graph.entries if name.startswith("v")][:10]
    steps: list[Any] = [(callable_now[i % len(callable_now)], {"q": "x"}) for i in range(CALLS)] + [
        "done"
    ]
    scripted = ScriptedModel(steps)
    model: Any = OpenAIBodies(scripted) if openai else scripted
    loop = st.ToolLoop(model, max_iterations=CALLS + 1)
    started = time.perf_counter()
    loop.run("go", tools=[graph])
    elapsed = time.perf_counter() - started
    assert len(scripted.requests) == CALLS + 1
    return elapsed * 1000 / (CALLS + 1)


def measure(graph: st.DisclosureGraph, openai: bool, repeats: int) -> float:
    one_run(graph, openai)  # warm up
    gc.collect()
    return statistics.median(one_run(graph, openai) for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    rows = []
    hidden: dict[tuple[str, bool], list[float]] = {}
    for variant in VARIANTS:
        for n in SIZES:
            if sys.stderr.isatty():
                print(f"\rN={n} {variant}...", end="", file=sys.stderr, flush=True)
            started = time.perf_counter()
            graph = design(n, variant)
            compile_ms = (time.perf_counter() - started) * 1000
            scripted = measure(graph, False, args.repeats)
            openai = measure(graph, True, args.repeats)
            if variant != "all visible":
                hidden.setdefault((variant, False), []).append(scripted)
                hidden.setdefault((variant, True), []).append(openai)
            visible = n if variant == "all visible" else 10
            registered = len(graph.entries)
            rows.append(
                f"| {registered:,} | {visible:,} | {variant} | {scripted:.3f} | {openai:.3f} "
                f"| {compile_ms:.0f} |"
            )
    if sys.stderr.isatty():
        print("\r" + " " * 50 + "\r", end="", file=sys.stderr)
    verdicts = []
    for (variant, openai_bodies), figures in hidden.items():
        label = "OpenAI bodies" if openai_bodies else "ScriptedModel"
        ok = max(figures) < TARGET_MS and figures[-1] <= 1.5 * figures[0]
        verdicts.append(
            f"- {label}, 10 visible ({variant}): max {max(figures):.3f} ms, "
            f"N=10,000 / N=10 = {figures[-1] / figures[0]:.2f}: {'met' if ok else 'NOT met'}"
        )
    body = "\n".join(
        [
            "## Loop overhead: median ms per model request (20 calls + answer)",
            "",
            "Command: `python benchmarks/overhead.py --write`. Target: under "
            f"{TARGET_MS} ms per request with 10 visible at every N, and the N=10,000 figure "
            "within 1.5x of the N=10 figure.",
            "",
            "| registered | visible | hidden by | ScriptedModel ms | + OpenAI request body ms "
            "| compile ms |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
            *verdicts,
            "",
            machine_line(),
        ]
    )
    print(body)
    if args.write:
        write_section("overhead", body)


if __name__ == "__main__":
    main()
