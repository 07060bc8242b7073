"""CPU per model request in the tool-search modes, for a search facade of 100 to 10,000 tools.

Run: ``python benchmarks/search_facade_requests.py`` (``--write`` updates
benchmarks/RESULTS.md).

In the provider-native search modes (Anthropic's server-side ``tool_search``, its
``search="client"`` variant and OpenAI's Responses ``tool_search``) every request says what
each search facade may open now: the deferred definitions the provider's search runs over,
or the namespaces the run's own search answers from. Per-turn work should grow with what
changed, not with the facade's size. The design: five plain tools the model calls (none
changes what the facade may open) and one search facade of N tools, a tenth of them in a
playbook that one of the plain tools unlocks (never called here). A run is 20 calls of the
plain tools and an answer.

Figures per mode and size, each the fastest of the repeated runs, in milliseconds of
process CPU: what one more request costs the whole run (conversation, catalogue, the
ScriptedModel and the adapter's ``request_body``; runs of 40 and 20 calls, the difference
per call, so a run's setup cancels out; no JSON, which is the SDK's work).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st
from statetools.models import (
    AnthropicModel,
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    OpenAIResponsesModel,
    ScriptedModel,
)

SIZES = (100, 1_000, 10_000)
CALLS = 20
PLAIN = 5
RATIO_TARGET = 1.5

ADAPTERS: dict[str, Callable[[], Any]] = {
    "Anthropic tool_search (server, bm25)": lambda: AnthropicModel(
        "claude-test", api_key="offline", disclosure="tool_search", search="bm25"
    ),
    "Anthropic tool_search (client)": lambda: AnthropicModel(
        "claude-test", api_key="offline", disclosure="tool_search", search="client"
    ),
    "Responses tool_search": lambda: OpenAIResponsesModel(
        "gpt-5.4", api_key="offline", disclosure="tool_search"
    ),
}
"""The adapter of each mode; one per mode and size, used for every run of that design."""


def _tool(name: str) -> st.Tool:
    return st.Tool.create(
        name,
        f"Tool {name} for task {name}",
        lambda q="": "ok",
        schema=st.InputSchema.of(st.Parameter.string("q", "Query", required=False)),
    )


def design(n: int) -> st.DisclosureGraph:
    """Five plain tools and a search facade of ``n`` tools, a tenth behind ``v0``."""
    plain = [_tool(f"v{i}") for i in range(PLAIN)]
    later = n // 10
    inner: list[Any] = [_tool(f"s{i}") for i in range(n - later)]
    gated = [_tool(f"g{i}") for i in range(later)]
    book = st.PlaybookTool("after_v0", "After v0")
    for tool in gated:
        book = book.with_tool(tool).unlocked_by(plain[0])
    inner.append(book)
    finder = st.Facade.searchable("find_tools", "Find the tools you need", inner)
    return st.disclosure_graph(*plain, finder)


class Bodies:
    """The ScriptedModel behind an adapter's request building (no network)."""

    def __init__(self, inner: ScriptedModel, adapter: Any) -> None:
        self.inner = inner
        self.adapter = adapter

    @property
    def capabilities(self) -> ModelCapabilities:
        return self.adapter.capabilities  # type: ignore[no-any-return]

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.adapter.request_body(request)
        return await self.inner.complete(request)


def one_run(graph: st.DisclosureGraph, adapter: Any, calls: int) -> float:
    """CPU ms of a whole run of ``calls`` calls of the plain tools (v1 to v4)."""
    steps: list[Any] = [(f"v{1 + i % (PLAIN - 1)}", {"q": "x"}) for i in range(calls)]
    scripted = ScriptedModel([*steps, "done"])
    loop = st.ToolLoop(Bodies(scripted, adapter), max_iterations=calls + 1)
    started = time.process_time()
    result = loop.run("go", tools=[graph])
    elapsed = time.process_time() - started
    assert len(scripted.requests) == calls + 1
    assert not [m for m in result.messages if m.role == "tool" and m.is_error]
    return elapsed * 1000


