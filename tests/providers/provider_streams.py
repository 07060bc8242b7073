"""Streamed replies in the providers' SSE formats, made from the non-streamed ones.

Each function takes a reply body of :mod:`tests.providers.provider_wire` and the
pieces its text is to arrive in, and returns the events a streaming server sends.
"""

from __future__ import annotations

import copy
import json
from typing import Any

Events = list[tuple[str | None, Any]]


def _halves(text: str) -> list[str]:
    middle = len(text) // 2
    return [part for part in (text[:middle], text[middle:]) if part]


def _check(pieces: list[str], whole: str) -> None:
    assert "".join(pieces) == whole, "the pieces must make up the text"


def chat_stream(body: dict[str, Any], pieces: list[str]) -> Events:
    """Chat Completions chunks, then the usage chunk and ``[DONE]``."""
    choice = body["choices"][0]
    message = choice["message"]
    _check(pieces, message["content"] or "")
    head = {key: body[key] for key in ("id", "created", "model")}
    head["object"] = "chat.completion.chunk"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, Any]:
        choices = [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]
        return None, {**head, "choices": choices}

    events: Events = [chunk({"role": "assistant", "content": ""})]
    events.extend(chunk({"content": piece}) for piece in pieces)
    for index, call in enumerate(message.get("tool_calls") or ()):
        function = call["function"]
        start = {"name": function["name"], "arguments": ""}
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {"index": index, "id": call["id"], "type": "function", "function": start}
                    ]
                }
            )
        )
        events.extend(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            for part in _halves(function["arguments"])
        )
    events.append(chunk({}, choice["finish_reason"]))
    events.append((None, {**head, "choices": [], "usage": body["usage"]}))
    events.append((None, "[DONE]"))
    return events


def responses_stream(body: dict[str, Any], pieces: list[str]) -> Events:
    """Responses API events from ``response.created`` to ``response.completed``."""
    events: Events = []
    sequence = iter(range(1000))

    def event(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": next(sequence), **data}))

    started = {**copy.deepcopy(body), "status": "in_progress", "output": [], "usage": None}
    event("response.created", response=started)
    for index, item in enumerate(body["output"]):
        if item["type"] == "message":
            text = "".join(part.get("text", "") for part in item["content"])
            _check(pieces, text)
            event("response.output_item.added", output_index=index, item={**item, "content": []})
            for piece in pieces:
                event(
                    "response.output_text.delta",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    delta=piece,
                    logprobs=[],
                )
        else:
            event(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            for part in _halves(item["arguments"]):
                event(
                    "response.function_call_arguments.delta",
                    item_id=item["id"],
                    output_index=index,
                    delta=part,
                )
        event("response.output_item.done", output_index=index, item=item)
    event("response.completed", response=body)
    return events


def anthropic_stream(body: dict[str, Any], pieces: list[str]) -> Events:
    """Messages API events from ``message_start`` to ``message_stop``."""
    usage = body["usage"]
    start = {**body, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events: Events = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(body["content"]):
        if block["type"] == "text":
            _check(pieces, block["text"])
            opening, deltas = (
                {"type": "text", "text": ""},
                [{"type": "text_delta", "text": piece} for piece in pieces],
            )
        else:
            opening = {**block, "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": part}
                for part in _halves(json.dumps(block["input"]))
            ]
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        events.extend(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events
