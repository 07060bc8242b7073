"""State machines in the loop: per-state tools, transitions, guards, globals, finals."""

from __future__ import annotations

import enum

import pytest

import statetools as st
from statetools.engine.events import StateEntered
from statetools.models import ScriptedModel


class Order(enum.Enum):
    DRAFT = "draft"
    CONFIRMED = "confirmed"
    SHIPPED = "shipped"
    DELIVERED = "delivered"


@st.llm_tool("Add an item to the order.")
def add_item(sku: str) -> str:
    return f"added {sku}"


@st.llm_tool("Confirm the order.")
def confirm() -> str:
    return "confirmed"


@st.llm_tool("Ship the order with a carrier.")
def ship(carrier: str) -> str:
    return "shipped" if carrier != "nobody" else "no carrier"


@st.llm_tool("Record the delivery.")
def deliver() -> str:
    return "delivered"


@st.llm_tool("Show the order status.")
def status() -> str:
    return "ok"


def order_machine() -> st.StateMachineTool[Order]:
    return (
        st.StateMachineTool("order", "Handle one order", Order)
        .with_initial_state(Order.DRAFT)
        .in_state(Order.DRAFT)
        .with_tool(add_item)
        .with_tool(confirm)
        .transitions_to(Order.CONFIRMED)
        .in_state(Order.CONFIRMED)
        .with_tool(ship)
        .transitions_to(Order.SHIPPED, when=lambda result: result.text == "shipped")
        .with_tool(add_item)
        .in_state(Order.SHIPPED)
        .with_tool(deliver)
        .transitions_to(Order.DELIVERED)
        .with_global_tools(status)
        .with_final_states(Order.DELIVERED)
    )


def test_order_machine_in_loop() -> None:
    model = ScriptedModel(
        [
            ("ship", {"carrier": "ups"}),
            ("add_item", {"sku": "lamp"}),
            ("confirm", {}),
            ("ship", {"carrier": "nobody"}),
            ("ship", {"carrier": "ups"}),
            ("deliver", {}),
            "Delivered.",
        ]
    )
    result = st.ToolLoop(model).run("Order a lamp", tools=[order_machine()])

    assert [r.tool_names for r in model.requests] == [
        ["add_item", "confirm", "status"],
        ["add_item", "confirm", "status"],
        ["add_item", "confirm", "status"],
        ["add_item", "status", "ship"],
        ["add_item", "status", "ship"],
        ["status", "deliver"],
        ["status"],
    ]
    texts = [m.content for m in result.messages if isinstance(m, st.ToolMessage)]
    assert texts == [
        "Tool 'ship' is not available in state DRAFT (it is available in: CONFIRMED).",
        "added lamp",
        "confirmed\n[now available: ship; state is now CONFIRMED]",
        "no carrier",
        "shipped\n[now available: deliver; state is now SHIPPED]",
        "delivered\n[state is now DELIVERED (final)]",
    ]
    assert result.trace.of_type(StateEntered) == [
        StateEntered(3, "order", "CONFIRMED", "DRAFT", False),
        StateEntered(5, "order", "SHIPPED", "CONFIRMED", False),
        StateEntered(6, "order", "DELIVERED", "SHIPPED", True),
    ]
    assert result.state.machine_states == {"order": "DELIVERED"}


def test_starting_in_another_state() -> None:
    scheduler = st.Scheduler.for_items([order_machine().starting_in(Order.SHIPPED)])
    assert [t.name for t in scheduler.visible()] == ["deliver", "status"]


def test_agentic_machine_ends_at_a_final_state() -> None:
    inner = ScriptedModel(
        [("add_item", {"sku": "a"}), ("confirm", {}), ("ship", {"carrier": "x"}), ("deliver", {})]
    )
    outer = ScriptedModel([("order", {"task": "buy a"}), "bought"])
    machine = order_machine().with_model(inner).with_system_prompt("You handle orders.")
    result = st.ToolLoop(outer).run("go", tools=[machine])

    assert result.messages[2] == st.ToolMessage("call_1", "order", "delivered")
    assert inner.requests[0].messages == (
        st.SystemMessage("You handle orders."),
        st.UserMessage("buy a"),
    )
    assert len(inner.requests) == 4


def test_machine_definition_errors() -> None:
    machine = st.StateMachineTool("m", "d", Order)
    with pytest.raises(st.DefinitionError, match="with_tool must follow in_state"):
        machine.with_tool(confirm)
    with pytest.raises(st.DefinitionError, match="transitions_to must follow"):
        machine.in_state(Order.DRAFT).transitions_to(Order.SHIPPED)
    with pytest.raises(st.DefinitionError, match="'LOST' is not a state of Order"):
        machine.in_state("LOST")
    with pytest.raises(st.DefinitionError, match="states must be an Enum class"):
        st.StateMachineTool("m", "d", str)  # type: ignore[type-var]


def test_in_state_condition_across_machines() -> None:
    report = st.Tool.create("report", "Report", lambda: "r")
    playbook = st.PlaybookTool("p", "d").with_tool(report).unlocked(st.InState("order", "SHIPPED"))
    model = ScriptedModel([("confirm", {}), ("ship", {"carrier": "c"}), "ok"])
    st.ToolLoop(model).run("go", tools=[order_machine(), playbook])
    assert model.requests[2].tool_names == ["status", "deliver", "report"]


def test_parallel_transitions_are_separate_edges() -> None:
    machine = (
        st.StateMachineTool("m", "d", Order)
        .in_state(Order.DRAFT)
        .with_tool(add_item)
        .transitions_to(Order.CONFIRMED)
        .with_tool(confirm)
        .transitions_to(Order.CONFIRMED)
    )
    graph = st.disclosure_graph(machine).to_networkx()
    edges = graph.get_edge_data("state:m.DRAFT", "state:m.CONFIRMED")
    assert sorted(data["tool"] for data in edges.values()) == ["add_item", "confirm"]


class Light(enum.Enum):
    OFF = "off"
    ON = "on"


def _tool(name: str) -> st.Tool:
    return st.Tool.create(name, f"Tool {name}", lambda: f"{name} ok")


def _switch() -> st.StateMachineTool:
    flip = _tool("flip")
    return (
        st.StateMachineTool("light", "A light", Light)
        .with_initial_state(Light.OFF)
        .in_state(Light.OFF)
        .with_tool(flip)
        .transitions_to(Light.ON)
        .in_state(Light.OFF)
        .with_tool(_tool("dim"))
        .in_state(Light.ON)
        .with_tool(flip)
        .transitions_to(Light.OFF)
        .with_global_tools(_tool("status"))
    )


def test_tools_hidden_and_shown_again_within_one_response_keep_their_place() -> None:
    model = ScriptedModel([[("flip", {}), ("flip", {})], "done"])
    st.ToolLoop(model).run("go", tools=[_switch()])
    assert [r.tool_names for r in model.requests] == [
        ["flip", "dim", "status"],
        ["flip", "dim", "status"],
    ]


def test_a_tool_the_model_saw_leave_is_appended_when_it_returns() -> None:
    model = ScriptedModel([("flip", {}), ("flip", {}), "done"])
    st.ToolLoop(model).run("go", tools=[_switch()])
    assert [r.tool_names for r in model.requests] == [
        ["flip", "dim", "status"],
        ["flip", "status"],
        ["flip", "status", "dim"],
    ]
