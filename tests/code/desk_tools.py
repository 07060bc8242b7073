"""Module-level tools for the YAML tests of code mode (named by import path)."""

from __future__ import annotations

from typing import Any


def find(order: int) -> dict[str, Any]:
    """Find an order."""
    return {"order": order, "status": "late"}


def refund(order: int, amount: float = 5.0) -> str:
    """Refund part of an order."""
    return f"refunded {amount} on {order}"


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
