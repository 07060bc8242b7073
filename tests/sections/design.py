"""A three-level section tree used by the sections tests."""

from __future__ import annotations

import statetools as st


def tool(name: str, description: str) -> st.Tool:
    return st.Tool.create(name, description, lambda order: f"{name} {order}")


def support_sections() -> st.Sections:
    disputes = st.Section(
        "disputes",
        "Disputes",
        "Open a chargeback only after the customer has written twice.",
        summary="Chargebacks and disputed payments.",
        tools=[tool("open_chargeback", "Open a chargeback for an order")],
    )
    invoices = st.Section(
        "invoices",
        "Invoices",
        "Invoices are sent on the first day of the month.",
        summary="When invoices go out and how to resend them.",
        tools=[tool("resend_invoice", "Send an order's invoice again")],
        children=[disputes],
    )
    billing = st.Section(
        "billing",
        "Billing",
        "Refunds are allowed within 30 days of delivery.",
        summary="Refunds, invoices and disputes.",
        tools=[tool("refund_order", "Refund an order")],
        children=[invoices],
    )
    tone = st.Section("tone", "Tone", "Answer in two sentences at most.", visibility="full")
    shipping = st.Section(
        "shipping",
        "Shipping",
        "Parcels leave the warehouse within two working days.",
        summary="Delivery times.",
        tools=[tool("track_parcel", "Where an order's parcel is")],
    )
    return st.Sections(tone, billing, shipping, tool_name="read_section")


FIRST_PROMPT = """\
## Tone

Answer in two sentences at most.

## Billing

Refunds, invoices and disputes.
(Summary only: call read_section with key "billing" to read it in full.)

## Shipping

Delivery times.
(Summary only: call read_section with key "shipping" to read it in full.)"""

BILLING = """\
## Billing

Refunds are allowed within 30 days of delivery.

### Invoices

When invoices go out and how to resend them.
(Summary only: call read_section with key "billing.invoices" to read it in full.)"""

EXPANDED_PROMPT = (
    """\
## Tone

Answer in two sentences at most.

"""
    + BILLING
    + """

## Shipping

Delivery times.
(Summary only: call read_section with key "shipping" to read it in full.)"""
)

UNKNOWN = (
    "No section has the key 'biling'. Keys, closest first: billing, shipping, "
    "billing.invoices, billing.invoices.disputes, tone."
)
