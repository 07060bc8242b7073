"""Per-request overhead of the loop for 10 to 10,000 registered tools.

Run: ``python benchmarks/overhead.py`` (``--write`` updates benchmarks/RESULTS.md).

A run is 20 tool calls (one per model request) and a final answer: 21 requests. With
N registered tools, either 10 are visible or all N are. The N - 10 tools that are not
visible are hidden two ways: locked behind an unlock that never happens, or inside two
facades (10 visible: 8 tools and the 2 facades) that are never opened. Each figure is
the fastest of repeated runs of (run time / 21), in milliseconds, measured two ways:
with the ScriptedModel alone, and with the OpenAI adapter building each request body
and serializing it to JSON as the SDK would send it (no network). The design is
compiled once (``st.disclosure_graph``) and passed to every run, as a long-lived agent
would. The JSON serialization of the OpenAI body (what the SDK does with it, whoever
built it) is timed on its own and reported next to the run's own work. Build time is
reported in two parts: making the N tool objects (``Tool.create``, once per tool in a
program's life) and compiling the graph plus the first visible set.
"""

from __future__ import annotations

import argparse
import gc
import json
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


def tools_for(n: int, variant: str) -> list[st.Tool]:
    """The N tool objects of a design, in the order :func:`design` uses them."""
    if variant == "facades":
        return [_tool(f"v{i}") for i in range(10 - FACADES)] + [
            _tool(f"h{i}") for i in range(max(n - 10, FACADES))
        ]
    if variant == "all visible":
        return [_tool(f"v{i}") for i in range(n)]
    return (
        [_tool(f"v{i}") for i in range(10)]
        + [_tool("never")]
        + [_tool(f"l{i}") for i in range(10, n - 1)]
    )


def definition(n: int, variant: str, tools: list[st.Tool]) -> list[Any]:
    """N registered tools. ``unlocks``: 10 visible, the rest locked behind an unlock that
    never happens; ``facades``: 8 visible tools and 2 facades that hold the rest (one
    tool each at N=10) and are never opened; ``all visible``: all N."""
    if variant == "all visible":
        return [st.PlaybookTool("bench", "Benchmark tools").with_tools(*tools)]
    if variant == "facades":
        plain, hidden = tools[: 10 - FACADES], tools[10 - FACADES :]
        facades = [
            st.UnfoldingTool.of(f"group{g}", f"Open tool group {g}", hidden[g::FACADES])
            for g in range(FACADES)
        ]
        return [*plain, *facades]
    playbook = st.PlaybookTool("bench", "Benchmark tools").with_tools(*tools[:11])
    for tool in tools[11:]:
        playbook = playbook.with_tool(tool).unlocked_by("never_called")
    return [playbook]


class OpenAIBodies:
    """The ScriptedModel, behind the OpenAI adapter's request building (no network)."""

    def __init__(self, inner: ScriptedModel, adapter: OpenAIChatModel, serialize: bool) -> None:
        self.inner = inner
        self.adapter = adapter
        self.serialize = serialize
        self.json_seconds = 0.0

    @property
    def capabilities(self) -> ModelCapabilities:
        return self.inner.capabilities

    async def complete(self, request: ModelRequest) -> ModelResponse:
        body = self.adapter.request_body(request)
        if self.serialize:
            started = time.perf_counter()
            json.dumps(body)
            self.json_seconds += time.perf_counter() - started
        return await self.inner.complete(request)


ADAPTER = OpenAIChatModel("gpt-4o-mini", api_key="offline")
"""One adapter for every run, as a program keeps one model object."""


def one_run(
    graph: st.DisclosureGraph, openai: bool, calls: int = CALLS, serialize: bool = False
) -> tuple[float, float]:
    """(ms per request for the whole run, ms per request spent in json.dumps of the
    OpenAI body: only with ``serialize``, else 0 and the body is built but not dumped)."""
    callable_now = [name for name in graph.entries if name.startswith("v")][:10]
    steps: list[Any] = [(callable_now[i % len(callable_now)], {"q": "x"}) for i in range(calls)]
    scripted = ScriptedModel([*steps, "done"])
    bodies = OpenAIBodies(scripted, ADAPTER, serialize)
    model: Any = bodies if openai else scripted
    loop = st.ToolLoop(model, max_iterations=calls + 1)
    started = time.perf_counter()
    loop.run("go", tools=[graph])
    elapsed = time.perf_counter() - started
    assert len(scripted.requests) == calls + 1
    return elapsed * 1000 / (calls + 1), bodies.json_seconds * 1000 / (calls + 1)


def measure(graph: st.DisclosureGraph, openai: bool, repeats: int) -> float:
    """The fastest of ``repeats`` runs, in ms per request (OpenAI bodies built, not dumped)."""
    one_run(graph, openai)  # warm up
    gc.collect()
    return min(one_run(graph, openai)[0] for _ in range(repeats))


