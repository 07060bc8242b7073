"""Tools of the support desk playbook (support_desk.yaml): an online shop's help desk.

The agent must identify the customer first, may then look things up, and may change an
order only after reading the change to the customer and recording their explicit yes.
Handlers find the run's shop (a small in-memory store) in the ToolCallContext under
``"shop"``, so runs never share state; see :func:`new_context`.
"""

from __future__ import annotations

import enum
from typing import Any, Literal

import attrs

import statetools as st

Action = Literal["cancel", "change_address", "return", "exchange"]

# -- the shop's data ---------------------------------------------------------------

OrderStatus = Literal["pending", "processed", "delivered", "cancelled", "return requested"]


@attrs.define
class Address:
    """A postal address."""

    street: str
    city: str
    zip_code: str


@attrs.define
class Variant:
    """One buyable item of a product, e.g. a blue lamp."""

    item_id: str
    options: dict[str, str]
    price: float
    in_stock: bool = True


@attrs.define
class Product:
    """A product type with its variants."""

    product_id: str
    name: str
    variants: list[Variant]


@attrs.define
class Line:
    """One item of an order."""

    item_id: str
    product_id: str
    name: str
    price: float


@attrs.define
class Order:
    """An order and where it stands."""

    order_id: str
    customer_id: str
    status: OrderStatus
    lines: list[Line]
    address: Address
    payment_method_id: str


@attrs.define
class Customer:
    """A customer profile."""

    customer_id: str
    first_name: str
    last_name: str
    email: str
    address: Address
    payment_methods: list[str]
    order_ids: list[str]


@attrs.define
class Proposal:
    """An action read to the customer and awaiting (or holding) their explicit yes."""

    action: str
    order_id: str
    summary: str
    confirmed: bool = False


@attrs.define
class Shop:
    """Customers, products and orders, plus the conversation's pending proposal."""

    customers: dict[str, Customer]
    products: dict[str, Product]
    orders: dict[str, Order]
    proposal: Proposal | None = None
    log: list[str] = attrs.field(factory=list)

    def variant(self, item_id: str) -> tuple[Product, Variant]:
        """The product and variant of an item id (KeyError if unknown)."""
        for product in self.products.values():
            for variant in product.variants:
                if variant.item_id == item_id:
                    return product, variant
        raise KeyError(f"no item {item_id}")


def sample_shop() -> Shop:
    """A fresh shop with two customers, two products and three orders."""
    home = Address("12 Elm Street", "Springfield", "49007")
    flat = Address("3 Harbour Road", "Portsmouth", "03801")
    lamp = Product(
        "P-LAMP",
        "desk lamp",
        [
            Variant("I-LAMP-BLK", {"color": "black"}, 39.0),
            Variant("I-LAMP-WHT", {"color": "white"}, 39.0),
            Variant("I-LAMP-RED", {"color": "red"}, 42.0, in_stock=False),
        ],
    )
    shirt = Product(
        "P-SHIRT",
        "t-shirt",
        [
            Variant("I-SHIRT-M", {"size": "M"}, 15.0),
            Variant("I-SHIRT-L", {"size": "L"}, 15.0),
        ],
    )
    orders = {
        "W1001": Order(
            "W1001",
            "ada_lovelace",
            "pending",
            [Line("I-LAMP-BLK", "P-LAMP", "desk lamp", 39.0)],
            home,
            "card_ada",
        ),
        "W1002": Order(
            "W1002",
            "ada_lovelace",
            "delivered",
            [Line("I-SHIRT-M", "P-SHIRT", "t-shirt", 15.0)],
            home,
            "card_ada",
        ),
        "W2001": Order(
            "W2001",
            "alan_turing",
            "processed",
            [Line("I-LAMP-WHT", "P-LAMP", "desk lamp", 39.0)],
            flat,
            "gift_alan",
        ),
    }
    customers = {
        "ada_lovelace": Customer(
            "ada_lovelace",
            "Ada",
            "Lovelace",
            "ada@example.com",
            home,
            ["card_ada", "gift_ada"],
            ["W1001", "W1002"],
        ),
        "alan_turing": Customer(
            "alan_turing", "Alan", "Turing", "alan@example.com", flat, ["gift_alan"], ["W2001"]
        ),
    }
    return Shop(customers, {p.product_id: p for p in (lamp, shirt)}, orders)


