"""Anthropic's deferred disclosure: every tool declared, the hidden ones deferred.

A tool not visible in the first request is declared with ``defer_loading: true``; the
tool result that made it visible carries a ``tool_reference`` block naming it, which
loads its definition at that point of the conversation. The tools array never changes,
so the cached prefix holds. With the mid-conversation tool changes beta, a system
message of ``tool_addition``/``tool_removal`` blocks follows the results instead, and a
tool can be withdrawn again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

from statetools.errors import ProviderError
from statetools.models._provider import plain_json
from statetools.models.base import ModelRequest, ToolChange, ToolDefinition

AnthropicDisclosure = Literal["tools", "deferred", "tool_search"]
ANTHROPIC_DISCLOSURES: tuple[str, ...] = ("tools", "deferred", "tool_search")
TOOL_CHANGES_BETA = "mid-conversation-tool-changes-2026-07-01"
"""The ``anthropic-beta`` value for ``tool_addition``/``tool_removal`` blocks."""


def initially_visible(request: ModelRequest) -> tuple[str, ...] | None:
    """The names of the tools visible in the run's first request, or None when every
    declared tool is (a request without a catalogue). The catalogue's own tuple, the
    same object for a whole run.

    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> catalogue = st.models.ToolCatalogue((ping,), ("ping",))
    >>> initially_visible(ModelRequest((UserMessage("Ping it."),), (ping,), catalogue=catalogue))
    ('ping',)
    """
    if request.catalogue is None:
        return None
    return request.catalogue.initial


def deferred_tools(
    declared: Sequence[ToolDefinition],
    initial: Collection[str] | None,
    *,
    cache_control: Mapping[str, str] | None,
) -> list[dict[str, Any]]:
    """Every declared tool, ``defer_loading: true`` on those not visible at the start
    (``initial`` None: every tool is).

    Deferred tools are not part of the cached prefix, so the cache breakpoint goes on
    the last tool that is loaded from the start.

    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> pong = ToolDefinition("pong", "Pong.", {"type": "object"})
    >>> [t.get("defer_loading") for t in deferred_tools([ping, pong], {"ping"}, cache_control=None)]
    [None, True]
    """
    plain = [
        {"name": t.name, "description": t.description, "input_schema": plain_json(t.input_schema)}
        for t in declared
    ]
    return deferred_wire(plain, initial, cache_control=cache_control)


def deferred_wire(
    wire: Sequence[dict[str, Any]],
    initial: Collection[str] | None,
    *,
    cache_control: Mapping[str, str] | None,
) -> list[dict[str, Any]]:
    """:func:`deferred_tools` from the tools' plain wire forms, which are shared and
    left as they are (a tool that changes is copied).

    >>> deferred_wire([{"name": "ping"}, {"name": "pong"}], ("ping",), cache_control=None)
    [{'name': 'ping'}, {'name': 'pong', 'defer_loading': True}]
    """
    names = None if initial is None else set(initial)
    out: list[dict[str, Any]] = []
    last_loaded: int | None = None
    for form in wire:
        if names is None or form["name"] in names:
            last_loaded = len(out)
            out.append(form)
        else:
            out.append({**form, "defer_loading": True})
    if out and last_loaded is None:
        raise ProviderError(
            "deferred disclosure needs a tool visible at the start: Anthropic requires "
            "at least one tool that is not deferred",
            path="AnthropicModel(disclosure='deferred')",
            hint="make a tool visible in the first request, or use disclosure='tools'",
        )
    if cache_control is not None and last_loaded is not None:
        out[last_loaded] = {**out[last_loaded], "cache_control": dict(cache_control)}
    return out


def deferred_more(
    previous: list[dict[str, Any]],
    fresh: list[dict[str, Any]],
    initial: Collection[str] | None,
) -> list[dict[str, Any]] | None:
    """:func:`deferred_wire` of tools appended after those of ``previous`` (its
    result), from their plain wire forms ``fresh``; None when one of them is loaded
    from the start (the cache breakpoint moves: build the list again).

    >>> deferred_more([{"name": "ping"}], [{"name": "pong"}], ("ping",))
    [{'name': 'ping'}, {'name': 'pong', 'defer_loading': True}]
    """
    if initial is None or any(form["name"] in initial for form in fresh):
        return None
    return previous + [{**form, "defer_loading": True} for form in fresh]


def _result_ids(turn: Mapping[str, Any]) -> list[str]:
    content = turn["content"]
    if turn["role"] != "user" or not isinstance(content, list):
        return []
    return [block["tool_use_id"] for block in content if block["type"] == "tool_result"]


def with_reveals(
    turns: list[dict[str, Any]], request: ModelRequest, *, beta_tool_changes: bool
) -> list[dict[str, Any]]:
    """``turns`` (the Messages API history) with the reveals of the catalogue's changes.

    Without the beta, a deferred tool that became visible is named by a
    ``tool_reference`` block in the tool result that revealed it (once; a hidden tool
    is refused by the loop). With it, each user turn of results whose calls changed
    the tools is followed by a system message of ``tool_addition`` and
    ``tool_removal`` blocks.

    A request without a catalogue (or whose tools never changed) leaves the turns as
    they are:

    >>> turns = [{"role": "user", "content": "Ping it."}]
    >>> with_reveals(turns, ModelRequest((UserMessage("Ping it."),)), beta_tool_changes=False)
    [{'role': 'user', 'content': 'Ping it.'}]
    """
    if request.catalogue is None or not request.catalogue.changes:
        return turns
    changes = request.catalogue.changes
    initial = set(request.catalogue.initial)
    loaded = set(initial)
    out: list[dict[str, Any]] = []
    for turn in turns:
        ids = [i for i in _result_ids(turn) if i in changes]
        if not ids:
            out.append(turn)
            continue
        if beta_tool_changes:
            out.append(turn)
            out.append(_tool_changes_message([changes[i] for i in ids]))
            continue
        blocks = []
        for block in turn["content"]:
            change = changes.get(block.get("tool_use_id", ""))
            if change is not None:
                fresh = [name for name in change.added if name not in loaded]
                loaded.update(fresh)
                if fresh:
                    block = _with_references(block, fresh)
            blocks.append(block)
        out.append({"role": turn["role"], "content": blocks})
    return out


def _with_references(block: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    content = block["content"]
    parts: list[dict[str, Any]] = (
        [{"type": "text", "text": content}] if isinstance(content, str) and content else []
    )
    parts.extend({"type": "tool_reference", "tool_name": name} for name in names)
    return {**block, "content": parts}


def _tool_changes_message(changes: Sequence[ToolChange]) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    for change in changes:
        blocks.extend(
            {"type": "tool_addition", "tool": {"type": "tool_reference", "name": name}}
            for name in change.added
        )
        blocks.extend(
            {"type": "tool_removal", "tool": {"type": "tool_reference", "name": name}}
            for name in change.removed
        )
    return {"role": "system", "content": blocks}
