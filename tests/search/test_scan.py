"""st.tools_from_module: functions, static tools, objects' methods; include and exclude."""

from __future__ import annotations

import pytest

import statetools as st
from tests.search.shop import orders


def test_a_package_gives_the_tools_of_every_module_once() -> None:
    tools = st.tools_from_module("tests.search.shop")

    assert [(t.name, t.description) for t in tools] == [
        ("search", "Search the catalogue"),
        ("cancel_order", "Cancel an order"),
        ("to_euros", "Convert a price to euros"),
        ("record_payment", "Record a payment"),
    ]
    assert tools[3].call({"order_id": "A1"}).text == "1 payments"
    assert orders.LEDGER.entries[-1] == "A1"


def test_a_module_object_and_patterns() -> None:
    tools = st.tools_from_module(orders, include=["*order*", "to_*"], exclude=["cancel_*"])

    assert [t.name for t in tools] == ["to_euros"]
    assert tools[0].call({"amount": 10}).text == "9.0"


def test_an_unknown_module_is_a_definition_error() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.tools_from_module("tests.search.no_such_module")

    assert caught.value.path == "tests.search.no_such_module"
    assert caught.value.hint == "pass an importable dotted name, or the module object"