# -- the tools -----------------------------------------------------------------------


def new_context() -> dict[str, Any]:
    """A fresh run context: its own sample shop."""
    return {"shop": sample_shop()}


def _shop(ctx: st.ToolCallContext) -> Shop:
    shop = ctx.get("shop")
    if not isinstance(shop, Shop):
        raise RuntimeError("no shop in the run context; pass context=new_context()")
    return shop


def _order(shop: Shop, order_id: str) -> Order:
    order = shop.orders.get(order_id.lstrip("#"))
    if order is None:
        raise LookupError(f"there is no order {order_id}")
    return order


@st.llm_tool("Find a customer's id by their email address.")
def find_customer_by_email(email: str, ctx: st.ToolCallContext) -> str:
    for customer in _shop(ctx).customers.values():
        if customer.email.lower() == email.strip().lower():
            return customer.customer_id
    raise LookupError(f"no customer with email {email}")


@st.llm_tool("Find a customer's id by first name, last name and zip code.")
def find_customer_by_name_zip(
    first_name: str, last_name: str, zip_code: str, ctx: st.ToolCallContext
) -> str:
    for customer in _shop(ctx).customers.values():
        if (customer.first_name, customer.last_name, customer.address.zip_code) == (
            first_name.strip(),
            last_name.strip(),
            zip_code.strip(),
        ):
            return customer.customer_id
    raise LookupError("no customer with that name and zip code")


@st.llm_tool("Show a customer's profile: address, payment methods and order ids.")
def get_customer(customer_id: str, ctx: st.ToolCallContext) -> dict[str, Any]:
    customer = _shop(ctx).customers.get(customer_id)
    if customer is None:
        raise LookupError(f"there is no customer {customer_id}")
    return attrs.asdict(customer)


@st.llm_tool("Show an order: status, items, address and payment method.")
def get_order(order_id: str, ctx: st.ToolCallContext) -> dict[str, Any]:
    return attrs.asdict(_order(_shop(ctx), order_id))


@st.llm_tool("Show a product and its variants (item ids, options, price, stock).")
def get_product(product_id: str, ctx: st.ToolCallContext) -> dict[str, Any]:
    product = _shop(ctx).products.get(product_id)
    if product is None:
        raise LookupError(f"there is no product {product_id}")
    return attrs.asdict(product)


@st.llm_tool("List every product type with its product id.")
def list_products(ctx: st.ToolCallContext) -> dict[str, str]:
    return {p.name: p.product_id for p in _shop(ctx).products.values()}


@st.llm_tool(
    "Prepare a change to an order. Returns the text to read to the customer, who must "
    "answer yes before the change can be made."
)
def propose_action(action: Action, order_id: str, summary: str, ctx: st.ToolCallContext) -> str:
    shop = _shop(ctx)
    order = _order(shop, order_id)
    allowed = {"cancel": "pending", "change_address": "pending"}.get(action, "delivered")
    if order.status != allowed:
        raise ValueError(f"order {order.order_id} is {order.status}; {action} needs {allowed}")
    shop.proposal = Proposal(action, order.order_id, summary)
    return f"Ask the customer: {summary} Shall I go ahead (yes/no)?"


@st.llm_tool("Record the customer's answer to the proposed change.")
def record_answer(customer_said_yes: bool, ctx: st.ToolCallContext) -> str:
    shop = _shop(ctx)
    if shop.proposal is None:
        raise ValueError("nothing was proposed")
    if not customer_said_yes:
        shop.proposal = None
        return "declined"
    shop.proposal.confirmed = True
    return "confirmed"


def said_yes(result: st.ToolResult) -> bool:
    """Transition guard: the customer confirmed."""
    return result.text == "confirmed"


def said_no(result: st.ToolResult) -> bool:
    """Transition guard: the customer declined."""
    return result.text == "declined"


def _confirmed(shop: Shop, action: str, order_id: str) -> Order:
    proposal = shop.proposal
    order = _order(shop, order_id)
    if proposal is None or not proposal.confirmed:
        raise PermissionError("the customer has not confirmed any change")
    if (proposal.action, proposal.order_id) != (action, order.order_id):
        raise PermissionError(
            f"the customer confirmed {proposal.action} of order {proposal.order_id}, not this"
        )
    shop.proposal = None
    shop.log.append(f"{action} {order.order_id}")
    return order


