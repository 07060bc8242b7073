"""Per-request cost of the provider-native disclosure modes for 100 and 2,000 tools.

Run: ``python benchmarks/native_overhead.py`` (``--write`` updates benchmarks/RESULTS.md).

The native modes declare every tool of the design in every request: OpenAI's
``allowed_tools`` (Chat Completions and Responses) and Anthropic's ``deferred``. Their
tools array never changes during a run, so building a request should cost what changed
since the last one, not the size of the catalogue. The design is the ``unlocks`` one of
``overhead.py`` (10 tools visible, the rest locked behind an unlock that never happens);
a strategy injects a new tool after each of the first three calls, so three tools
appear at run time (``additional_tools`` items in the Responses mode, deferred entries
appended in the Anthropic mode). A run is 20 tool calls and an answer: 21 requests.

Figures per mode and size, each the fastest of the repeated runs, in milliseconds: the
adapter's ``request_body`` for a run's first request and per later request, and what one
more request costs the whole run (the loop with its catalogue, the ScriptedModel and the
body; runs of 40 and 20 calls, the difference per call, so a run's setup cancels out; no
JSON, which is the SDK's work).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section
from overhead import _tool, definition, tools_for

import statetools as st
from statetools.models import (
    AnthropicModel,
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    OpenAIChatModel,
    OpenAIResponsesModel,
    ScriptedModel,
)

SIZES = (100, 2_000)
CALLS = 20
RUN_TIME_TOOLS = 3
RATIO_TARGET = 1.5

ADAPTERS: dict[str, Callable[[], Any]] = {
    "Chat allowed_tools": lambda: OpenAIChatModel(
        "gpt-4o", api_key="offline", disclosure="allowed_tools"
    ),
    "Responses allowed_tools": lambda: OpenAIResponsesModel(
        "gpt-4.1", api_key="offline", disclosure="allowed_tools"
    ),
    "Anthropic deferred": lambda: AnthropicModel(
        "claude-test", api_key="offline", disclosure="deferred", cache_control=True
    ),
    "Responses tool_search": lambda: OpenAIResponsesModel(
        "gpt-5.4", api_key="offline", disclosure="tool_search"
    ),
}
"""The adapter of each mode; one is made per mode and size and used for every run of
that design, as a program keeps one model object per agent."""
VARIANT = {"Responses tool_search": "facades"}
"""The design of a mode, when not ``unlocks``: ``tool_search`` runs on the ``facades``
design of ``overhead.py`` (8 tools visible, two facades holding the rest, each a
namespace of the tools it holds)."""

INJECTED = [_tool(f"rt{i}") for i in range(RUN_TIME_TOOLS)]


class InjectEarly:
    """Adds one new tool after each of the first calls (tools that appear at run time)."""

    def __init__(self) -> None:
        self.left = list(INJECTED)

    def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
        return st.Injection(add=[self.left.pop(0)]) if self.left else None


class Bodies:
    """The ScriptedModel behind an adapter's request building, timed (no network)."""

    def __init__(self, inner: ScriptedModel, adapter: Any) -> None:
        self.inner = inner
        self.adapter = adapter
        self.seconds: list[float] = []

    @property
    def capabilities(self) -> ModelCapabilities:
        return self.adapter.capabilities  # type: ignore[no-any-return]

    async def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        self.adapter.request_body(request)
        self.seconds.append(time.perf_counter() - started)
        return await self.inner.complete(request)


