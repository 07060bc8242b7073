"""The disclosure modes on the requests of a replay: prefix breaks and billed tool tokens.

One replayed task gives the visible tools of every model request. The same requests are
measured as each mode would send them, with the real adapters' request bodies:

- ``tools, registration order``: the visible tools sorted by their place in the design
  (what sending "the visible tools" without keeping positions gives);
- ``tools, stable order``: the visible tools as the loop sends them (the default mode:
  tools that stay visible keep their positions, new ones are appended);
- ``allowed_tools`` (OpenAI): every tool of the design in every request, the visible
  ones in ``tool_choice`` (counted as uncached input in every request);
- ``deferred`` (Anthropic): every tool declared, those not visible in the first request
  deferred; a deferred tool's definition is loaded once where it is revealed (a cache
  write there, a cache read in every later request); deferred entries cost nothing
  until loaded.

Costs follow ``replay.billed``: cache writes at 1.25x, reads at 0.1x, in uncached-token
units; o200k_base tokens for every provider (Anthropic's tokenizer differs).
"""

from __future__ import annotations

from collections.abc import Sequence

import anthropic_search_mode
from replay import (
    CACHE_READ,
    CACHE_WRITE,
    Measure,
    TaskResult,
    billed,
    definition_entries,
    measure,
    prefix_breaks,
)

import statetools as st
from statetools.models import AnthropicModel, ModelRequest, OpenAIChatModel, ToolCatalogue
from statetools.models.base import ToolDefinition
from statetools.review.tokens import array_tokens, count_text, wire_json

MODES = (
    "tools, registration order",
    "tools, stable order (default)",
    "allowed_tools",
    "deferred",
    *anthropic_search_mode.MODES,
)
"""The modes measured on the replayed requests themselves."""
REPORTED = (*MODES, "tool_search (OpenAI)")
"""The modes of the table: those, and OpenAI's ``tool_search`` mode, measured on a replay
of its own (``search_mode.py``; ``tokens.py`` adds it to each task's modes)."""
_ALLOWED = OpenAIChatModel("gpt-4o", api_key="offline", disclosure="allowed_tools")
_DEFERRED = AnthropicModel("claude-test", api_key="offline", disclosure="deferred")


def design_definitions(graph: st.DisclosureGraph) -> list[ToolDefinition]:
    """Every registered tool of the design, in registration order (as the loop's
    catalogue starts)."""
    return [
        ToolDefinition(e.tool.name, e.tool.description, e.tool.input_schema)
        for e in graph.entries.values()
    ]


def catalogues(
    requests: Sequence[ModelRequest], registered: Sequence[ToolDefinition]
) -> list[ToolCatalogue]:
    """The catalogue of each request: the registered tools, then tools first seen at
    run time appended; ``initial`` is the first request's visible set."""
    known = {tool.name: tool for tool in registered}
    initial = tuple(requests[0].tool_names) if requests else ()
    result = []
    for request in requests:
        for tool in request.tools:
            known.setdefault(tool.name, tool)
        result.append(ToolCatalogue(tuple(known.values()), initial))
    return result


def registration_order(
    requests: Sequence[ModelRequest], registered: Sequence[ToolDefinition]
) -> list[list[str]]:
    """Each request's visible tools in design order (run-time tools last)."""
    place = {tool.name: index for index, tool in enumerate(registered)}
    return [
        definition_entries(sorted(r.tools, key=lambda t: place.get(t.name, len(place))))
        for r in requests
    ]


def allowed_tools(
    requests: Sequence[ModelRequest], registered: Sequence[ToolDefinition]
) -> Measure:
    """The requests in ``allowed_tools`` mode (the Chat Completions body)."""
    arrays: list[list[str]] = []
    choice_tokens = 0
    for request, catalogue in zip(requests, catalogues(requests, registered), strict=True):
        body = _ALLOWED.request_body(ModelRequest((), request.tools, catalogue=catalogue))
        arrays.append([wire_json(entry) for entry in body.get("tools", [])])
        choice_tokens += count_text(wire_json(body.get("tool_choice", "none")))
    plain = measure(arrays)
    return Measure(
        plain.requests,
        plain.tokens + choice_tokens,
        plain.cost + choice_tokens,
        plain.breaks,
    )


