"""The provider-native modes build their tools once: a request costs what changed.

OpenAI ``allowed_tools`` and Anthropic ``deferred`` declare every tool of the design in
every request. Each request here counts the tool schemas converted to the wire (every
conversion goes through ``plain_json``) and checks that a request like the last one
hands the SDK the same tools list, while the bodies stay what they were.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import statetools as st
from statetools.models import (
    AnthropicModel,
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    OpenAIChatModel,
    OpenAIResponsesModel,
    ScriptedModel,
    _provider,
    anthropic_disclosure,
    anthropic_wire,
    openai_chat,
    openai_responses,
    responses_search,
)

REGISTERED = 30
EMPTY = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
LATE = st.Tool.create("late", "Appears at run time.", lambda: "late")


def _tool(name: str) -> st.Tool:
    return st.Tool.create(name, f"The {name} tool.", lambda: name)


TOOLS = [_tool(f"t{i}") for i in range(REGISTERED)]
DESIGN = st.disclosure_graph(
    st.PlaybookTool("desk", "Desk.").with_tools(*TOOLS[:3]),
    *[
        st.PlaybookTool(f"locked{i}", "Locked.").with_tool(tool).unlocked_by("never")
        for i, tool in enumerate(TOOLS[3:])
    ],
)
"""30 registered tools, 3 visible; ``late`` is injected after the second call."""
SCRIPT = [("t0", {}), ("t1", {}), ("t2", {}), ("late", {}), ("t0", {}), "Done."]


class InjectLate:
    """Adds ``late`` after the second call."""

    def __init__(self) -> None:
        self.calls = 0

    def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
        self.calls += 1
        return st.Injection(add=[LATE]) if self.calls == 2 else None


class Counted:
    """A ScriptedModel behind an adapter's request bodies: each body, and the tool
    schemas converted while it was built."""

    def __init__(self, adapter: Any, converted: list[int]) -> None:
        self.adapter = adapter
        self.inner = ScriptedModel(SCRIPT)
        self.converted = converted
        self.bodies: list[dict[str, Any]] = []
        self.counts: list[int] = []

    @property
    def capabilities(self) -> ModelCapabilities:
        return self.adapter.capabilities  # type: ignore[no-any-return]

    async def complete(self, request: ModelRequest) -> ModelResponse:
        before = len(self.converted)
        self.bodies.append(self.adapter.request_body(request))
        self.counts.append(len(self.converted) - before)
        return await self.inner.complete(request)


@pytest.fixture
def converted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every conversion of a tool's schema, as the id of the schema converted."""
    schemas = {id(tool.input_schema) for tool in [*TOOLS, LATE]}
    seen: list[int] = []

    def counting(value: Any) -> Any:
        if id(value) in schemas:
            seen.append(id(value))
        return _provider.plain_json(value)

    for module in (
        anthropic_wire,
        anthropic_disclosure,
        openai_chat,
        openai_responses,
        responses_search,
    ):
        monkeypatch.setattr(module, "plain_json", counting)
    return seen


def run(adapter: Any, converted: list[int]) -> Counted:
    model = Counted(adapter, converted)
    st.ToolLoop(model, strategies=[InjectLate()]).run("Help.", tools=[DESIGN])
    return model


ADAPTERS: dict[str, Callable[[], Any]] = {
    "chat-allowed": lambda: OpenAIChatModel("m", api_key="k", disclosure="allowed_tools"),
    "responses-allowed": lambda: OpenAIResponsesModel("m", api_key="k", disclosure="allowed_tools"),
    "anthropic-deferred": lambda: AnthropicModel(
        "m", api_key="k", disclosure="deferred", cache_control=True
    ),
}


@pytest.mark.parametrize("name", ADAPTERS)
def test_each_tool_is_converted_once_per_adapter_and_only_new_tools_after(
    name: str, converted: list[int]
) -> None:
    adapter = ADAPTERS[name]()

    first = run(adapter, converted)
    second = run(adapter, converted)

    # the first request converts the catalogue, the one after the injection `late`
    assert first.counts == [REGISTERED, 0, 1, 0, 0, 0]
    # the next run finds the design's wire forms again; a tool that appears at run time
    # is new to each run (the adapter keeps the forms of the tools of its last request)
    assert second.counts == [0, 0, 1, 0, 0, 0]
    assert second.bodies == first.bodies


def _tools_lists(model: Counted) -> list[Any]:
    return [body["tools"] for body in model.bodies]


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_request_whose_catalogue_did_not_change_sends_the_same_tools_list(
    name: str, converted: list[int]
) -> None:
    model = run(ADAPTERS[name](), converted)

    lists = _tools_lists(model)
    same = [lists[i] is lists[i - 1] for i in range(1, len(lists))]
    if name == "responses-allowed":  # `late` goes in an additional_tools item instead
        assert same == [True, True, True, True, True]
    else:  # `late` joins the catalogue after the second call
        assert same == [True, False, True, True, True]
        assert [len(tools) for tools in lists] == [REGISTERED] * 2 + [REGISTERED + 1] * 4


def test_responses_sends_the_same_additional_tools_item_contents_in_every_request(
    converted: list[int],
) -> None:
    model = run(ADAPTERS["responses-allowed"](), converted)

    added = [
        [item["tools"] for item in body["input"] if item.get("type") == "additional_tools"]
        for body in model.bodies
    ]
    late = {
        "type": "function",
        "name": "late",
        "description": "Appears at run time.",
        "parameters": EMPTY,
        "strict": False,
    }
    assert [len(items) for items in added] == [0, 0, 1, 1, 1, 1]
    assert all(items[0] == [late] for items in added[2:])
    assert all(items[0] is added[2][0] for items in added[3:])


def test_deferred_tools_defer_what_was_hidden_at_the_start_and_cache_the_last_loaded(
    converted: list[int],
) -> None:
    model = run(ADAPTERS["anthropic-deferred"](), converted)

    tools = model.bodies[-1]["tools"]
    assert [t["name"] for t in tools if not t.get("defer_loading")] == ["t0", "t1", "t2"]
    assert [t["name"] for t in tools if t.get("defer_loading")] == [
        *(f"t{i}" for i in range(3, REGISTERED)),
        "late",
    ]
    assert tools[2] == {
        "name": "t2",
        "description": "The t2 tool.",
        "input_schema": EMPTY,
        "cache_control": {"type": "ephemeral"},
    }
    assert [t for t in tools if "cache_control" in t] == [tools[2]]