def one_run(graph: st.DisclosureGraph, adapter: Any, calls: int) -> tuple[float, float, float]:
    """ms in ``request_body`` for the first request and per later request, and ms for
    the whole run."""
    names = [name for name in graph.entries if name.startswith("v")][:10]
    steps: list[Any] = [(names[i % len(names)], {"q": "x"}) for i in range(calls)]
    scripted = ScriptedModel([*steps, "done"])
    bodies = Bodies(scripted, adapter)
    loop = st.ToolLoop(bodies, max_iterations=calls + 1, strategies=[InjectEarly()])
    started = time.perf_counter()
    loop.run("go", tools=[graph])
    elapsed = time.perf_counter() - started
    requests = scripted.requests
    assert len(requests) == calls + 1
    assert requests[-1].catalogue is not None
    injected = [n for n in requests[-1].catalogue.run_time if n != "tool_search"]
    assert len(injected) == RUN_TIME_TOOLS  # tool_search: added to a compiled design
    first, later = bodies.seconds[0], bodies.seconds[1:]
    return first * 1000, sum(later) * 1000 / len(later), elapsed * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    variants = {VARIANT.get(mode, "unlocks") for mode in ADAPTERS}
    built = {
        (v, n): st.disclosure_graph(*definition(n, v, tools_for(n, v)))
        for v in variants
        for n in SIZES
    }
    graphs = {
        (mode, n): built[(VARIANT.get(mode, "unlocks"), n)] for mode in ADAPTERS for n in SIZES
    }
    adapters = {(mode, n): make() for mode, make in ADAPTERS.items() for n in SIZES}
    for (mode, n), adapter in adapters.items():
        one_run(graphs[(mode, n)], adapter, CALLS)  # warm up
    gc.collect()
    best: dict[tuple[str, int, int], tuple[float, float, float]] = {}
    for _ in range(args.repeats):  # sizes, modes and lengths interleaved: load hits all alike
        for mode in ADAPTERS:
            for n in SIZES:
                for calls in (CALLS, 2 * CALLS):
                    figures = one_run(graphs[(mode, n)], adapters[(mode, n)], calls)
                    old = best.get((mode, n, calls), (float("inf"),) * 3)
                    best[(mode, n, calls)] = (
                        min(old[0], figures[0]),
                        min(old[1], figures[1]),
                        min(old[2], figures[2]),
                    )
    rows, verdicts = [], []
    for mode in ADAPTERS:
        per_request = {}
        for n in SIZES:
            first, later, short = best[(mode, n, CALLS)]
            long = best[(mode, n, 2 * CALLS)][2]
            per_request[n] = (later, max(long - short, 0.0) / CALLS)
            rows.append(
                f"| {mode} | {len(graphs[(mode, n)].entries):,} | {first:.3f} | {later:.4f} "
                f"| {per_request[n][1]:.3f} |"
            )
        small, large = per_request[SIZES[0]], per_request[SIZES[-1]]
        body_ratio, run_ratio = large[0] / small[0], large[1] / small[1]
        ok = body_ratio <= RATIO_TARGET and run_ratio <= RATIO_TARGET
        verdicts.append(
            f"- {mode}: N={SIZES[-1]:,} / N={SIZES[0]}: later request body {body_ratio:.2f}, "
            f"one more request of the run {run_ratio:.2f} (target: both within "
            f"{RATIO_TARGET}x): {'met' if ok else 'NOT met'}"
        )
    text = "\n".join(
        [
            "## Native disclosure modes: ms per model request",
            "",
            "Command: `python benchmarks/native_overhead.py --write`. Every tool of the design "
            "is declared in every request (OpenAI `allowed_tools`, Anthropic `deferred` with "
            "`cache_control`; OpenAI `tool_search` on the `facades` design of `overhead.py`: 8 "
            "tools visible and two facades holding the rest, each a namespace of deferred "
            "tools, and the run's search tool); 10 tools visible, the rest locked; "
            f"{RUN_TIME_TOOLS} tools "
            f"injected at run time, after the first calls. A run is {CALLS} tool calls and an "
            "answer. The adapter's `request_body` for the first request of a run (a run's "
            "catalogue is a new tuple: the adapter compares it with the last one in C and "
            "converts nothing, every wire form is kept from earlier runs; the deferred mode "
            "marks its entries again, once per run) and per later request (the injections "
            "included); and what "
            f"one more request costs the whole run (loop, catalogue, ScriptedModel and body; "
            f"runs of {2 * CALLS} and {CALLS} calls, the difference per call; JSON, the SDK's "
            f"work, apart). Each figure is the fastest of {args.repeats} runs, sizes, modes "
            "and lengths interleaved.",
            "",
            "| mode | registered | first request body ms | later request body ms "
            "| one more request, whole run ms |",
            "|---|---|---|---|---|",
            *rows,
            "",
            *verdicts,
            "",
            machine_line(),
        ]
    )
    print(text)
    if args.write:
        write_section("native-overhead", text)


if __name__ == "__main__":
    main()
