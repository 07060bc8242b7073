"""The YAML files the `statetools tokens` / `explore` tests write: the three-level
section tree of :mod:`tests.sections.design` and a skills folder, with tools in a
module next to the YAML."""

from __future__ import annotations

from pathlib import Path

from tests.sections.test_skills import write_skills

TOOLS = '''\
def refund_order(order: str) -> str:
    """Refund an order"""
    return f"refunded {order}"


def resend_invoice(order: str) -> str:
    """Send an order's invoice again"""
    return f"resent {order}"


def open_chargeback(order: str) -> str:
    """Open a chargeback for an order"""
    return f"chargeback {order}"


def track_parcel(order: str) -> str:
    """Where an order's parcel is"""
    return f"parcel {order}"


def fill_field(field: str, value: str) -> str:
    """Fill a form field"""
    return f"{field}={value}"


def save_pdf() -> str:
    """Save the filled form"""
    return "saved"
'''

SECTIONS = """\
definitions:
  - kind: sections
    sections:
      - {key: tone, title: Tone, body: Answer in two sentences at most., visibility: full}
      - key: billing
        title: Billing
        body: Refunds are allowed within 30 days of delivery.
        summary: Refunds, invoices and disputes.
        tools: [{module}:refund_order]
        children:
          - key: invoices
            title: Invoices
            body: Invoices are sent on the first day of the month.
            summary: When invoices go out and how to resend them.
            tools: [{module}:resend_invoice]
            children:
              - key: disputes
                title: Disputes
                body: Open a chargeback only after the customer has written twice.
                summary: Chargebacks and disputed payments.
                tools: [{module}:open_chargeback]
      - key: shipping
        title: Shipping
        body: Parcels leave the warehouse within two working days.
        summary: Delivery times.
        tools: [{module}:track_parcel]
"""

SKILLS = """\
definitions:
  - kind: skills
    path: skills
    tools: [{module}:fill_field, {module}:save_pdf]
"""


def write_design(folder: Path, kind: str) -> Path:
    """``folder/design.yaml`` (``kind`` "sections" or "skills") and its tools module,
    named after the folder so that each test imports its own."""
    module = f"tools_{folder.name.replace('-', '_')}"
    (folder / f"{module}.py").write_text(TOOLS, encoding="utf-8")
    if kind == "skills":
        write_skills(folder)
    text = (SKILLS if kind == "skills" else SECTIONS).replace("{module}", module)
    path = folder / "design.yaml"
    path.write_text(text, encoding="utf-8")
    return path