def searchable_sizes(graph: st.DisclosureGraph, adapter: Any) -> list[int]:
    """How many tools the search facade may open in each request of a short run (what
    the run declares to the provider's search or to its own)."""
    scripted = ScriptedModel([("v1", {"q": "x"}), ("v2", {"q": "x"}), "done"])
    st.ToolLoop(Bodies(scripted, adapter), max_iterations=3).run("go", tools=[graph])
    sizes = []
    for request in scripted.requests:
        assert request.catalogue is not None
        sizes.append(len(request.catalogue.searchable["find_tools"]))
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    parser.add_argument("--save", type=Path, help="write the figures as JSON here")
    parser.add_argument(
        "--before", type=Path, help="JSON figures of an earlier version (--save), shown first"
    )
    args = parser.parse_args()
    graphs = {n: design(n) for n in SIZES}
    adapters = {(mode, n): make() for mode, make in ADAPTERS.items() for n in SIZES}
    for (_mode, n), adapter in adapters.items():
        one_run(graphs[n], adapter, CALLS)  # warm up (search indexes, wire forms)
    gc.collect()
    best: dict[tuple[str, int, int], float] = {}
    for _ in range(args.repeats):  # sizes, modes and lengths interleaved
        for mode in ADAPTERS:
            for n in SIZES:
                for calls in (CALLS, 2 * CALLS):
                    ms = one_run(graphs[n], adapters[(mode, n)], calls)
                    best[(mode, n, calls)] = min(best.get((mode, n, calls), float("inf")), ms)
    rows, verdicts = [], []
    before = json.loads(args.before.read_text()) if args.before else {}
    figures: dict[str, dict[str, float]] = {}
    for mode in ADAPTERS:
        per_request = {}
        for n in SIZES:
            short, long = best[(mode, n, CALLS)], best[(mode, n, 2 * CALLS)]
            per_request[n] = max(long - short, 0.0) / CALLS
        figures[mode] = {str(n): per_request[n] for n in SIZES}
        if mode in before:
            cells = " | ".join(f"{before[mode][str(n)]:.3f}" for n in SIZES)
            rows.append(f"| {mode}, before | {cells} |")
        cells = " | ".join(f"{per_request[n]:.3f}" for n in SIZES)
        rows.append(f"| {mode}{', now' if mode in before else ''} | {cells} |")
        ratio = per_request[SIZES[-1]] / max(per_request[SIZES[0]], 1e-9)
        verdicts.append(
            f"- {mode}: N={SIZES[-1]:,} / N={SIZES[0]}: {ratio:.2f} (target: within "
            f"{RATIO_TARGET}x): {'met' if ratio <= RATIO_TARGET else 'NOT met'}"
        )
    heads = " | ".join(f"N={n:,}" for n in SIZES)
    text = "\n".join(
        [
            "## Tool-search modes: CPU ms per model request by search facade size",
            "",
            "Command: `python benchmarks/search_facade_requests.py --write`. A search "
            "facade of N tools (a tenth in a playbook unlocked by a plain tool that is never "
            f"called) and {PLAIN} plain tools; a run is {CALLS} calls of the plain tools "
            "(none changes what the facade may open) and an answer. What one more request "
            "costs the whole run (conversation, catalogue, ScriptedModel and the adapter's "
            f"`request_body`; runs of {2 * CALLS} and {CALLS} calls, the difference per call), "
            f"in ms of process CPU, the fastest of {args.repeats} runs, sizes, modes and "
            "lengths interleaved."
            + (
                " The `before` rows: the same benchmark on the code before what each search "
                "facade may open was kept per run (worked out in full for every request) and "
                "before the Anthropic adapter kept the deferred definitions' wire forms."
                if before
                else ""
            ),
            "",
            f"| mode | {heads} |",
            "|---|" + "---|" * len(SIZES),
            *rows,
            "",
            *verdicts,
            "",
            machine_line(),
        ]
    )
    print(text)
    if args.save:
        args.save.write_text(json.dumps(figures, indent=1))
    if args.write:
        write_section("search-facade-requests", text)


if __name__ == "__main__":
    main()
