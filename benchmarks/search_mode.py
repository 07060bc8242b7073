"""OpenAI's ``tool_search`` mode in the oracle replay: the same tasks replayed with the
model searching its deferred tools, measured from the adapter's real request bodies.

The replay's oracle plans the fewest disclosure calls before each ground-truth call (see
``replay.py``). :class:`SearchingModel` plays it in ``tool_search`` mode: the run gets
the model's capabilities (the loop adds ``tool_search`` and fills
``ModelRequest.search``), the oracle sees the tools it planned for (``tool_search``
left out), and each call it makes of a facade the request declares as a namespace
becomes a search that loads what that call would open: a plain facade's tools (the
namespace loads whole), a search facade's matches (its own ranker, its own
``max_results``). The requests are then written by
``OpenAIResponsesModel(disclosure="tool_search", search_execution="client")``.

Cost model (stated assumptions; OpenAI's pricing page has no separate line for tool
search, so everything is input tokens, o200k_base, in uncached-token units):

- the ``tools`` array: the ``tool_search`` tool and every plain function in full; a
  namespace as what OpenAI says the model sees of it before a search, its name and
  description (``{"type", "name", "description"}``); its deferred functions are not
  counted (OpenAI: "the model sees only the namespace ... name and description at the
  beginning"; "tool search is mostly deferring the parameter schema");
- each search: the tools its ``tool_search_output`` loads (their namespace and the
  functions in full), as conversation input from the request after the search on
  (OpenAI injects loaded tools at the end of the context to keep the cache): a cache
  write (1.25x) in the first request that sends them, a read (0.1x) in every later one;
  the search's call and the output's other fields are conversation, not tool
  definitions, and not counted, as the other modes do not count a facade's call and
  result;
- the ``tools`` array is cached as in every other mode (``replay.billed``); a prefix
  break is a request whose array, written in full (deferred functions included),
  differs from the previous one's before its end.

A hosted search would be billed the same way under these assumptions (its two items
come back in the response and are sent again with the history).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from replay import CACHE_READ, CACHE_WRITE, Measure, billed, prefix_breaks

import statetools as st
from statetools.engine.tool_search import TOOL_SEARCH
from statetools.models import ModelCapabilities, ModelRequest, ModelResponse, OpenAIResponsesModel
from statetools.review.tokens import array_tokens, count_text, wire_json

MODE = "tool_search (OpenAI)"
ADAPTER = OpenAIResponsesModel(
    "gpt-5.4", api_key="offline", disclosure="tool_search", search_execution="client"
)


class SearchingModel:
    """The replay's scripted oracle, playing a model in ``tool_search`` mode."""

    capabilities = ModelCapabilities(declares_all_tools=True, searches_tools=True)

    def __init__(self, scripted: st.models.ScriptedModel, graph: st.DisclosureGraph) -> None:
        self.scripted = scripted
        self.graph = graph
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The oracle's response to what it planned for, facade calls made searches."""
        self.requests.append(request)
        planned = attrs.evolve(
            request, tools=tuple(t for t in request.tools if t.name != TOOL_SEARCH)
        )
        response = await self.scripted.complete(planned)
        space = request.search
        if space is None:
            return response
        declared = {namespace.name: namespace for namespace in space.namespaces}
        calls = tuple(
            self._search(call, declared[call.name].names) if call.name in declared else call
            for call in response.message.tool_calls
        )
        message = attrs.evolve(response.message, tool_calls=calls)
        return attrs.evolve(response, message=message)

    def _search(self, call: st.ToolCall, loadable: Sequence[str]) -> st.ToolCall:
        facade = self.graph.facades[call.name]
        names: list[str]
        if facade.search is None:
            names = list(loadable[:1])  # one tool loads a plain facade whole
        elif call.arguments.get("names"):
            names = [str(name) for name in call.arguments["names"]]
        else:
            query = str(call.arguments.get("query") or "")
            ranked = facade.search_index.rank(query, facade.search.max_results)
            names = [tool.name for tool, _ in ranked if tool.name in loadable]
        return st.ToolCall(call.id, TOOL_SEARCH, {"names": names})


def wrap(scripted: st.models.ScriptedModel, graph: st.DisclosureGraph) -> SearchingModel:
    """What ``Replay(wrap=...)`` runs instead of the scripted oracle."""
    return SearchingModel(scripted, graph)


def _seen(entry: Mapping[str, Any]) -> str:
    """What the model is billed for of one tools entry before any search."""
    if entry.get("type") == "namespace":
        return wire_json({k: entry[k] for k in ("type", "name", "description")})
    return wire_json(entry)


def measure_search(requests: Sequence[ModelRequest]) -> Measure:
    """The requests of a searching replay, as the adapter writes them (see the module's
    docstring for what is counted)."""
    full: list[list[str]] = []
    seen: list[list[str]] = []
    tokens: dict[str, int] = {}
    sent: list[str] = []
    extra_tokens = 0
    extra_cost = 0.0
    for request in requests:
        body = ADAPTER.request_body(request)
        entries = body.get("tools", [])
        full.append([wire_json(entry) for entry in entries])
        seen.append([_seen(entry) for entry in entries])
        items = [
            wire_json(item["tools"])
            for item in body["input"]
            if item.get("type") == "tool_search_output"
        ]
        for text in items[len(sent) :]:
            tokens[text] = count_text(text)
            extra_cost += (CACHE_WRITE - CACHE_READ) * tokens[text]
        sent = items
        shown = sum(tokens[text] for text in items)
        extra_tokens += shown
        extra_cost += CACHE_READ * shown
    return Measure(
        len(requests),
        sum(array_tokens(entries) for entries in seen) + extra_tokens,
        billed(seen) + extra_cost,
        prefix_breaks(full),
    )
