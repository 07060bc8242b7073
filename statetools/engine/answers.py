"""What the model is told about a call, and the events of what a call changed.

Every host answers calls with these: :class:`~statetools.engine.Conversation` (and the
loop, the Temporal workflow through it), and the hosts that answer one call at a time
with no history of their own (the bridges' ``BridgeRun``, the MCP gateway) through
:func:`admit` and :func:`settle`.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Sequence

import attrs

from statetools.definitions.unfold_call import Unfolded
from statetools.engine.code_view import HostedScript
from statetools.engine.events import (
    Event,
    InjectionLimitReached,
    InjectionSkipped,
    StateEntered,
    ToolsHidden,
    ToolsInjected,
    ToolsRemoved,
    ToolsUnlocked,
)
from statetools.engine.scheduler import Blocked, Changes, Injected, Scheduler
from statetools.messages import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from statetools.models.base import ToolDefinition
from statetools.tools.calling import ToolResult
from statetools.tools.descriptions import words
from statetools.tools.tool import BaseTool

__all__ = [
    "MAX_MISSES_IN_A_ROW",
    "MAX_RESTARTS",
    "NOT_RUN",
    "RUNNING",
    "Refusal",
    "Settled",
    "admit",
    "change_events",
    "cut_off_message",
    "injection_events",
    "latest_response",
    "pending_calls",
    "refused_message",
    "settle",
    "timed_out_message",
    "timeout_of",
    "tools_digest",
    "unknown_tool_message",
]

MAX_MISSES_IN_A_ROW = 3
"""Calls in a row of names that are no tool before the run ends with ToolNotFoundError."""

MAX_RESTARTS = 10
"""Conversation restarts allowed for a model without dynamic tools."""

RUNNING = "running"
"""The outcome saved with a session whose run has not ended yet."""

NOT_RUN = "No result: the run stopped before this call was answered."
"""The answer given to tool calls left over when a run ends with an error."""


def unknown_tool_message(name: str, available: Sequence[str]) -> str:
    """What the model is told when it calls a tool that does not exist.

    >>> unknown_tool_message("serch", ["search", "open"])
    "Tool 'serch' does not exist. Did you mean 'search'? Available tools: search, open."
    """
    text = f"Tool '{name}' does not exist."
    close = difflib.get_close_matches(name, available, n=3, cutoff=0.6)
    if close:
        quoted = [f"'{c}'" for c in close]
        options = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
        text += f" Did you mean {options}?"
    listing = ", ".join(available) if available else "none"
    return f"{text} Available tools: {listing}."


def timed_out_message(name: str, seconds: float) -> str:
    """What the model is told when a call ran past its timeout.

    >>> timed_out_message("slow", 1)
    "Tool 'slow' timed out after 1.0 s."
    """
    return f"Tool '{name}' timed out after {float(seconds)} s."


def cut_off_message(name: str) -> str:
    """What the model is told about a call of a response cut off by the token limit.

    >>> cut_off_message("wipe")
    "Tool 'wipe' was not run: your response was cut off by the token limit before the call was complete. Call it again, with a shorter response."
    """  # noqa: E501
    return (
        f"Tool '{name}' was not run: your response was cut off by the token limit before "
        "the call was complete. Call it again, with a shorter response."
    )


def refused_message(name: str) -> str:
    """What answers a call that came with a refusal (the run ends with the refusal).

    >>> refused_message("wipe")
    "Tool 'wipe' was not run: the response was a refusal."
    """
    return f"Tool '{name}' was not run: the response was a refusal."


def timeout_of(tool: BaseTool, default: float | None) -> float | None:
    """The seconds a call of ``tool`` may take: its own timeout, else ``default`` (not
    for a script of code mode, whose calls each get theirs).

    >>> timeout_of(Tool.create("ping", "Ping.", lambda: "pong"), 5.0)
    5.0
    """
    own = tool.metadata.timeout
    if own is None and isinstance(tool, HostedScript):
        return None  # a script: its limits, and each of its calls their own timeout
    return own if own is not None else default


@attrs.frozen
class Refusal:
    """A call that does not run: its tool is unknown, or locked now (``blocked``).

    ``text`` is what the model is told.

    >>> Refusal("Tool 'x' does not exist. Available tools: none.", blocked=False).blocked
    False
    """

    text: str
    blocked: bool


def admit(scheduler: Scheduler, name: str) -> BaseTool | Refusal:
    """The tool to run for a call of ``name``, or the refusal the model gets instead: a
    name that is no tool is told the visible tools (and the close ones), a tool that is
    locked now what to call first.

    >>> from statetools.definitions.playbook import PlaybookTool
    >>> search = Tool.create("search", "Search.", lambda: "found")
    >>> analyze = Tool.create("analyze", "Analyze.", lambda: "ok")
    >>> scheduler = Scheduler.for_items(
    ...     [PlaybookTool("r", "R").with_tool(search).with_tool(analyze).unlocked_by(search)])
    >>> admit(scheduler, "analyze").text
    "Tool 'analyze' is locked. Call first: search."
    >>> admit(scheduler, "search").name
    'search'
    """
    resolved = scheduler.resolve(name)
    if resolved is None:
        shown = scheduler.shown().names
        return Refusal(
            unknown_tool_message(name, shown) + _search_hint(scheduler, name, shown), blocked=False
        )
    if isinstance(resolved, Blocked):
        return Refusal(resolved.reason, blocked=True)
    return resolved


def _search_hint(scheduler: Scheduler, name: str, shown: Sequence[str]) -> str:
    """With a search facade in view, how to search for what an unknown ``name`` would
    do (its words as the query), so that the next request can find the tool."""
    facades = scheduler.graph.facades
    finder = next((n for n in shown if n in facades and facades[n].search is not None), None)
    query = " ".join(words(name))
    if finder is None or not query:
        return ""
    return f' To find a tool that does this, call {finder} with {{"query": {json.dumps(query)}}}.'


@attrs.frozen
class Settled:
    """A call's result recorded: the ``text`` the model is told (the result's text, and
    the announcement line when the call opened or closed tools) and what changed.

    >>> Settled("found", Changes()).text
    'found'
    """

    text: str
    changes: Changes


def settle(scheduler: Scheduler, call: ToolCall, result: ToolResult) -> Settled:
    """Let ``scheduler`` see ``call``'s ``result``; the answer carries the announcement
    of what it opened (``[now available: ...]``).

    >>> from statetools.definitions.playbook import PlaybookTool
    >>> search = Tool.create("search", "Search.", lambda: "found")
    >>> analyze = Tool.create("analyze", "Analyze.", lambda: "ok")
    >>> scheduler = Scheduler.for_items(
    ...     [PlaybookTool("r", "R").with_tool(search).with_tool(analyze).unlocked_by(search)])
    >>> settle(scheduler, ToolCall("c1", "search"), ToolResult.text("found")).text
    'found\\n[now available: analyze]'
    """
    changes = scheduler.record(call, result)
    text = result.text
    if changes.announcement:
        text = f"{text}\n{changes.announcement}"
    elif (again := _searched_again(scheduler, call, result, changes)) is not None:
        text = f"{text}\n{again}"
    return Settled(text, changes)


def _searched_again(
    scheduler: Scheduler, call: ToolCall, result: ToolResult, changes: Changes
) -> str | None:
    """The line for a search that opened nothing new: every tool it found that may be
    called was shown already (a small model repeats the same search, waiting for more)."""
    facade = scheduler.graph.facades.get(call.name)
    value = result.value
    if facade is None or facade.search is None or changes.unlocked:
        return None
    if not isinstance(value, Unfolded):
        return None
    shown = set(scheduler.shown().names)
    already = [tool.name for tool in value.tools if tool.name in shown]
    if not already:
        return None
    were = "was" if len(already) == 1 else "were"
    them = "it" if len(already) == 1 else "one of them"
    return (
        f"[nothing new: {', '.join(already)} {were} already available. "
        f"Call {them}, or search with other words.]"
    )


def injection_events(iteration: int, injected: Injected) -> list[Event]:
    """The events for tools a result added or removed (discovery, chaining, facades).

    >>> injection_events(1, Injected("search", added=("open",)))
    [ToolsInjected(iteration=1, names=('open',), source='search', type='tools_injected')]
    """
    events: list[Event] = []
    if injected.removed:
        events.append(ToolsRemoved(iteration, injected.removed, injected.source))
    if injected.added:
        events.append(ToolsInjected(iteration, injected.added, injected.source))
    for name in injected.skipped:
        events.append(InjectionSkipped(iteration, name, "a tool with this name is already visible"))
    for name, reason in injected.not_added:
        events.append(InjectionSkipped(iteration, name, reason))
    if injected.over_limit:
        events.append(
            InjectionLimitReached(iteration, injected.limit, injected.over_limit, injected.source)
        )
    return events


def change_events(iteration: int, changes: Changes) -> list[Event]:
    """The events for what a call (or a new turn) changed: unlocked and hidden tools,
    states entered, tools added or removed.

    >>> change_events(2, Changes(unlocked=("analyze",)))
    [ToolsUnlocked(iteration=2, names=('analyze',), type='tools_unlocked')]
    """
    events: list[Event] = []
    if changes.unlocked:
        events.append(ToolsUnlocked(iteration, changes.unlocked))
    if changes.hidden:
        events.append(ToolsHidden(iteration, changes.hidden))
    for change in changes.entered:
        events.append(
            StateEntered(iteration, change.machine, change.state, change.previous, change.final)
        )
    for injected in changes.injected:
        events.extend(injection_events(iteration, injected))
    return events


def tools_digest(definitions: Sequence[ToolDefinition]) -> str:
    """A short digest of tool definitions (names, descriptions, schemas), to tell on
    resume whether a conversation's tools are still the same.

    >>> len(tools_digest([ToolDefinition("ping", "Ping.", {"type": "object"})]))
    32
    """
    data = [[d.name, d.description, d.input_schema] for d in definitions]
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def pending_calls(messages: Sequence[Message]) -> list[ToolCall]:
    """The calls of the latest model response that have no answer yet.

    >>> call = ToolCall("c1", "ping")
    >>> [c.id for c in pending_calls([UserMessage("Hi"), AssistantMessage("", (call,))])]
    ['c1']
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AssistantMessage):
            answered = {m.tool_call_id for m in messages[index + 1 :] if isinstance(m, ToolMessage)}
            return [call for call in message.tool_calls if call.id not in answered]
        if isinstance(message, UserMessage):
            return []
    return []


def latest_response(messages: Sequence[Message]) -> AssistantMessage | None:
    """The latest model response, if nothing but its calls' answers came after it (a
    run that stopped while taking it); None when a user message came later.

    >>> latest_response([UserMessage("Hi"), AssistantMessage("Hello!")]).content
    'Hello!'
    """
    for message in reversed(messages):
        if isinstance(message, AssistantMessage):
            return message
        if isinstance(message, UserMessage):
            return None
    return None
