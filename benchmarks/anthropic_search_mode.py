"""Anthropic's ``tool_search`` mode on the requests of a replay: prefix breaks and cost.

``AnthropicModel(disclosure="tool_search")`` declares only the tools the design lets
the model have now. Measured on the same replayed requests as the other modes, with
the adapter's real request bodies for the part that is billed in every request:

- ``tool_search (Anthropic, server)``: the server-side search tool
  (``tool_search_tool_bm25_20251119``) in place of the design's search facades, plus
  the tools of the first request while they may be called (a facade that unfolded
  stays), are the cached prefix. A call of a search facade in the replay is a
  server-side search here: it happens inside the model's answer that calls the tool it
  found, so the request that followed the facade's call in the replay is not made (the
  replay's one-call-per-answer model makes that request; the server's search saves it).
- ``tool_search (Anthropic, client)``: the search facade stays a tool (answered by
  statetools' ranker); the requests are the replay's own.

Cost model (in uncached-token units, as ``replay.billed``; o200k_base tokens, as for
every mode here, although Anthropic's tokenizer differs):

- the non-deferred tools are the prompt's cached prefix: written at 1.25x where they
  change, read at 0.1x otherwise (``replay.billed``);
- a deferred definition costs nothing until it is loaded: Anthropic's documentation
  says deferred tools are not part of the system-prompt prefix and that a tool found
  by search (or named by a ``tool_reference`` block in a tool result) has its
  definition expanded inline where it was loaded, so the prefix stays cached
  (platform.claude.com, "Tool use with prompt caching" and "Tool search tool"). A
  loaded definition is counted as its full wire entry, written to the cache once where
  it is loaded (1.25x) and read in every later request (0.1x);
- the search tool is counted as its wire entry (the JSON object of the request);
  Anthropic adds a system prompt of its own for tools that is not published for the
  search tool, and no per-search fee is published (the response reports
  ``server_tool_use.tool_search_requests``), so neither is counted. The search's own
  blocks in the conversation (``server_tool_use`` with the query,
  ``tool_search_tool_result`` with a few ``tool_reference`` names) are conversation
  tokens, which this replay does not count for any mode (a facade call and its result
  are not counted either).

Run: ``python benchmarks/anthropic_search_mode.py`` (``--write`` updates its section of
benchmarks/RESULTS.md); ``python benchmarks/tokens.py`` shows the same modes in its
modes table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
from _report import machine_line, write_section
from replay import CACHE_READ, CACHE_WRITE, Measure, billed, prefix_breaks

import statetools as st
from statetools.messages import AssistantMessage, ToolMessage
from statetools.models import AnthropicModel, ModelRequest, ToolCatalogue
from statetools.models.anthropic_wire import anthropic_tool
from statetools.models.base import ToolDefinition
from statetools.review.tokens import array_tokens, count_text, wire_json

SERVER = "tool_search (Anthropic, server)"
CLIENT = "tool_search (Anthropic, client)"
MODES = (SERVER, CLIENT)
_MODELS = {
    mode: AnthropicModel(
        "claude-test",
        api_key="offline",
        disclosure="tool_search",
        search="bm25" if mode == SERVER else "client",
    )
    for mode in MODES
}


def search_facades(graph: st.DisclosureGraph) -> tuple[str, ...]:
    """The design's search facades, in registration order."""
    return tuple(name for name, facade in graph.facades.items() if facade.search is not None)


def searched_only(request: ModelRequest, facades: set[str]) -> bool:
    """Whether ``request`` answers a model turn that only called search facades (the
    replay's search step, which the server's search makes inside the next answer)."""
    if not facades or not request.messages or not isinstance(request.messages[-1], ToolMessage):
        return False
    answer = next(m for m in reversed(request.messages) if isinstance(m, AssistantMessage))
    return bool(answer.tool_calls) and all(call.name in facades for call in answer.tool_calls)


def measure_search(
    requests: Sequence[ModelRequest],
    registered: Sequence[ToolDefinition],
    graph: st.DisclosureGraph,
    mode: str,
) -> Measure:
    """One task's requests in Anthropic's ``tool_search`` mode (``mode``: SERVER or
    CLIENT): the adapter's non-deferred tools per request, and each tool loaded later
    from its load on."""
    facades = search_facades(graph)
    server = mode == SERVER
    hidden = set(facades) if server else set()
    known = {tool.name: tool for tool in registered}
    initial = tuple(requests[0].tool_names) if requests else ()
    catalogue = ToolCatalogue((), initial, searchable=dict.fromkeys(facades, ()))
    prefixes: list[list[str]] = []
    revealed: list[str] = []
    loaded: set[str] = set()
    start: set[str] = set()
    sent = 0
    extra_tokens = 0
    extra_cost = 0.0
    for request in requests:
        for tool in request.tools:
            known.setdefault(tool.name, tool)
        merged = server and searched_only(request, hidden)
        if not merged:  # a search the server made inside the answer before needs none
            sent += 1
            shown = set(request.tool_names)  # an unfolded facade is still callable
            callable_now = tuple(n for n in initial if n not in shown and n in graph.facades)
            catalogue = attrs.evolve(
                catalogue, tools=tuple(known.values()), still_callable=callable_now
            )
            asked = ModelRequest((), request.tools, catalogue=catalogue)
            body = _MODELS[mode].request_body(asked)
            prefix = [e for e in body.get("tools", []) if not e.get("defer_loading")]
            prefixes.append([wire_json(e) for e in prefix])
            start = {str(e.get("name")) for e in prefix}
        fresh = [n for n in request.tool_names if n not in start | hidden | loaded]
        for name in fresh:  # loaded where it was found or revealed: written once
            loaded.add(name)
            revealed.append(wire_json(anthropic_tool(known[name])))
            tokens = count_text(revealed[-1])
            if merged:  # expanded inside the answer that searched
                extra_tokens += tokens
                extra_cost += CACHE_WRITE * tokens
            else:
                extra_cost += (CACHE_WRITE - CACHE_READ) * tokens
        if not merged:
            shown = sum(count_text(text) for text in revealed)
            extra_tokens += shown
            extra_cost += CACHE_READ * shown
    return Measure(
        sent,
        sum(array_tokens(p) for p in prefixes) + extra_tokens,
        billed(prefixes) + extra_cost,
        prefix_breaks(prefixes),
    )


