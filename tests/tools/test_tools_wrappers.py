"""Wrappers: DelegatingTool, WrapperTool, unwrap."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import statetools as st
from statetools.tools.wrappers import delegation_chain


def ping() -> str:
    """Check the connection."""
    return "pong"


INNER = st.Tool.from_function(ping, metadata={"category": "net"})


@attrs.frozen(kw_only=True)
class Counting(st.WrapperTool):
    """Adds a prefix to every result (a wrapper with its own field and behaviour)."""

    prefix: str = ">"

    async def acall(self, arguments: Any = None, context: Any = None) -> st.ToolResult:
        result = await self.delegate.acall(arguments, context)
        return result.with_text(f"{self.prefix}{result.text}")


def test_a_wrapper_looks_like_its_delegate() -> None:
    wrapper = st.WrapperTool.around(INNER)
    assert (wrapper.name, wrapper.description, wrapper.metadata) == (
        "ping",
        "Check the connection.",
        st.ToolMetadata(category="net"),
    )
    assert wrapper.input_schema == INNER.input_schema
    assert wrapper.call().text == "pong"


def test_around_takes_changes_and_subclass_fields() -> None:
    wrapper = Counting.around(INNER, name="ping2", prefix="! ")
    assert wrapper.name == "ping2"
    assert wrapper.call().text == "! pong"
    assert wrapper.with_note("Cheap").description == "Check the connection. Cheap"


def test_unwrap_follows_the_whole_chain() -> None:
    twice = Counting.around(st.WrapperTool.around(INNER))
    assert unwrap_all(twice) is INNER
    assert st.unwrap(INNER) is INNER
    assert [type(t).__name__ for t in delegation_chain(twice)] == [
        "Counting",
        "WrapperTool",
        "Tool",
    ]
    assert twice.call().text == ">pong"


def unwrap_all(tool: st.BaseTool) -> st.BaseTool:
    return st.unwrap(tool)


def test_delegating_tool_is_a_protocol_any_tool_can_follow() -> None:
    @attrs.frozen(kw_only=True)
    class Custom(st.BaseTool):
        delegate: st.BaseTool

        async def acall(self, arguments: Any = None, context: Any = None) -> st.ToolResult:
            return await self.delegate.acall(arguments, context)

    custom = Custom(name="c", description="C", delegate=INNER)
    assert isinstance(custom, st.DelegatingTool)
    assert not isinstance(INNER, st.DelegatingTool)
    assert st.unwrap(custom) is INNER


def test_a_delegate_that_is_not_a_tool_ends_the_chain() -> None:
    @attrs.frozen(kw_only=True)
    class Odd(st.BaseTool):
        delegate: object = "not a tool"

        async def acall(self, arguments: Any = None, context: Any = None) -> st.ToolResult:
            return st.ToolResult.text("odd")

    odd = Odd(name="odd", description="Odd")
    assert st.unwrap(odd) is odd


def test_a_looping_chain_is_reported() -> None:
    @attrs.frozen(kw_only=True, eq=False)
    class Loopy(st.BaseTool):
        delegate: Any = None

        async def acall(self, arguments: Any = None, context: Any = None) -> st.ToolResult:
            return st.ToolResult.text("")

    first = Loopy(name="first", description="F")
    second = Loopy(name="second", description="S", delegate=first)
    object.__setattr__(first, "delegate", second)
    with pytest.raises(st.DefinitionError) as caught:
        st.unwrap(first)
    assert str(caught.value) == (
        "tool 'first': the chain of wrapped tools loops back on itself "
        "Hint: a wrapper's delegate must not be the wrapper or one of its wrappers"
    )


def test_wrappers_wrap_tools_only() -> None:
    with pytest.raises(st.DefinitionError, match="a wrapper's delegate must be a tool, got 'x'"):
        st.WrapperTool.around("x")  # type: ignore[arg-type]
    with pytest.raises(st.DefinitionError, match="a wrapper's delegate must be a tool"):
        st.WrapperTool(name="w", description="W", delegate=ping)  # type: ignore[arg-type]


def test_a_plain_wrapper_calls_its_delegate_synchronously_inside_an_event_loop() -> None:
    import asyncio

    async def inside() -> tuple[str, bool]:
        plain = st.WrapperTool.around(INNER).call().text
        try:
            Counting.around(INNER).call()
        except st.StatetoolsError:
            return plain, True
        return plain, False

    assert asyncio.run(inside()) == ("pong", True)
