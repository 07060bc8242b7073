"""st.layered: base forms, tool_detail, the swap to the full tool, invalid calls, resume."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import attrs
import pytest

import statetools as st
from statetools.models import ScriptedModel


@attrs.frozen
class Line:
    """One item of an order."""

    sku: str = attrs.field(metadata={"example": "SKU-1"})
    quantity: int = 1


@attrs.frozen
class Receipt:
    total: float


def place_order(
    customer: Annotated[str, st.Param("Customer id", example="C-42")],
    lines: list[Line],
    shipping: Literal["standard", "express"] = "standard",
) -> Receipt:
    """Place an order for a customer. Charges the card on file.

    Args:
        lines: What to order.
    """
    return Receipt(total=9.5 * len(lines))


def ping() -> str:
    """Check the link. Answers pong."""
    return "pong"


DETAIL = (
    "place_order: Place an order for a customer. Charges the card on file.\n"
    "Parameters:\n"
    "- customer (string, required): Customer id\n"
    "- lines (array of object, required): What to order.\n"
    "  - sku (string, required)\n"
    "  - quantity (integer, default 1)\n"
    '- shipping (string, one of "standard", "express", default "standard")\n'
    "Returns: Receipt\n"
    'Example arguments: {"customer": "C-42", "lines": [{"sku": "SKU-1", "quantity": 1}], '
    '"shipping": "standard"}'
)


def run(steps: list[Any], items: list[Any] | None = None) -> tuple[st.LoopResult, ScriptedModel]:
    model = ScriptedModel([*steps, "done"])
    tools = items if items is not None else st.layered(place_order, ping)
    return st.ToolLoop(model).run("go", tools=tools), model


def tool_texts(result: st.LoopResult) -> list[tuple[str, bool]]:
    return [(m.content, m.is_error) for m in result.messages if isinstance(m, st.ToolMessage)]


def test_base_forms_are_name_first_sentence_and_any_object() -> None:
    tools = st.layered(place_order, ping)

    assert [(t.name, t.description, t.input_schema) for t in tools[:2]] == [
        ("place_order", "Place an order for a customer.", {"type": "object"}),
        ("ping", "Check the link.", {"type": "object"}),
    ]
    assert tools[2].name == "tool_detail"
    assert tools[2].input_schema["required"] == ["name"]


def test_tool_detail_shows_the_nested_structure_with_examples() -> None:
    result, _ = run([("tool_detail", {"name": "place_order"})])

    assert tool_texts(result)[0] == (DETAIL, False)


def test_an_invalid_base_form_call_gets_the_detail_and_does_not_run() -> None:
    result, _ = run([("place_order", {"customer": "C-1", "lines": [{"quantity": 2}]})])

    assert tool_texts(result)[0] == (
        "Invalid arguments for tool 'place_order': missing required argument 'lines[0].sku'. "
        "Call it again with arguments that fit:\n\n" + DETAIL,
        True,
    )
    assert result.state.call_counts == {}


def test_a_valid_base_form_call_runs_the_tool() -> None:
    result, model = run([("place_order", {"customer": "C-1", "lines": [{"sku": "A"}]})])

    assert tool_texts(result)[0] == ('{"total": 9.5}', False)
    assert model.requests[1].tool_names == ["place_order", "ping", "tool_detail"]


def test_the_full_tool_takes_the_base_forms_place_at_the_end() -> None:
    result, model = run(
        [
            ("tool_detail", {"name": "place_order"}),
            ("place_order", {"customer": "C-1", "lines": [{"sku": "A"}]}),
            ("tool_detail", {"name": "place_order"}),
        ]
    )

    assert [r.tool_names for r in model.requests] == [
        ["place_order", "ping", "tool_detail"],
        ["ping", "tool_detail", "place_order"],
        ["ping", "tool_detail", "place_order"],
        ["ping", "tool_detail", "place_order"],
    ]
    full = model.requests[1].tools[2]
    assert full.input_schema == st.Tool.from_function(place_order).input_schema
    assert tool_texts(result)[2] == (DETAIL, False)
    assert result.state.unfolds == (("tool_detail", '{"name": "place_order"}'),)


def test_a_resumed_run_shows_the_full_tool_where_it_was() -> None:
    result, _ = run([("tool_detail", {"name": "place_order"})])
    scheduler = st.Scheduler.for_items(st.layered(place_order, ping), result.state)

    assert [(t.name, type(t).__name__) for t in scheduler.visible()] == [
        ("ping", "BaseForm"),
        ("tool_detail", "ToolDetail"),
        ("place_order", "Tool"),
    ]


def test_an_unknown_name_gets_the_closest_names() -> None:
    result, _ = run([("tool_detail", {"name": "place_ordr"}), ("tool_detail", {})])

    assert tool_texts(result) == [
        ("Tool 'tool_detail' knows no tool named 'place_ordr'. Closest names: place_order.", True),
        (
            "Invalid arguments for tool 'tool_detail': missing required argument 'name'. "
            "Call it again with the name of a tool.",
            True,
        ),
    ]


def test_layered_playbooks_keep_their_conditions() -> None:
    shop = st.PlaybookTool("shop", "Shop").with_tool(ping).with_tool(place_order).unlocked_by(ping)
    result, model = run(
        [("place_order", {}), ("ping", {}), ("tool_detail", {"name": "place_order"})],
        st.layered(shop, detail_tool="describe_tool"),
    )

    assert tool_texts(result)[0] == ("Tool 'place_order' is locked. Call first: ping.", True)
    assert [r.tool_names for r in model.requests] == [
        ["ping", "describe_tool"],
        ["ping", "describe_tool"],
        ["ping", "describe_tool", "place_order"],
        ["ping", "describe_tool", "place_order"],
    ]
    assert model.requests[2].tools[2].input_schema == {"type": "object"}  # still the base form


def test_the_detail_tool_name_must_be_free() -> None:
    with pytest.raises(st.DefinitionError, match="the detail tool's name 'ping' is taken"):
        st.layered(place_order, ping, detail_tool="ping")


def test_two_layered_tools_with_one_name_are_refused() -> None:
    other = st.Tool.create("ping", "Another ping.", lambda: "pong")
    with pytest.raises(st.DefinitionError, match="two layered tools are named 'ping'"):
        st.layered(ping, other)


def test_the_cache_safe_form_never_changes_the_tools_array() -> None:
    """Issue 30: every tool_detail changed the tools array (a prefix break each)."""
    tools = st.layered(place_order, ping, swap=False)
    result, model = run(
        [
            ("tool_detail", {"name": "place_order"}),
            ("place_order", {"customer": "C-1", "lines": [{"sku": "A"}]}),
            ("tool_detail", {"name": "place_order"}),
        ],
        tools,
    )

    first = model.requests[0].tools
    assert [r.tools for r in model.requests] == [first] * 4
    assert [(t.name, t.description, t.input_schema) for t in first] == [
        ("place_order", "Place an order for a customer.", {"type": "object"}),
        ("ping", "Check the link.", {"type": "object"}),
        (
            "tool_detail",
            "Show the full parameters and example arguments of a tool by name.",
            tools[2].input_schema,
        ),
    ]
    assert tool_texts(result) == [(DETAIL, False), ('{"total": 9.5}', False), (DETAIL, False)]
    assert result.state.unfolds == ()
    changes = ("tools_unlocked", "tools_hidden", "tools_injected", "tools_removed")
    assert [e.type for e in result.trace if e.type in changes] == []


def test_the_cache_safe_form_answers_mistakes_as_the_default_form_does() -> None:
    tools = st.layered(place_order, ping, detail_tool="describe", swap=False)
    result, _ = run(
        [
            ("place_order", {"customer": "C-1", "lines": [{"quantity": 2}]}),
            ("describe", {"name": "place_ordr"}),
            ("describe", {}),
        ],
        tools,
    )

    assert tool_texts(result) == [
        (
            "Invalid arguments for tool 'place_order': missing required argument "
            "'lines[0].sku'. Call it again with arguments that fit:\n\n" + DETAIL,
            True,
        ),
        ("Tool 'describe' knows no tool named 'place_ordr'. Closest names: place_order.", True),
        (
            "Invalid arguments for tool 'describe': missing required argument 'name'. "
            "Call it again with the name of a tool.",
            True,
        ),
    ]
    assert type(tools[2]).__name__ == "DetailText"
    assert [f.code for f in st.check(st.disclosure_graph(*tools)).findings] == []
