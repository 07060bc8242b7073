"""Entity discovery: @tool_provider objects in results become {prefix}_{id}_{method} tools."""

from __future__ import annotations

import attrs

import statetools as st
from statetools.engine.events import InjectionLimitReached, InjectionSkipped, ToolsInjected
from statetools.models import ScriptedModel


@st.tool_provider(prefix="order", id_attribute="number")
@attrs.define
class Order:
    number: str
    item: str
    state: str = "open"

    @st.llm_tool("The status of this order.")
    def status(self) -> str:
        return f"{self.item}: {self.state}"

    @st.llm_tool("Cancel this order.")
    def cancel(self) -> str:
        self.state = "cancelled"
        return f"{self.item} cancelled"


@st.tool_provider()
@attrs.define
class Customer:
    id: str
    name: str
    orders: list[Order] = attrs.field(factory=list)

    @st.llm_tool("The customer's name.")
    def profile(self) -> str:
        return self.name

    @st.llm_tool("The customer's recent orders.")
    def recent_orders(self) -> list[Order]:
        return self.orders


LAMP = Order("o/1", "lamp")
DESK = Order("o 2", "desk")
CUSTOMERS = {
    "c1": Customer("c1", "Ann", [LAMP, DESK]),
    "c-2": Customer("c-2", "Andy"),
}


def search_customers(name: str) -> list[Customer]:
    """Find customers by name."""
    return [c for c in CUSTOMERS.values() if c.name.startswith(name)]


def test_customers_and_their_orders_become_tools() -> None:
    model = ScriptedModel(
        [
            ("search_customers", {"name": "An"}),
            ("customer_c1_recent_orders", {}),
            ("order_o_1_status", {}),
            ("order_o_2_cancel", {}),
            "Ann's lamp is open; the desk order is cancelled.",
        ]
    )
    result = st.ToolLoop(model).run("Help Ann", tools=[search_customers])

    customers = [
        "customer_c1_profile",
        "customer_c1_recent_orders",
        "customer_c-2_profile",
        "customer_c-2_recent_orders",
    ]
    orders = ["order_o_1_status", "order_o_1_cancel", "order_o_2_status", "order_o_2_cancel"]
    assert [r.tool_names for r in model.requests] == [
        ["search_customers"],
        ["search_customers", *customers],
        ["search_customers", *customers, *orders],
        ["search_customers", *customers, *orders],
        ["search_customers", *customers, *orders],
    ]
    descriptions = {t.name: t.description for t in model.requests[2].tools}
    assert descriptions["customer_c-2_profile"] == "The customer's name. For Customer c-2"
    assert descriptions["order_o_1_cancel"] == "Cancel this order. For Order o/1"
    texts = [m.content for m in result.messages if isinstance(m, st.ToolMessage)]
    assert texts[2:] == ["lamp: open", "desk cancelled"]
    assert DESK.state == "cancelled"
    assert [(e.names, e.source) for e in result.trace.of_type(ToolsInjected)] == [
        (tuple(customers), "discovery"),
        (tuple(orders), "discovery"),
    ]


def test_the_same_entity_again_rebinds_instead_of_duplicating() -> None:
    first, second = Order("7", "first copy"), Order("7", "second copy")
    queue = [first, second]

    def next_order() -> Order:
        """Fetch the next order."""
        return queue.pop(0)

    model = ScriptedModel([("next_order", {}), ("next_order", {}), ("order_7_cancel", {}), "done"])
    result = st.ToolLoop(model).run("go", tools=[next_order])
    assert model.requests[2].tool_names == ["next_order", "order_7_status", "order_7_cancel"]
    assert (first.state, second.state) == ("open", "cancelled")
    assert len(result.trace.of_type(ToolsInjected)) == 1


def test_discovery_stops_at_the_limit_with_an_event() -> None:
    def many() -> list[Order]:
        """Many orders."""
        return [Order(str(n), f"item {n}") for n in range(3)]

    model = ScriptedModel([("many", {}), "done"])
    result = st.ToolLoop(model, max_discovered_tools=4).run("go", tools=[many])
    assert model.requests[1].tool_names == [
        "many",
        "order_0_status",
        "order_0_cancel",
        "order_1_status",
        "order_1_cancel",
    ]
    assert result.trace.of_type(InjectionLimitReached) == [
        InjectionLimitReached(1, 4, ("order_2_status", "order_2_cancel"), "discovery")
    ]


def test_long_and_odd_ids_give_safe_distinct_names() -> None:
    from statetools.definitions.discovery import provider_tool_name

    long_a = provider_tool_name("order", "x" * 70 + "a", "cancel")
    long_b = provider_tool_name("order", "x" * 70 + "b", "cancel")
    assert len(long_a) == len(long_b) == 64
    assert long_a != long_b
    assert long_a.startswith("order_xxx")
    assert long_a.endswith("_cancel")
    assert provider_tool_name("order", "ü/ß", "cancel") == "order___cancel"
    for name in (long_a, long_b, provider_tool_name("order", "ü/ß", "cancel")):
        st.Tool.create(name, "Checks the name is valid.", lambda: "")


@st.tool_provider(id_attribute="key")
class Box:
    @st.llm_tool("Open the box.")
    def open(self) -> str:
        return "open"


def test_an_object_without_its_id_is_skipped() -> None:
    def get_box() -> Box:
        """Get a box."""
        return Box()

    model = ScriptedModel([("get_box", {}), "done"])
    st.ToolLoop(model).run("go", tools=[get_box])
    assert model.requests[1].tool_names == ["get_box"]


@st.tool_provider(prefix="node")
@attrs.define
class Node:
    id: str

    @st.llm_tool("The child of this node.")
    def child(self) -> Node:
        return Node(str(int(self.id) + 1))


def test_nested_tool_providers_stop_at_the_depth_limit_with_an_event() -> None:
    def root() -> Node:
        """The root node."""
        return Node("1")

    calls = [("root", {})] + [(f"node_{n}_child", {}) for n in range(1, 6)]
    model = ScriptedModel([*calls, "done"])

    result = st.ToolLoop(model).run("go down", tools=[root])

    assert model.requests[-1].tool_names == ["root"] + [f"node_{n}_child" for n in range(1, 6)]
    assert result.trace.of_type(InjectionSkipped) == [
        InjectionSkipped(
            6,
            "node_6_child",
            "found at depth 6 of nested tool providers, past the limit of 5",
        )
    ]
    assert result.messages[-2].content == '{"id": "6"}'  # no tools announced
