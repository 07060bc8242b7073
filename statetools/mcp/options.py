"""MCPServer's options checked when it is built, and what a dropped call is answered.

>>> names_or_all("idempotent", ["put_note"])
('put_note',)
>>> names_or_all("forward_context", 5)
Traceback (most recent call last):
...
statetools.mcp.options.OptionError: forward_context must be a list of context keys or 'all', got 5
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from statetools.mcp.listing import Listing

__all__ = ["OptionError", "may_resend", "names_or_all", "unknown_outcome"]

_WORDS = {
    "forward_context": (
        "context keys",
        "e.g. forward_context=['tenant'] (keys of the run's context), or 'all'",
    ),
    "idempotent": (
        "tool names",
        "e.g. idempotent=['put_note'] (the names the server gives its tools)",
    ),
}


class OptionError(ValueError):
    """An option of :class:`~statetools.mcp.MCPServer` has the wrong shape (the server
    raises it as an ``MCPServerError``).

    >>> OptionError("bad", "fix it").hint
    'fix it'
    """

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def names_or_all(option: str, value: Any) -> tuple[str, ...] | Literal["all"]:
    """``value`` of ``forward_context`` or ``idempotent``: ``"all"`` or a list of names.

    >>> names_or_all("forward_context", "all")
    'all'
    """
    if value == "all":
        return "all"
    noun, hint = _WORDS[option]
    if isinstance(value, str) or not isinstance(value, Sequence | set | frozenset):
        raise OptionError(f"{option} must be a list of {noun} or 'all', got {value!r}", hint)
    names = tuple(value)
    bad = [item for item in names if not isinstance(item, str)]
    if bad:
        raise OptionError(f"{option} must hold {noun} (text), got {bad[0]!r}", hint)
    return names


def may_resend(tool: str, idempotent: Sequence[str] | str, listing: Listing | None) -> bool:
    """Whether a call of ``tool`` (its name on the server) may be sent again when the
    connection dropped before its answer: ``idempotent`` names it (or is ``"all"``), or
    the server marks it ``readOnlyHint`` or ``idempotentHint``.

    >>> listing = Listing("notes", ({"name": "read", "annotations": {"readOnlyHint": True}},
    ...                             {"name": "write"}))
    >>> may_resend("read", (), listing), may_resend("write", (), listing)
    (True, False)
    """
    if idempotent == "all" or tool in idempotent:
        return True
    wire = next((t for t in listing.tools if t.get("name") == tool), None) if listing else None
    annotations = (wire or {}).get("annotations") or {}
    return bool(annotations.get("readOnlyHint") or annotations.get("idempotentHint"))


def unknown_outcome(server: str, tool: str, failure: Exception, gone: bool) -> str:
    """What a call whose connection dropped before its answer is answered: it may have
    run, so it is not sent again; ``gone`` when the server may not start again.

    >>> print(unknown_outcome("fx", "append", OSError("Broken pipe"), gone=False))
    MCP server 'fx' stopped (Broken pipe) during the call of 'append': whether it took effect is unknown, so it was not sent again. Check its effect before calling it again. The server starts again at the next call.
    """  # noqa: E501
    text = (
        f"MCP server '{server}' stopped ({failure}) during the call of '{tool}': whether it "
        "took effect is unknown, so it was not sent again. Check its effect before calling "
        "it again."
    )
    if gone:
        return (
            f"{text} The server was already restarted once; its tools cannot be used in this run."
        )
    return f"{text} The server starts again at the next call."
