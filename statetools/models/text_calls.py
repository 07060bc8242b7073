"""Tool calls written into the text of an answer, as small local models often write them.

A model served by an OpenAI-compatible server (llama.cpp's ``llama-server``, vLLM,
Ollama) sometimes answers a tool call as JSON in its text instead of in the
response's ``tool_calls``: in a fenced code block, between ``<tool_call>`` tags (the
tags of Qwen's chat template, when the server's parser missed them) or as the whole
answer. :func:`calls_in_text` finds them, so the loop runs them like any other call.
A block that looks like a call but is not valid JSON becomes a call with
``invalid_arguments``: the model is told what was wrong and can call again, instead of
the run ending on a text answer nobody asked for.

Only text that is nothing but such blocks (and blank space or a short lead-in) counts,
and only when the request offered tools: an answer that explains JSON to the user, with
prose around a block that merely has a ``name`` key, stays an answer.

>>> text = 'I will look it up.\\n```json\\n{"name": "get_order", "arguments": {"id": 7}}\\n```'
>>> found = calls_in_text(text, ids=iter(["c1"]))
>>> found.calls, found.rest
([ToolCall(id='c1', name='get_order', arguments={'id': 7}, invalid_arguments=None)], \
'I will look it up.')
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from statetools.messages import ToolCall
from statetools.tools.calling import parse_arguments

__all__ = ["TextCalls", "calls_in_text", "looks_like_call"]

_BLOCK = re.compile(
    r"```[ \t]*(?:json|tool_call|tool|javascript|js)?[ \t]*\n?(?P<fenced>.*?)```"
    r"|<tool_call>(?P<tagged>.*?)(?:</tool_call>|$)",
    re.DOTALL | re.IGNORECASE,
)
_NAME = re.compile(r'"name"\s*:\s*"(?P<name>[^"\\]{1,200})"')
_LEAD_IN = 300
"""Characters of prose allowed before (or after) the blocks of a call in the text."""
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")


@attrs.frozen
class TextCalls:
    """The calls found in an answer's text and the text left around them.

    >>> TextCalls([], "The order ships Monday.").rest
    'The order ships Monday.'
    """

    calls: list[ToolCall]
    rest: str


def looks_like_call(value: Any) -> bool:
    """Whether a decoded JSON value has the shape of a tool call: an object with a text
    ``name`` and its arguments (``arguments``, ``parameters``, ...) and nothing else,
    or the Chat Completions form ``{"type": "function", "function": {...}}``.

    >>> looks_like_call({"name": "ping", "arguments": {}}), looks_like_call({"name": "Ada"})
    (True, False)
    """
    if not isinstance(value, Mapping):
        return False
    if isinstance(value.get("function"), Mapping):
        return looks_like_call(value["function"])
    if not isinstance(value.get("name"), str):
        return False
    others = set(value) - {"name", "id", "type"}
    return len(others) == 1 and others <= set(_ARGUMENT_KEYS)


def _one_call(value: Mapping[str, Any], call_id: str) -> ToolCall:
    if isinstance(value.get("function"), Mapping):
        value = value["function"]
    name = str(value["name"])
    raw: Any = next((value[key] for key in _ARGUMENT_KEYS if key in value), None)
    if isinstance(raw, str):  # arguments sent as JSON text inside the JSON
        raw = raw if raw.strip() else None
    parsed = parse_arguments(name, raw)
    if isinstance(parsed, str):
        return ToolCall(call_id, name, invalid_arguments=parsed)
    return ToolCall(call_id, name, parsed)


def _decoded(text: str) -> tuple[bool, Any]:
    """(True, the value), or (False, what is wrong with the JSON)."""
    try:
        return True, json.loads(text)
    except json.JSONDecodeError as exc:
        return False, f"{exc.msg} at position {exc.pos}"
    except (ValueError, RecursionError):
        return False, "too long or too deeply nested"


def _in_sequence(text: str) -> tuple[bool, list[Any]] | None:
    """The JSON objects of ``text`` written one after the other (separated by blank
    space or commas; what follows the last, a stray bracket or a note, is left out), or
    None."""
    decoder = json.JSONDecoder()
    items: list[Any] = []
    position = 0
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position == len(text) or (items and not text[position:].strip("}] \t\r\n")):
            return (True, items) if len(items) > 1 or position < len(text) else None
        try:
            item, position = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            return (True, items) if items else None
        items.append(item)


def _calls_of(piece: str, ids: Iterator[str]) -> list[ToolCall] | None:
    """The calls one block holds; None if the block is not a call at all."""
    text = piece.strip()
    if not text.startswith(("{", "[")):
        return None
    ok, value = _decoded(text)
    if not ok and text.startswith("{{") and text.endswith("}}"):
        # the braces doubled, as a template's example that escapes them reads
        ok, doubled = _decoded(text[1:-1])
        value = doubled if ok else value
    if not ok:  # several objects one after the other, as small models write calls
        ok, value = _in_sequence(text) or (False, value)
    if ok:
        items = value if isinstance(value, list) else [value]
        if items and all(looks_like_call(item) for item in items):
            return [_one_call(item, next(ids)) for item in items]
        return None
    named = _NAME.search(text)
    if named is None or not re.match(r'\s*[\[{]\s*(\{\s*)?"(name|function|type)"', text):
        return None  # not JSON and not shaped like a call: leave the text alone
    name = named.group("name")
    return [
        ToolCall(
            next(ids),
            name,
            invalid_arguments=f"Invalid call of tool '{name}': the call in your text is not "
            f"valid JSON ({value}). Call the tool again with its arguments as one JSON object.",
        )
    ]


def calls_in_text(text: str, *, ids: Iterator[str]) -> TextCalls:
    """The tool calls written as JSON in ``text`` (fenced blocks, ``<tool_call>`` tags,
    or the whole text), each with the next id of ``ids``; no calls when the text is
    prose that merely contains JSON.

    >>> calls_in_text("The order ships Monday.", ids=iter(["c1"])).calls
    []
    >>> calls_in_text('{"name": "ping", "arguments": {}}', ids=iter(["c1"])).calls[0].name
    'ping'
    """
    if "{" not in text:
        return TextCalls([], text)
    blocks = list(_BLOCK.finditer(text))
    if not blocks:
        found = _calls_of(text, ids)
        return TextCalls(found, "") if found else TextCalls([], text)
    calls: list[ToolCall] = []
    rest: list[str] = []
    kept = 0
    for block in blocks:
        found = _calls_of(block.group("fenced") or block.group("tagged") or "", ids)
        if found is None:  # a block that is no call: an answer, unless calls come first
            before = _calls_of(text[: blocks[0].start()], ids) if not calls else None
            return (
                TextCalls(before, text[blocks[0].start() :].strip())
                if before
                else (TextCalls([], text))
            )
        calls += found
        rest.append(text[kept : block.start()])
        kept = block.end()
    rest.append(text[kept:])
    prose = "".join(rest).strip()
    if len(prose) > _LEAD_IN:
        return TextCalls([], text)
    return TextCalls(calls, prose)