def json_ms(graph: st.DisclosureGraph, repeats: int) -> float:
    """The fastest ms per request that ``json.dumps`` of the OpenAI bodies takes."""
    return min(one_run(graph, True, serialize=True)[1] for _ in range(max(repeats // 3, 2)))


def marginal(graph: st.DisclosureGraph, repeats: int) -> float:
    """ms one more request costs the run itself (OpenAI body built, JSON apart): runs of
    2 x CALLS and CALLS calls, the difference over CALLS requests. A run's setup (a new
    run indexes the tools it starts with) cancels out."""

    def own(calls: int) -> float:
        return min(one_run(graph, True, calls)[0] for _ in range(repeats)) * (calls + 1)

    return max(own(2 * CALLS) - own(CALLS), 0.0) / CALLS


def build(n: int, variant: str) -> tuple[st.DisclosureGraph, float, float, float]:
    """The design, with the ms spent making the N tool objects, putting them in the
    definition (the builder calls) and building: compiling the graph and computing the
    first visible set."""
    started = time.perf_counter()
    tools = tools_for(n, variant)
    tools_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    items = definition(n, variant, tools)
    define_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    graph = st.disclosure_graph(*items)
    st.Scheduler(graph).shown()
    return graph, tools_ms, define_ms, (time.perf_counter() - started) * 1000


ALL_VISIBLE_TARGET_MS = 2.0
BUILD_TARGET_MS = 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    rows = []
    figures: dict[tuple[str, str], list[float]] = {}
    builds: list[tuple[str, float]] = []
    margins: list[float] = []
    for variant in VARIANTS:
        for n in SIZES:
            if sys.stderr.isatty():
                print(f"\rN={n} {variant}...", end="", file=sys.stderr, flush=True)
            graph, tools_ms, define_ms, build_ms = build(n, variant)
            scripted = measure(graph, False, args.repeats)
            body = measure(graph, True, args.repeats)
            dumps = json_ms(graph, args.repeats)
            if variant == "all visible":
                margins.append(marginal(graph, args.repeats))
            figures.setdefault((variant, "ScriptedModel"), []).append(scripted)
            figures.setdefault((variant, "OpenAI body"), []).append(body)
            visible = n if variant == "all visible" else 10
            registered = len(graph.entries)
            builds.append((f"{registered:,} {variant}", build_ms))
            rows.append(
                f"| {registered:,} | {visible:,} | {variant} | {scripted:.3f} | {body:.3f} "
                f"| {dumps:.3f} | {tools_ms:.0f} | {define_ms:.0f} | {build_ms:.0f} |"
            )
    if sys.stderr.isatty():
        print("\r" + " " * 50 + "\r", end="", file=sys.stderr)
    verdicts = []
    for (variant, label), values in figures.items():
        ratio = values[-1] / values[0]
        if variant == "all visible" and label == "ScriptedModel":
            ok = values[-1] < ALL_VISIBLE_TARGET_MS
            limit = f"under {ALL_VISIBLE_TARGET_MS} ms at N=10,000"
        elif variant == "all visible":
            ratio = margins[-1] / margins[0] if margins[0] else float("inf")
            values = margins
            ok = ratio <= 1.5
            limit = (
                "one more request, JSON apart, within 1.5x of N=10; figures here are that "
                "marginal cost, the table's column also carries each run's setup"
            )
        else:
            ok = max(values) < TARGET_MS and ratio <= 1.5
            limit = f"under {TARGET_MS} ms at every N and within 1.5x of N=10"
        verdicts.append(
            f"- {label}, {variant}: N=10,000 {values[-1]:.3f} ms, N=10,000 / N=10 = "
            f"{ratio:.2f} (target: {limit}): {'met' if ok else 'NOT met'}"
        )
    slowest = max(builds, key=lambda b: b[1])
    verdicts.append(
        f"- build (compile + first visible set), slowest: {slowest[1]:.0f} ms ({slowest[0]}) "
        f"(target: under {BUILD_TARGET_MS:.0f} ms at N=10,000): "
        f"{'met' if slowest[1] < BUILD_TARGET_MS else 'NOT met'}"
    )
    body_text = "\n".join(
        [
            "## Loop overhead: ms per model request (20 calls + answer)",
            "",
            "Command: `python benchmarks/overhead.py --write`. Per request: the run's own work "
            "with the ScriptedModel, and with the OpenAI adapter building each request body; "
            "the JSON serialization of that body (the SDK's own work, the same whoever builds "
            "the body) is measured apart. Each figure is the fastest of the repeated runs (the "
            "machine is shared; the minimum is the code's own cost). Times to set up: making "
            "the tool objects, the definition's builder calls (the `unlocks` design adds "
            "N tools one `with_tool(...).unlocked_by(...)` at a time, which copies the "
            "definition each time), and the build: compiling the graph and the first visible "
            "set.",
            "",
            "| registered | visible | hidden by | ScriptedModel ms | + OpenAI body ms "
            "| JSON of the body ms | make tools ms | define ms | build ms |",
            "|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            *verdicts,
            "",
            machine_line(),
        ]
    )
    print(body_text)
    if args.write:
        write_section("overhead", body_text)


if __name__ == "__main__":
    main()