@st.llm_tool("Cancel a pending order the customer confirmed cancelling.")
def cancel_order(
    order_id: str,
    reason: Literal["no longer needed", "ordered by mistake"],
    ctx: st.ToolCallContext,
) -> str:
    order = _confirmed(_shop(ctx), "cancel", order_id)
    order.status = "cancelled"
    total = sum(line.price for line in order.lines)
    return f"Order {order.order_id} cancelled ({reason}); {total:.2f} refunded."


@st.llm_tool("Change the shipping address of a pending order (after the customer's yes).")
def change_address(order_id: str, address: Address, ctx: st.ToolCallContext) -> str:
    order = _confirmed(_shop(ctx), "change_address", order_id)
    order.address = address
    return f"Order {order.order_id} will ship to {address.street}, {address.city}."


@st.llm_tool("Return items of a delivered order (after the customer's yes).")
def return_items(
    order_id: str, item_ids: list[str], refund_to: str, ctx: st.ToolCallContext
) -> str:
    shop = _shop(ctx)
    order = _confirmed(shop, "return", order_id)
    missing = set(item_ids) - {line.item_id for line in order.lines}
    if missing:
        raise ValueError(f"not in the order: {', '.join(sorted(missing))}")
    order.status = "return requested"
    return f"Return of {', '.join(item_ids)} requested; refund to {refund_to}."


@st.llm_tool("Exchange items of a delivered order for variants of the same product.")
def exchange_items(
    order_id: str, item_ids: list[str], new_item_ids: list[str], ctx: st.ToolCallContext
) -> str:
    shop = _shop(ctx)
    order = _confirmed(shop, "exchange", order_id)
    if len(item_ids) != len(new_item_ids):
        raise ValueError("give one new item per item")
    for old, new in zip(item_ids, new_item_ids, strict=True):
        old_product, _ = shop.variant(old)
        new_product, variant = shop.variant(new)
        if old_product.product_id != new_product.product_id or not variant.in_stock:
            raise ValueError(f"{new} cannot replace {old}")
    order.status = "return requested"
    return f"Exchange of {', '.join(item_ids)} for {', '.join(new_item_ids)} requested."


@st.llm_tool("Hand the conversation to a human agent, with a summary of the issue.")
def transfer_to_human(summary: str) -> str:
    return "A human agent will take over. Tell the customer to hold on."


@st.llm_tool("Close the case when the customer has nothing more to ask.")
def close_case() -> str:
    return "Case closed."


# -- the design in Python (support_desk.yaml is the same design as data) --------------


class Desk(enum.Enum):
    """Where a support conversation stands."""

    AUTHENTICATING = "authenticating"
    IDENTIFIED = "identified"
    AWAITING_ANSWER = "awaiting_answer"
    CONFIRMED = "confirmed"
    DONE = "done"


def support_desk() -> st.StateMachineTool[Desk]:
    """The support desk state machine, built with the Python builders."""
    machine = (
        st.StateMachineTool("support_desk", "Help one customer of the online shop", Desk)
        .with_initial_state(Desk.AUTHENTICATING)
        .in_state(Desk.AUTHENTICATING)
        .with_tool(find_customer_by_email)
        .transitions_to(Desk.IDENTIFIED)
        .with_tool(find_customer_by_name_zip)
        .transitions_to(Desk.IDENTIFIED)
        .in_state(Desk.IDENTIFIED)
        .with_tool(get_customer)
        .with_tool(get_order)
        .with_tool(get_product)
        .with_tool(list_products)
        .with_tool(propose_action)
        .transitions_to(Desk.AWAITING_ANSWER)
        .with_tool(close_case)
        .transitions_to(Desk.DONE)
        .in_state(Desk.AWAITING_ANSWER)
        .with_tool(record_answer)
        .transitions_to(Desk.CONFIRMED, when=said_yes)
        .transitions_to(Desk.IDENTIFIED, when=said_no)
    )
    machine = machine.in_state(Desk.CONFIRMED)
    for action in (cancel_order, change_address, return_items, exchange_items):
        machine = machine.with_tool(action).transitions_to(Desk.IDENTIFIED)
    return machine.with_global_tools(transfer_to_human).with_final_states(Desk.DONE)
