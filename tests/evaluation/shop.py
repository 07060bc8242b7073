"""A small shop written for the evaluation tests: tools, a task file, two designs and
the policy server's plans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {key: {"type": "string", "description": key} for key in keys},
                "required": list(keys),
            },
        },
    }
    for name, description, keys in [
        ("find_customer", "Find a customer's id by email", ["email"]),
        ("get_order", "Look up an order by its id", ["order_id"]),
        ("cancel_order", "Cancel a pending order", ["order_id", "reason"]),
        ("list_products", "List the products on sale", []),
        ("update_address", "Change a customer's address", ["customer_id", "address"]),
    ]
]

CANCEL = "Please cancel order 7 of ada@example.com, I ordered it by mistake."
LOOKUP = "What is in order 9 of bob@example.com?"
REFUND = "Refund order 5."
PRODUCTS = "Which products do you sell?"

TASKS = f"""\
tools_from: shop_tools.json
max_iterations: 8
results:
  find_customer:
    cases:
      - when: {{email: ada@example.com}}
        result: cus_1
      - when: {{email: bob@example.com}}
        result: cus_2
    otherwise: {{error: no customer with this email}}
  get_order: {{status: pending, items: [tea]}}
tasks:
  - id: cancel
    prompt: "{CANCEL}"
    expect:
      - {{name: find_customer, arguments: {{email: ada@example.com}}}}
      - {{name: get_order, arguments: {{order_id: {{any_of: ["7", "#7"]}}}}}}
      - {{name: cancel_order, arguments: {{order_id: {{any_of: ["7", "#7"]}}}}}}
  - id: lookup
    prompt: "{LOOKUP}"
    expect:
      - {{name: find_customer, arguments: {{email: bob@example.com}}}}
      - get_order
  - id: refund
    prompt: "{REFUND}"
    expect: [refund_order]
  - id: products
    prompt: "{PRODUCTS}"
    expect: [list_products]
"""

FACADE_DESIGN = """\
tools_from: shop_tools.json
kind: playbook
name: shop
description: Help the shop's customers
tools:
  - find_customer
  - tool:
      name: orders
      description: Open the order tools (look up and cancel orders)
      tools: [get_order, cancel_order]
    unlocked_by: find_customer
"""

SEARCH_DESIGN = """\
tools_from: shop_tools.json
kind: playbook
name: shop
description: Help the shop's customers
tools:
  - tool:
      name: find_tools
      description: Find the shop's tools by what they do
      search: {max_results: 2}
      tools: [find_customer, get_order, cancel_order, list_products, update_address]
"""

PLANS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    CANCEL: [
        ("find_customer", {"email": "ada@example.com"}),
        ("get_order", {"order_id": "7"}),
        ("cancel_order", {"order_id": "7", "reason": "ordered by mistake"}),
    ],
    LOOKUP: [("find_customer", {"email": "bob@example.com"}), ("get_order", {"order_id": "9"})],
    REFUND: [("refund_order", {"order_id": "5"})],
    PRODUCTS: [("list_products", {})],
}
FACADES = {"orders": ["get_order", "cancel_order"]}


def write_shop(folder: Path) -> dict[str, Path]:
    """The shop's files in ``folder``: tools, tasks and the two designs."""
    paths = {
        "tools": folder / "shop_tools.json",
        "tasks": folder / "tasks.yaml",
        "facade": folder / "facade.yaml",
        "search": folder / "search.yaml",
    }
    paths["tools"].write_text(json.dumps(TOOLS), encoding="utf-8")
    paths["tasks"].write_text(TASKS, encoding="utf-8")
    paths["facade"].write_text(FACADE_DESIGN, encoding="utf-8")
    paths["search"].write_text(SEARCH_DESIGN, encoding="utf-8")
    return paths
