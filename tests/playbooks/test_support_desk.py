"""The support desk playbook: its YAML equals the Python design, and its rules hold."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import statetools as st
from statetools.models import ScriptedModel

FILE = Path(__file__).resolve().parents[2] / "playbooks" / "support_desk.yaml"


def load() -> tuple[st.Design, Any]:
    design = st.load_design(FILE)
    return design, sys.modules["support_desk"]  # imported from next to the YAML file


def run(steps: list[Any]) -> tuple[st.LoopResult, ScriptedModel]:
    design, _ = load()
    model = ScriptedModel(steps)
    result = st.ToolLoop(model).run("help", tools=design.tools, context=design.run_context())
    return result, model


def answers(result: st.LoopResult) -> list[str]:
    return [m.content for m in result.messages if isinstance(m, st.ToolMessage)]


IDENTIFY = ("find_customer_by_email", {"email": "ada@example.com"})


def test_the_yaml_is_the_python_design() -> None:
    design, module = load()
    assert design.definitions == (module.support_desk(),)


def test_the_design_passes_check() -> None:
    design, _ = load()
    assert st.check(st.disclosure_graph(*design.tools)).errors == ()


def test_a_declined_change_goes_back_to_lookups() -> None:
    result, model = run(
        [
            IDENTIFY,
            (
                "propose_action",
                {"action": "cancel", "order_id": "W1001", "summary": "Cancel W1001."},
            ),
            ("record_answer", {"customer_said_yes": False}),
            ("cancel_order", {"order_id": "W1001", "reason": "ordered by mistake"}),
            "Nothing was changed.",
        ]
    )
    assert answers(result)[2:] == [
        "declined\n[now available: get_customer, get_order, get_product, list_products, "
        "propose_action, close_case; state is now IDENTIFIED]",
        "Tool 'cancel_order' is not available in state IDENTIFIED (it is available in: CONFIRMED).",
    ]
    assert model.requests[-1].tool_names == [
        "transfer_to_human",
        "get_customer",
        "get_order",
        "get_product",
        "list_products",
        "propose_action",
        "close_case",
    ]


def test_only_the_confirmed_change_can_be_made() -> None:
    result, _ = run(
        [
            IDENTIFY,
            (
                "propose_action",
                {"action": "cancel", "order_id": "W1001", "summary": "Cancel W1001."},
            ),
            ("record_answer", {"customer_said_yes": True}),
            (
                "change_address",
                {
                    "order_id": "W1001",
                    "address": {"street": "1 Main St", "city": "X", "zip_code": "1"},
                },
            ),
            "Sorry.",
        ]
    )
    assert answers(result)[3] == (
        "Tool 'change_address' failed: the customer confirmed cancel of order W1001, not this"
    )


def test_a_change_needs_the_right_order_status() -> None:
    result, _ = run(
        [
            IDENTIFY,
            ("propose_action", {"action": "return", "order_id": "W1001", "summary": "Return."}),
            "It is not delivered yet.",
        ]
    )
    assert answers(result)[1] == (
        "Tool 'propose_action' failed: order W1001 is pending; return needs delivered"
    )


def test_an_exchange_of_a_delivered_order() -> None:
    result, _ = run(
        [
            IDENTIFY,
            (
                "propose_action",
                {"action": "exchange", "order_id": "W1002", "summary": "Swap M for L."},
            ),
            ("record_answer", {"customer_said_yes": True}),
            (
                "exchange_items",
                {"order_id": "W1002", "item_ids": ["I-SHIRT-M"], "new_item_ids": ["I-SHIRT-L"]},
            ),
            "Exchange requested.",
        ]
    )
    assert answers(result)[3].startswith(
        "Exchange of I-SHIRT-M for I-SHIRT-L requested.\n[now available: "
    )
