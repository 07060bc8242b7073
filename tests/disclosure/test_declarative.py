"""``PlaybookTool.of``, ``StateMachineTool.of`` and ``st.Facade``: the same definitions as
the builders give, so the same runs (each scenario is run both ways)."""

from __future__ import annotations

import enum
from typing import Any

import pytest

import statetools as st
from statetools.models import ScriptedModel


def search(query: str) -> str:
    """Search the notes."""
    return f"2 notes about {query}"


def analyze(text: str) -> dict[str, str]:
    """Analyze a text."""
    return {"summary": text.upper()}


def report() -> str:
    """Write the report."""
    return "written"


def publish() -> str:
    """Publish the report."""
    return "published"


def _run(items: list[Any], steps: list[Any]) -> tuple[ScriptedModel, st.LoopResult]:
    model = ScriptedModel(steps)
    return model, st.ToolLoop(model).run("Research tides", tools=items)


def _seen(model: ScriptedModel, result: st.LoopResult) -> tuple[Any, ...]:
    return (
        [list(r.tool_names) for r in model.requests],
        [(m.role, m.content) for m in result.messages],
        dict(result.state.call_counts),
        dict(result.state.machine_states),
    )


PLAYBOOK_STEPS: list[Any] = [
    ("report", {}),
    ("search", {"query": "tides"}),
    ("analyze", {"text": "moon"}),
    ("report", {}),
    ("publish", {}),
    "Done.",
]


def test_a_playbook_of_unlock_items_is_the_builders_playbook_and_runs_alike() -> None:
    built = (
        st.PlaybookTool("research", "Research a topic")
        .with_tool(search)
        .with_tool(analyze)
        .unlocked_by(search)
        .with_tool(report)
        .unlocked_by_any(analyze, "summarize")
        .with_tool(publish)
        .unlocked_by(report)
        .unlocked_by_artifact(dict)
    )
    written = st.PlaybookTool.of(
        "research",
        "Research a topic",
        [
            search,
            st.Unlock(analyze, after=[search]),
            st.Unlock(report, when=st.AnyOf(st.After("analyze"), st.After("summarize"))),
            st.Unlock(publish, after=["report"], when=st.OnArtifact(dict)),
        ],
    )

    assert written == built
    assert written.conditions == built.conditions
    assert written.conditions["publish"] == st.AllOf(st.After("report"), st.OnArtifact(dict))
    runs = [_run([p], PLAYBOOK_STEPS) for p in (built, written)]
    assert _seen(*runs[0]) == _seen(*runs[1])
    model, result = runs[1]
    assert [list(r.tool_names) for r in model.requests] == [
        ["search"],
        ["search"],
        ["search", "analyze"],
        ["search", "analyze", "report"],
        ["search", "analyze", "report", "publish"],
        ["search", "analyze", "report", "publish"],
    ]
    assert (
        result.messages[2].content
        == "Tool 'report' is locked. Call first one of: analyze, summarize."
    )


def test_a_playbook_of_refuses_a_tool_listed_twice_as_the_builder_does() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.PlaybookTool.of("p", "P", [search, st.Unlock(search, after=["x"])])

    assert str(caught.value) == (
        "playbook 'p': tool 'search' is already in the playbook "
        "Hint: add each tool once; combine its conditions with unlocked(AllOf(...))"
    )


class Order(enum.Enum):
    DRAFT = "draft"
    CONFIRMED = "confirmed"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"


def add_item(sku: str) -> str:
    """Add an item to the order."""
    return f"added {sku}"


def confirm() -> str:
    """Confirm the order."""
    return "confirmed"


def decide(ship: bool) -> str:
    """Ship or cancel the order."""
    return "ship" if ship else "cancel"


def status() -> str:
    """Say the order's status."""
    return "fine"


def ships(result: st.ToolResult) -> bool:
    return result.text == "ship"


MACHINE_STEPS: list[Any] = [
    ("decide", {"ship": True}),
    ("add_item", {"sku": "A1"}),
    ("confirm", {}),
    ("status", {}),
    ("decide", {"ship": True}),
    "Shipped.",
]


def test_a_machine_of_move_items_is_the_builders_machine_and_runs_alike() -> None:
    built = (
        st.StateMachineTool("order", "Handle one order", Order)
        .with_initial_state(Order.DRAFT)
        .in_state(Order.DRAFT)
        .with_tool(add_item)
        .with_tool(confirm)
        .transitions_to(Order.CONFIRMED)
        .in_state(Order.CONFIRMED)
        .with_tool(decide)
        .transitions_to(Order.SHIPPED, ships, label="approved")
        .transitions_to(Order.CANCELLED)
        .with_global_tools(status)
        .with_final_states(Order.SHIPPED, Order.CANCELLED)
    )
    written = st.StateMachineTool.of(
        "order",
        "Handle one order",
        Order,
        initial=Order.DRAFT,
        tools={
            Order.DRAFT: [add_item, st.Move(confirm, to=Order.CONFIRMED)],
            Order.CONFIRMED: [
                st.Move(decide, to=Order.SHIPPED, when=ships, label="approved"),
                st.Move(decide, to="CANCELLED"),
            ],
        },
        global_tools=[status],
        final=[Order.SHIPPED, "CANCELLED"],
    )

    assert written == built
    assert written.transitions == built.transitions
    assert [t.guard for t in written.transitions] == [None, ships, None]
    runs = [_run([m], MACHINE_STEPS) for m in (built, written)]
    assert _seen(*runs[0]) == _seen(*runs[1])
    model, result = runs[1]
    assert [list(r.tool_names) for r in model.requests] == [
        ["add_item", "confirm", "status"],
        ["add_item", "confirm", "status"],
        ["add_item", "confirm", "status"],
        ["status", "decide"],
        ["status", "decide"],
        ["status"],
    ]
    assert result.state.machine_states == {"order": "SHIPPED"}
    assert result.messages[2].content == (
        "Tool 'decide' is not available in state DRAFT (it is available in: CONFIRMED)."
    )


def test_a_machine_of_names_a_wrong_state_as_the_builder_does() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.StateMachineTool.of(
            "order", "Order", Order, tools={Order.DRAFT: [st.Move(confirm, to="DONE")]}
        )

    assert str(caught.value) == (
        "machine 'order': target 'DONE' is not a state of Order "
        "Hint: use one of: DRAFT, CONFIRMED, SHIPPED, CANCELLED"
    )


def test_facade_is_the_one_name_of_unfolding_tool() -> None:
    inner = [st.Tool.from_function(f) for f in (search, report)]
    facade = st.Facade.of("notes", "Open the note tools", inner)

    assert st.Facade is st.UnfoldingTool
    assert facade == st.UnfoldingTool.of("notes", "Open the note tools", inner)
    model, result = _run([facade], [("notes", {}), ("report", {}), "Done."])
    assert [list(r.tool_names) for r in model.requests] == [
        ["notes"],
        ["search", "report"],
        ["search", "report"],
    ]
    assert result.messages[-2].content == "written"
