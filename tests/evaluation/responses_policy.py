"""The policy server's Responses API twin, for the provider-native conditions.

Same plans and the same choices as :class:`PolicyServer`, over ``POST /v1/responses``,
plus OpenAI's hosted ``tool_search``: when the next call's tool is a deferred function
of a namespace in the request's tools (and not loaded yet), the response holds the
search (``tool_search_call`` and ``tool_search_output`` loading that function in its
namespace) and the call, as OpenAI answers. A tool that an earlier search loaded is
called in its namespace.

Usage by a formula the tests can add up: input tokens = 100 + 10 per entry of the
request's ``tools`` (a namespace or the search tool is one entry) + 5 per input item,
output tokens = 7, cached = 50 from the second input item on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tests.evaluation.policy_server import GIVE_UP, PolicyServer


def responses_usage(tools: int, items: int) -> dict[str, Any]:
    """The usage reported for a request with ``tools`` entries and ``items`` input items."""
    prompt = 100 + 10 * tools + 5 * items
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": 50 if items > 1 else 0},
        "output_tokens": 7,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": prompt + 7,
    }


class ResponsesPolicyServer(PolicyServer):
    """The policy on the Responses API; ``requests`` holds every body, in order."""

    def tool_names(self) -> list[list[str]]:
        """The names of the entries of every request's ``tools`` (a namespace as
        ``NAME[inner, ...]``), in order."""
        return [[_entry_name(t) for t in body.get("tools") or ()] for body in self.requests]

    def answer(self, body: Mapping[str, Any]) -> dict[str, Any]:
        items = body["input"]
        tools = body.get("tools") or []
        prompt = next(i["content"] for i in items if i.get("role") == "user")
        made = [
            (item["name"], json.loads(item["arguments"]))
            for item in items
            if item.get("type") == "function_call"
        ]
        plain = {t["name"]: t for t in tools if t["type"] == "function"}
        namespaces = {t["name"]: t for t in tools if t["type"] == "namespace"}
        loaded = {
            function["name"]: space["name"]
            for item in items
            if item.get("type") == "tool_search_output"
            for space in item["tools"]
            for function in space["tools"]
        }
        step = self.next_call(prompt, made)
        if step is None:
            return self._respond(body, [_message("Done.")])
        name, arguments = step
        if name in plain:
            return self._respond(body, [self._call(name, arguments)])
        if name in loaded:
            return self._respond(body, [self._call(name, arguments, loaded[name])])
        hosted = any(t["type"] == "tool_search" for t in tools)
        for space in namespaces.values():
            inner = {function["name"]: function for function in space["tools"]}
            if hosted and name in inner:
                found = {**space, "tools": [inner[name]]}
                search = _hosted_search(len(self.requests), name.replace("_", " "), found)
                return self._respond(body, [*search, self._call(name, arguments, space["name"])])
        for facade, inner_names in self.facades.items():
            if facade in plain and name in inner_names and (facade, {}) not in made:
                return self._respond(body, [self._call(facade, {})])
        query = {"query": name.replace("_", " ")}
        for tool, definition in plain.items():
            properties = (definition.get("parameters") or {}).get("properties") or {}
            if "query" in properties and (tool, query) not in made:
                return self._respond(body, [self._call(tool, query)])
        return self._respond(body, [_message(GIVE_UP)])

    def _call(
        self, name: str, arguments: Mapping[str, Any], namespace: str | None = None
    ) -> dict[str, Any]:
        number = len(self.requests)
        call = {
            "type": "function_call",
            "id": f"fc_{number}",
            "call_id": f"call_{number}",
            "name": name,
            "arguments": json.dumps(arguments),
            "status": "completed",
        }
        return {**call, "namespace": namespace} if namespace else call

    def _respond(self, body: Mapping[str, Any], output: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": f"resp_{len(self.requests)}",
            "object": "response",
            "created_at": 0,
            "model": body.get("model", "policy"),
            "status": "completed",
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "metadata": {},
            "output": output,
            "parallel_tool_calls": True,
            "temperature": body.get("temperature", 1.0),
            "tool_choice": "auto",
            "tools": [],
            "top_p": 1.0,
            "usage": responses_usage(len(body.get("tools") or ()), len(body["input"])),
        }


def _entry_name(entry: Mapping[str, Any]) -> str:
    if entry["type"] == "namespace":
        return f"{entry['name']}[{', '.join(t['name'] for t in entry['tools'])}]"
    return str(entry.get("name", entry["type"]))


def _message(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _hosted_search(number: int, query: str, found: Mapping[str, Any]) -> list[dict[str, Any]]:
    common = {"call_id": None, "execution": "server", "status": "completed"}
    return [
        {"type": "tool_search_call", "id": f"ts_{number}", **common, "arguments": {"query": query}},
        {"type": "tool_search_output", "id": f"tso_{number}", **common, "tools": [found]},
    ]
