"""A ``@tool_provider`` class whose annotation names a type imported only for type
checkers (tests/unfolding/test_provider_annotations.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import statetools as st

if TYPE_CHECKING:
    from decimal import Decimal


@st.tool_provider(prefix="customer")
class Customer:
    def __init__(self, id: str) -> None:
        self.id = id

    @st.llm_tool("Recent orders of the customer.")
    def orders(self, limit: Decimal, newest: bool = True) -> str:
        return f"{limit} orders of {self.id}, newest first: {newest}"


def find_customer(name: str) -> Customer:
    """Find a customer by name."""
    return Customer("c1")