def deferred(requests: Sequence[ModelRequest], registered: Sequence[ToolDefinition]) -> Measure:
    """The requests in Anthropic's ``deferred`` mode: the loaded-at-start prefix (the
    same every request), plus each revealed tool's definition from its reveal on."""
    prefixes: list[list[str]] = []
    revealed: list[str] = []
    loaded: set[str] = set()
    extra_tokens = 0
    extra_cost = 0.0
    for request, catalogue in zip(requests, catalogues(requests, registered), strict=True):
        body = _DEFERRED.request_body(ModelRequest((), request.tools, catalogue=catalogue))
        entries = body.get("tools", [])
        prefixes.append([wire_json(e) for e in entries if not e.get("defer_loading")])
        deferred_now = {e["name"]: e for e in entries if e.get("defer_loading")}
        fresh = [n for n in request.tool_names if n in deferred_now and n not in loaded]
        for name in fresh:
            loaded.add(name)
            entry = dict(deferred_now[name])
            entry.pop("defer_loading")
            revealed.append(wire_json(entry))
            tokens = count_text(revealed[-1])
            extra_cost += (CACHE_WRITE - CACHE_READ) * tokens
        shown = sum(count_text(text) for text in revealed)
        extra_tokens += shown
        extra_cost += CACHE_READ * shown
    return Measure(
        len(requests),
        sum(array_tokens(p) for p in prefixes) + extra_tokens,
        billed(prefixes) + extra_cost,
        prefix_breaks(prefixes),
    )


def measure_modes(
    requests: Sequence[ModelRequest], sent: Sequence[Sequence[str]], graph: st.DisclosureGraph
) -> dict[str, Measure]:
    """Every mode's measure of one task's requests (``sent``: the tools entries as the
    loop sent them)."""
    registered = design_definitions(graph)
    return {
        MODES[0]: measure(registration_order(requests, registered)),
        MODES[1]: measure(sent),
        MODES[2]: allowed_tools(requests, registered),
        MODES[3]: deferred(requests, registered),
        **anthropic_search_mode.measure_modes(requests, registered, graph),
    }


def mode_means(results: Sequence[TaskResult]) -> dict[str, tuple[float, float, float]]:
    """Per mode, the mean prefix breaks, tool tokens and billed cost per task."""
    means = {}
    for mode in REPORTED:
        measured = [r.modes[mode] for r in results if mode in r.modes]
        if not measured:
            continue
        count = len(measured) or 1
        means[mode] = (
            sum(m.breaks for m in measured) / count,
            sum(m.tokens for m in measured) / count,
            sum(m.cost for m in measured) / count,
        )
    return means


def report(runs: Sequence[tuple[str, float, Sequence[TaskResult]]]) -> str:
    """The modes table: per catalogue (label, flat cost per task, results) and mode."""
    lines = [
        "### Disclosure modes: prefix breaks and cost under caching",
        "",
        "The same replayed requests, sent in each disclosure mode (`benchmarks/modes.py`, "
        "with the adapters' real request bodies). *Registration order*: the visible tools "
        "sorted by their place in the design; *stable order*: as the loop sends them in the "
        "default mode (tools that stay keep their positions, new ones are appended); "
        "*allowed_tools* (OpenAI Chat/Responses): every tool in every request, the visible "
        "ones in `tool_choice` (its tokens counted uncached in every request); *deferred* "
        "(Anthropic): the start set loaded, every other tool deferred and loaded once where "
        "it is revealed; *tool_search (OpenAI)*: the same tasks replayed with the model "
        "searching (`benchmarks/search_mode.py`): each plain or search facade a namespace "
        "whose functions are deferred (billed as the namespace's name and description), "
        "each disclosure call a search whose loaded definitions enter the conversation "
        "once (a cache write, then reads); see that module for the sources and "
        "assumptions. Cost: billed tool tokens with caching (write 1.25x, read 0.1x) as a "
        "ratio to flat; tokens: tool tokens in the prompt per task.",
        "",
        "| catalogue | mode | prefix breaks/task | tool tokens/task | cost vs flat |",
        "|---|---|---|---|---|",
    ]
    for label, flat_cost, results in runs:
        for mode, (breaks, tokens, cost) in mode_means(results).items():
            ratio = cost / flat_cost if flat_cost else 0.0
            lines.append(f"| {label} | {mode} | {breaks:.2f} | {tokens:,.0f} | {ratio:.3f} |")
    lines += [
        "",
        "Reading it: `allowed_tools` and `deferred` never break the prefix (Anthropic's "
        "`tool_search` only where a tool of the first request is locked: its rows and its "
        "cost model are in the section of `benchmarks/anthropic_search_mode.py`); "
        "`allowed_tools` pays for the "
        "whole catalogue in every request (cached after the first, so it costs about what "
        "flat costs), `deferred` only for the start set and what is revealed. In the "
        "default mode the stable order removes the breaks that reordering caused; the "
        "breaks left come from tools that must go (an unfolded plain facade, a state's "
        "tools). This cost counts tool definitions only: a prefix break also re-bills the "
        "system prompt and the whole conversation after the tools, which the replay (one-"
        "word results) does not measure, and which the native modes never re-bill. "
        "`tool_search` (OpenAI) breaks nothing where facades unfold (a search loads tools "
        "into the conversation, the tools array stays), so it is the cheapest OpenAI mode "
        "on designs of plain facades; a search facade's results cost it more than the "
        "default mode (each search's output repeats its namespace, and the search tool is "
        "declared in every request), and a state machine's changes break it as they break "
        "the default mode.",
    ]
    return "\n".join(lines) + "\n"