def measure_modes(
    requests: Sequence[ModelRequest],
    registered: Sequence[ToolDefinition],
    graph: st.DisclosureGraph,
) -> dict[str, Measure]:
    """Both variants' measures of one task's requests."""
    return {mode: measure_search(requests, registered, graph, mode) for mode in MODES}


# -- the RESULTS.md section ----------------------------------------------------------------

COMPARED = ("tools, stable order (default)", "deferred", SERVER, CLIENT)
"""The Anthropic modes of the table (the default mode, and the two native ones)."""


def _means(results: Sequence[Any], mode: str) -> tuple[float, float, float, float] | None:
    measured = [r.modes[mode] for r in results if mode in r.modes and r.failure is None]
    if not measured:
        return None
    n = len(measured)
    return (
        sum(m.requests for m in measured) / n,
        sum(m.breaks for m in measured) / n,
        sum(m.tokens for m in measured) / n,
        sum(m.cost for m in measured) / n,
    )


def report(runs: Sequence[tuple[str, float, Sequence[Any]]], command: str) -> str:
    """The section: per catalogue and design, each Anthropic mode's requests, prefix
    breaks, tool tokens and cost against flat, and the cheapest."""
    lines = [
        "## Anthropic `tool_search` mode against the other Anthropic modes",
        "",
        f"Command: `{command}`. The oracle replays of `benchmarks/tokens.py` (same tasks, "
        "designs and counting), measured as `AnthropicModel` sends them "
        "(`benchmarks/anthropic_search_mode.py`, whose docstring gives the cost model and "
        "its sources): the default mode (`tools`, stable order), `deferred` (every tool "
        "the design can show declared, the start set loaded), and `tool_search` with the "
        "server-side BM25 search (in place of the design's search facades; a facade "
        "search of the replay happens inside the next answer, so its request is saved) "
        "or with the client-side search (the facade answered by statetools, its result "
        "loading the tools it found). Cost: billed tool-definition tokens with caching "
        "(write 1.25x, read 0.1x), ratio to flat (every tool in every request). Per task.",
        "",
        "| catalogue, design | mode | requests | prefix breaks | tool tokens | cost vs flat "
        "| cheapest |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, flat_cost, results in runs:
        rows = [(mode, _means(results, mode)) for mode in COMPARED]
        measured = [(mode, m) for mode, m in rows if m is not None]
        ratios = {mode: m[3] / flat_cost if flat_cost else 0.0 for mode, m in measured}
        least = min((f"{r:.3f}" for r in ratios.values()), key=float, default="")
        for mode, m in measured:
            ratio = ratios[mode]
            mark = "yes" if f"{ratio:.3f}" == least else ""  # ties (as shown) all marked
            lines.append(
                f"| {label} | {mode} | {m[0]:.2f} | {m[1]:.2f} | {m[2]:,.0f} | {ratio:.3f} "
                f"| {mark} |"
            )
    lines += [
        "",
        "Reading it: where a design has a search facade, the server-side search is the "
        "cheapest Anthropic mode: its search tool is a short fixed entry, the tools it "
        "finds are loaded once, and each search rides along in the answer that calls what "
        "it found (one request fewer per search). The client-side search costs what "
        "`deferred` costs (the same tools are loaded at the same points), with locked "
        "tools left out of the request. Designs without a search facade gain nothing "
        "from a search tool: `tool_search` then costs what `deferred` costs (a facade "
        "that unfolds stays in place, as it may be called again), with the locked tools "
        "left out; only a state change that locks a tool of the first request breaks its "
        "prefix (the retail desk machine), where `deferred` keeps every tool declared. "
        "Ties (equal cost as shown) are all marked.",
        "",
        machine_line(),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Replay every shared catalogue and print (``--write``: store) the section."""
    import argparse

    import tokens

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalogue", choices=[*tokens.CATALOGUES, "all"], default="all")
    parser.add_argument("--limit", type=int, default=None, help="replay the first N tasks")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    chosen = tokens.CATALOGUES if args.catalogue == "all" else (args.catalogue,)
    files = tokens.convert_all(tokens.SHARED, tokens.BUILD)
    runs = []
    for label, name, design in tokens.RUNS:
        if name in chosen:
            tools, tasks = files[name]
            summary, results = tokens.run_catalogue(
                label, tools, tasks, tokens.DESIGNS / design, args.limit
            )
            runs.append((label, summary.flat_cost, results))
    command = "python benchmarks/anthropic_search_mode.py --write" + (
        f" --catalogue {args.catalogue}" if args.catalogue != "all" else ""
    )
    body = report(runs, command)
    print(body)
    if args.write:
        write_section("anthropic_tool_search", body)


if __name__ == "__main__":
    main()
