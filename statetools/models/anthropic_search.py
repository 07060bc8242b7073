"""Anthropic's tool search under statetools' locks (``disclosure="tool_search"``).

The request declares only tools the design lets the model have now:

- loaded from the start (not deferred): the tools visible in the run's first request,
  while they may be called (an unfolded facade stays: called again, it lists its
  tools; a tool a state change hides goes) (when none is, the tools visible now: Anthropic needs one
  tool that is not deferred), and, with the server-side search, the search tool
  (``tool_search_tool_bm25_20251119`` or ``tool_search_tool_regex_20251119``) in
  place of the design's search facades;
- deferred (``defer_loading: true``): the tools below a search facade that its search
  may open now, every other tool visible now, and every tool the conversation has
  loaded so far (the API needs a definition for each ``tool_reference`` in the
  history, so a tool loaded once stays declared; a call of it while locked is refused
  by the loop).

A tool that a condition, a state or an exclusive facade keeps locked is not in the
request, so no search finds it. A tool that a call made visible is loaded with a
``tool_reference`` block in that call's result; with ``search="client"`` the design's
search facade stays a tool of its own, answered by statetools' ranker, and its result
loads what it found the same way. The server's ``server_tool_use`` and
``tool_search_tool_result`` blocks are kept in the history (``AssistantMessage.native``)
and sent back verbatim.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from statetools.errors import ProviderError
from statetools.models.base import ModelRequest, ToolCatalogue, ToolDefinition
from statetools.models.programmatic import from_code

if TYPE_CHECKING:
    from anthropic.types import Message as AnthropicMessage

AnthropicSearch = Literal["bm25", "regex", "client"]
SEARCHES: tuple[str, ...] = ("bm25", "regex", "client")
SEARCH_TOOLS: Mapping[str, Mapping[str, str]] = {
    "bm25": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
}
"""The server-side search tool of each variant, as the Messages API takes it."""
SERVER_BLOCKS = frozenset({"server_tool_use", "tool_search_tool_result"})
"""Blocks of an answer that only the provider understands: kept and sent back as is."""

Wire = dict[str, Any]


def native_content(blocks: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """What an answer's content blocks (as JSON) keep in ``AssistantMessage.native``:
    all of them, in order, when a server tool block, or a call made by Claude's code
    (programmatic tool calling), is among them; None otherwise.

    >>> native_content([{"type": "text", "text": "Hi."}]) is None
    True
    >>> native_content([{"type": "server_tool_use", "id": "srvtoolu_1"}])["anthropic"]
    {'content': [{'type': 'server_tool_use', 'id': 'srvtoolu_1'}]}
    """
    if not any(block.get("type") in SERVER_BLOCKS or from_code(block) for block in blocks):
        return None
    return {"anthropic": {"content": [dict(block) for block in blocks]}}


def referenced(blocks: Sequence[Mapping[str, Any]]) -> list[str]:
    """The tools a server-side search loaded: the ``tool_reference`` names of the
    ``tool_search_tool_result`` blocks among ``blocks``, in order.

    >>> referenced([{"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
    ...              "content": {"type": "tool_search_tool_search_result",
    ...                          "tool_references": [{"type": "tool_reference",
    ...                                               "tool_name": "open_ticket"}]}}])
    ['open_ticket']
    """
    names: list[str] = []
    for block in blocks:
        content = block.get("content")
        if block.get("type") != "tool_search_tool_result" or not isinstance(content, Mapping):
            continue
        for reference in content.get("tool_references") or ():
            if isinstance(reference, Mapping) and isinstance(reference.get("tool_name"), str):
                names.append(reference["tool_name"])
    return names


def verbatim(native: Mapping[str, Any] | None, call_ids: Sequence[str]) -> list[Wire] | None:
    """The content blocks to send back for an answer kept with ``native`` blocks, when
    they still fit its tool calls (the same ``tool_use`` ids, in order); else None
    (the message is built from its text and calls, as without them).

    >>> verbatim({"anthropic": {"content": [{"type": "tool_use", "id": "toolu_1"}]}},
    ...          ["toolu_1"])
    [{'type': 'tool_use', 'id': 'toolu_1'}]
    >>> verbatim({"anthropic": {"content": []}}, ["toolu_1"]) is None
    True
    """
    kept = (native or {}).get("anthropic")
    content = kept.get("content") if isinstance(kept, Mapping) else None
    if not isinstance(content, list) or not all(isinstance(b, Mapping) for b in content):
        return None
    ids = [b.get("id") for b in content if b.get("type") == "tool_use"]
    if ids != list(call_ids):
        return None
    return [dict(block) for block in content]


def continued(body: Mapping[str, Any], paused: Sequence[AnthropicMessage]) -> dict[str, Any]:
    """The request that lets the server go on with a turn it paused (``pause_turn``):
    ``body`` with what the turn said so far (the ``paused`` answers' blocks, verbatim)
    as the last assistant message, and the container its code runs in, if any.

    >>> from anthropic.types import Message
    >>> paused = Message.model_validate({
    ...     "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
    ...     "content": [{"type": "text", "text": "Searching."}],
    ...     "stop_reason": "pause_turn", "usage": {"input_tokens": 9, "output_tokens": 2}})
    >>> body = continued({"messages": [{"role": "user", "content": "Hi."}]}, [paused])
    >>> body["messages"][-1] == {"role": "assistant",
    ...                          "content": [{"type": "text", "text": "Searching."}]}
    True
    """
    blocks = [b.to_dict(mode="json", warnings=False) for part in paused for b in part.content]
    out = {**body, "messages": [*body["messages"], {"role": "assistant", "content": blocks}]}
    container = paused[-1].container
    if container is not None:
        out["container"] = container.id
    return out


def whole_turn(parts: Sequence[AnthropicMessage]) -> AnthropicMessage:
    """One answer for a turn the server paused and went on with: the last part with
    the blocks of all ``parts`` in order and the tokens of all of them.

    >>> from anthropic.types import Message
    >>> part = lambda text, stop: Message.model_validate({
    ...     "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
    ...     "content": [{"type": "text", "text": text}],
    ...     "stop_reason": stop, "usage": {"input_tokens": 9, "output_tokens": 2}})
    >>> turn = whole_turn([part("Searching.", "pause_turn"), part("Done.", "end_turn")])
    >>> [b.text for b in turn.content], turn.stop_reason, turn.usage.input_tokens
    (['Searching.', 'Done.'], 'end_turn', 18)
    """
    last = parts[-1]
    usage = last.usage.model_copy(
        update={
            "input_tokens": sum(p.usage.input_tokens for p in parts),
            "output_tokens": sum(p.usage.output_tokens for p in parts),
            "cache_read_input_tokens": sum(p.usage.cache_read_input_tokens or 0 for p in parts),
            "cache_creation_input_tokens": sum(
                p.usage.cache_creation_input_tokens or 0 for p in parts
            ),
        }
    )
    content = [block for part in parts for block in part.content]
    return last.model_copy(update={"content": content, "usage": usage})


class SearchPlan:
    """Which tools one request declares, and how (see the module's text).

    >>> ping = ToolDefinition("ping", "Ping a host.", {"type": "object"})
    >>> plan = SearchPlan(ModelRequest((UserMessage("Ping it."),), (ping,)), "bm25", [])
    >>> plan.loaded_from_start, plan.deferred
    (['ping'], [])
    """

    def __init__(
        self,
        request: ModelRequest,
        search: str,
        turns: Sequence[Wire],
        memo: PlanMemo | None = None,
    ) -> None:
        catalogue = request.catalogue
        self.server = search != "client"
        self.references: dict[str, list[str]] = {}
        self._deferred_definitions: tuple[ToolDefinition, ...] | None = None
        if catalogue is None:  # a request made outside the loop: no search, no deferral
            visible = {tool.name: tool for tool in request.tools}
            self.definitions: dict[str, ToolDefinition] = dict(visible)
            self.loaded_from_start = list(visible)
            self.deferred: list[str] = []
            self.search_tool = False
            return
        last = memo.last if memo is not None else None
        if last is None or last.catalogue is not catalogue or last.tools is not request.tools:
            last = _Fixed.of(request, self.server)
            if memo is not None:
                memo.last = last
        self.definitions = last.definitions
        self.search_tool = last.search_tool
        self.loaded_from_start = list(last.loaded_from_start)
        self.references = _references(turns, request, set(last.start) | last.facades)
        loaded = {name for names in self.references.values() for name in names}
        loaded.update(_server_loaded(turns))
        if all(name in last.deferred_set or name not in self.definitions for name in loaded):
            self.deferred = list(last.deferred)  # what the tools alone defer: the usual case
            self._deferred_definitions = last.deferred_definitions
        else:
            self.deferred = [
                n
                for n in self.definitions
                if n in last.deferred_set
                or (n in loaded and n not in last.start and n not in last.facades)
            ]

    def tools(
        self,
        convert: Callable[[ToolDefinition], Wire],
        search: str,
        cache_control: Mapping[str, str] | None,
        deferred_forms: Callable[[tuple[ToolDefinition, ...]], list[Wire]] | None = None,
    ) -> list[Wire]:
        """The ``tools`` array: the search tool, the tools loaded from the start, then
        the deferred ones; the cache breakpoint on the last tool that is not deferred.
        ``deferred_forms`` gives the deferred definitions' wire forms (``defer_loading``
        included) all at once, from an adapter's cache; by default each is converted.

        >>> ping = ToolDefinition("ping", "Ping a host.", {"type": "object"})
        >>> plan = SearchPlan(ModelRequest((UserMessage("Ping it."),), (ping,)), "bm25", [])
        >>> plan.tools(lambda t: {"name": t.name}, "bm25", {"type": "ephemeral"})
        [{'name': 'ping', 'cache_control': {'type': 'ephemeral'}}]
        """
        out: list[Wire] = [dict(SEARCH_TOOLS[search])] if self.search_tool else []
        out.extend(convert(self.definitions[name]) for name in self.loaded_from_start)
        if not out and self.deferred:
            raise ProviderError(
                "tool search needs a tool visible at the start: Anthropic requires at "
                "least one tool that is not deferred",
                path="AnthropicModel(disclosure='tool_search')",
                hint="make a tool visible in the first request, or use the server-side "
                "search (search='bm25' or 'regex')",
            )
        if cache_control is not None and out:
            out[-1] = {**out[-1], "cache_control": dict(cache_control)}
        deferred = self._deferred_definitions
        if deferred is None:
            deferred = tuple(self.definitions[n] for n in self.deferred)
        if deferred_forms is not None:
            out.extend(deferred_forms(deferred))
        else:
            out.extend({**convert(d), "defer_loading": True} for d in deferred)
        return out

    def messages(self, turns: list[Wire]) -> list[Wire]:
        """``turns`` with a ``tool_reference`` block for each tool a result made
        visible, in that result (once per tool).

        >>> turns = [{"role": "user", "content": "Ping it."}]
        >>> SearchPlan(ModelRequest((UserMessage("Ping it."),)), "bm25", turns).messages(turns)
        [{'role': 'user', 'content': 'Ping it.'}]
        """
        if not self.references:
            return turns
        out: list[Wire] = []
        for turn in turns:
            content = turn["content"]
            if turn["role"] != "user" or not isinstance(content, list):
                out.append(turn)
                continue
            blocks = []
            for block in content:
                names = self.references.get(block.get("tool_use_id", ""))
                blocks.append(_with_references(block, names) if names else block)
            out.append({"role": turn["role"], "content": blocks})
        return out


class PlanMemo:
    """What an adapter's last :class:`SearchPlan` worked out from its catalogue and
    visible tools alone, reused while a request brings the same two objects (a request
    after a call that changed nothing costs what its history adds, not the catalogue).

    >>> PlanMemo().last is None
    True
    """

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: _Fixed | None = None


class _Fixed(NamedTuple):
    """The part of a plan that only the catalogue and the visible tools decide."""

    catalogue: ToolCatalogue
    tools: tuple[ToolDefinition, ...]
    definitions: dict[str, ToolDefinition]
    search_tool: bool
    loaded_from_start: tuple[str, ...]
    start: frozenset[str]
    facades: frozenset[str]
    deferred: tuple[str, ...]
    deferred_set: frozenset[str]
    deferred_definitions: tuple[ToolDefinition, ...]

    @classmethod
    def of(cls, request: ModelRequest, server: bool) -> _Fixed:
        catalogue = request.catalogue
        assert catalogue is not None
        visible = {tool.name: tool for tool in request.tools}
        facades = frozenset(catalogue.searchable) if server else frozenset()
        initial = set(catalogue.initial)
        definitions = {tool.name: tool for tool in catalogue.tools}
        definitions.update(visible)
        search_tool = server and bool(catalogue.searchable)
        kept = set(catalogue.still_callable)  # an unfolded facade keeps its place
        loaded_from_start = [
            n
            for n in definitions
            if (n in visible or n in kept) and n in initial and n not in facades
        ]
        if not loaded_from_start and not search_tool:
            # none of the first tools is visible any more: Anthropic needs one that is
            # not deferred, so the visible ones are loaded from the start now
            loaded_from_start = [n for n in definitions if n in visible]
        searchable = {name for names in catalogue.searchable.values() for name in names}
        start = frozenset(loaded_from_start)
        deferred = tuple(
            n
            for n in definitions
            if n not in start and n not in facades and (n in visible or n in searchable)
        )
        return cls(
            catalogue,
            request.tools,
            definitions,
            search_tool,
            tuple(loaded_from_start),
            start,
            facades,
            deferred,
            frozenset(deferred),
            tuple(definitions[n] for n in deferred),
        )


def _server_loaded(turns: Sequence[Wire]) -> set[str]:
    names: set[str] = set()
    for turn in turns:
        if turn["role"] == "assistant" and isinstance(turn["content"], list):
            names.update(referenced(turn["content"]))
    return names


def _references(
    turns: Sequence[Wire], request: ModelRequest, not_deferred: set[str]
) -> dict[str, list[str]]:
    """By tool result id, the deferred tools it made visible and loads (each once, the
    first time; a tool a server search loaded before needs no reference)."""
    catalogue = request.catalogue
    if catalogue is None or not catalogue.changes:
        return {}
    changes = catalogue.changes
    loaded = set(not_deferred)
    references: dict[str, list[str]] = {}
    for turn in turns:
        content = turn["content"]
        if not isinstance(content, list):
            continue
        if turn["role"] == "assistant":
            loaded.update(referenced(content))
            continue
        for block in content:
            change = (
                changes.get(block.get("tool_use_id", ""))
                if block["type"] == "tool_result"
                else None
            )
            if change is None:
                continue
            fresh = [name for name in change.added if name not in loaded]
            if fresh:
                loaded.update(fresh)
                references[block["tool_use_id"]] = fresh
    return references


def _with_references(block: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    content = block["content"]
    parts: list[dict[str, Any]] = (
        [{"type": "text", "text": content}] if isinstance(content, str) and content else []
    )
    parts.extend({"type": "tool_reference", "tool_name": name} for name in names)
    return {**block, "content": parts}
