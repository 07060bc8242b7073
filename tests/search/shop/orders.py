"""Order tools: functions, a class with static tools, and an object with methods."""

import statetools as st
from tests.search.shop import search as imported_search  # found once, where it is defined


@st.llm_tool("Cancel an order")
def cancel_order(order_id: str) -> str:
    return f"cancelled {order_id}"


def helper() -> str:
    """Not a tool: no @llm_tool."""
    return "no"


class Prices:
    @st.llm_tool("Convert a price to euros")
    @staticmethod
    def to_euros(amount: float) -> float:
        return amount * 0.9

    @st.llm_tool("Price of an item")
    def price(self, item: str) -> float:
        return 1.0


class Ledger:
    def __init__(self) -> None:
        self.entries: list[str] = []

    @st.llm_tool("Record a payment")
    def record_payment(self, order_id: str) -> str:
        self.entries.append(order_id)
        return f"{len(self.entries)} payments"


LEDGER = Ledger()
ALIAS = imported_search
