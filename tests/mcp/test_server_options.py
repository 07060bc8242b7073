"""MCPServer's options are checked when it is built (issue 30: a function given as
``forward_context`` made every call of the server's tools fail during the run)."""

from __future__ import annotations

from pathlib import Path

import pytest

import statetools as st
from statetools.mcp.design_servers import server_from_config
from tests.mcp.upstream import Notes

HINT = "Hint: e.g. forward_context=['tenant'] (keys of the run's context), or 'all'"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (len, "got <built-in function len>"),
        (5, "got 5"),
        ("tenant", "got 'tenant'"),
    ],
)
def test_forward_context_must_be_keys_or_all(value: object, shown: str) -> None:
    with pytest.raises(st.mcp.MCPServerError) as caught:
        st.mcp.MCPServer.in_process(Notes().server, name="notes", forward_context=value)
    assert str(caught.value) == (
        f"mcp server 'notes': forward_context must be a list of context keys or 'all', "
        f"{shown} {HINT}"
    )


def test_forward_context_keys_must_be_text() -> None:
    with pytest.raises(st.mcp.MCPServerError) as caught:
        st.mcp.MCPServer.stdio("x", name="notes", forward_context=["tenant", 3])
    assert str(caught.value) == (
        f"mcp server 'notes': forward_context must hold context keys (text), got 3 {HINT}"
    )


def test_good_forward_context_values_are_kept() -> None:
    assert st.mcp.MCPServer.stdio("x", name="n", forward_context=["a"]).forward_context == ("a",)
    assert st.mcp.MCPServer.stdio("x", name="n", forward_context="all").forward_context == "all"


def test_a_design_file_server_may_name_idempotent_tools() -> None:
    server = server_from_config("fx", {"command": "x", "idempotent": ["put"]}, Path("."))
    assert server.idempotent == ("put",)
    assert server.may_resend("put")
    assert not server.may_resend("append")
