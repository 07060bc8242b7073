"""Calling tools: arguments in, validation, conversion, handler outcomes, context."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import enum
import logging
from typing import Annotated, Any

import attrs
import pytest

import statetools as st

RETRY = "Call it again with corrected arguments."


class Size(enum.Enum):
    S = "s"
    M = "m"


@dataclasses.dataclass
class Line:
    sku: str
    size: Size = Size.M


@attrs.frozen
class Cart:
    owner: str
    lines: list[Line]


def order(cart: Cart, sizes: list[Size] | None = None, urgent: bool = False) -> dict[str, Any]:
    """Place an order."""
    return {"cart": cart, "sizes": sizes, "urgent": urgent}


def search(q: Annotated[str, st.Param("Query")], n: int = 5) -> str:
    """Search."""
    return f"{q}:{n}"


SEARCH = st.Tool.from_function(search)


# --- arguments in ------------------------------------------------------------------------


def test_call_accepts_a_dict_or_a_json_string() -> None:
    assert SEARCH.call({"q": "cats"}).text == "cats:5"
    assert SEARCH.call('{"q": "dogs", "n": 2}').text == "dogs:2"


def test_no_arguments_as_none_or_blank_string() -> None:
    ping = st.Tool.create("ping", "Ping", lambda: "pong")
    assert ping.call().text == "pong"
    assert ping.call("  ").text == "pong"
    assert ping.call({}).text == "pong"


def test_invalid_json_is_an_error_result() -> None:
    result = SEARCH.call('{"q": ')
    assert result.is_error
    assert result.text == (
        "Invalid arguments for tool 'search': not valid JSON (Expecting value at position 6). "
        "Send the arguments as one JSON object."
    )


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [
        ("[1, 2]", "array"),
        ('"q"', "string"),
        ("3", "integer"),
        ("null", "null"),
        ("true", "boolean"),
    ],
)
def test_arguments_that_are_not_an_object(arguments: str, kind: str) -> None:
    result = SEARCH.call(arguments)
    assert result.is_error
    assert result.text == (
        f"Invalid arguments for tool 'search': expected a JSON object, got {kind}. "
        "Send the arguments as one JSON object."
    )


# --- validation ---------------------------------------------------------------------------


def test_missing_required_argument() -> None:
    result = SEARCH.call({})
    assert result.is_error
    assert (
        result.text
        == f"Invalid arguments for tool 'search': missing required argument 'q'. {RETRY}"
    )


def test_several_missing_arguments_are_each_named_once() -> None:
    tool = st.Tool.create("t", "T", lambda a, b, c=0: "ok")
    assert tool.call({"c": 1}).text == (
        "Invalid arguments for tool 't': missing required argument 'a'; "
        f"missing required argument 'b'. {RETRY}"
    )


def test_wrong_type() -> None:
    assert SEARCH.call({"q": "x", "n": "five"}).text == (
        "Invalid arguments for tool 'search': argument 'n' must be an integer, "
        f'got "five". {RETRY}'
    )


def test_booleans_are_not_integers() -> None:
    assert SEARCH.call({"q": "x", "n": True}).text == (
        f"Invalid arguments for tool 'search': argument 'n' must be an integer, got true. {RETRY}"
    )


def test_unknown_argument() -> None:
    assert SEARCH.call({"q": "x", "limit": 3}).text == (
        f"Invalid arguments for tool 'search': unknown argument 'limit' (allowed: q, n). {RETRY}"
    )


def test_unknown_arguments_for_a_tool_without_arguments() -> None:
    ping = st.Tool.create("ping", "Ping", lambda: "pong")
    assert ping.call({"a": 1, "b": 2}).text == (
        f"Invalid arguments for tool 'ping': unknown arguments 'a', 'b' (none are allowed). {RETRY}"
    )


def test_enum_violation() -> None:
    tool = st.Tool.create(
        "paint",
        "Paint",
        lambda color: color,
        schema=st.InputSchema.of(st.Parameter.string("color", "Color", enum=["red", "blue"])),
    )
    assert tool.call({"color": "green"}).text == (
        "Invalid arguments for tool 'paint': argument 'color' must be one of \"red\", \"blue\", "
        f'got "green". {RETRY}'
    )


def test_nested_problems_name_their_path_and_are_all_reported() -> None:
    tool = st.Tool.from_function(order)
    result = tool.call(
        {"cart": {"owner": 7, "lines": [{"sku": "a", "size": "xl", "gift": True}]}, "rush": 1}
    )
    assert result.text == (
        "Invalid arguments for tool 'order': unknown argument 'rush' (allowed: cart, sizes, "
        "urgent); unknown argument 'cart.lines[0].gift' (allowed: sku, size); "
        'argument \'cart.lines[0].size\' must be one of "s", "m", got "xl"; '
        f"argument 'cart.owner' must be a string, got 7. {RETRY}"
    )


def test_nullable_types_name_both_choices() -> None:
    tool = st.Tool.from_function(order)
    assert tool.call({"cart": {"owner": "a", "lines": []}, "sizes": "s"}).text == (
        "Invalid arguments for tool 'order': argument 'sizes' must be an array or null, "
        f'got "s". {RETRY}'
    )


def test_long_values_are_shortened_in_messages() -> None:
    text = SEARCH.call({"q": "x", "n": "y" * 100}).text
    assert text == (
        "Invalid arguments for tool 'search': argument 'n' must be an integer, got "
        f'"{"y" * 56}.... {RETRY}'
    )


def test_param_schema_keywords_are_enforced() -> None:
    def top(n: Annotated[int, st.Param("How many", schema={"minimum": 1})]) -> int:
        """Top n."""
        return n

    assert st.Tool.from_function(top).call({"n": 0}).text == (
        f"Invalid arguments for tool 'top': argument 'n': 0 is less than the minimum of 1. {RETRY}"
    )


def test_tuples_check_their_length() -> None:
    def move(to: tuple[int, int]) -> str:
        """Move."""
        return repr(to)

    tool = st.Tool.from_function(move)
    assert tool.call({"to": [1, 2]}).text == "(1, 2)"
    assert tool.call({"to": [1]}).text == (
        "Invalid arguments for tool 'move': argument 'to' must have at least 2 items, "
        f"got 1. {RETRY}"
    )
    assert tool.call({"to": [1, 2, 3]}).text == (
        f"Invalid arguments for tool 'move': argument 'to' has too many items (3). {RETRY}"
    )


# --- conversion to Python types --------------------------------------------------------


def test_arguments_arrive_as_annotated_python_objects() -> None:
    tool = st.Tool.from_function(order)
    result = tool.call(
        {
            "cart": {"owner": "ann", "lines": [{"sku": "a", "size": "s"}, {"sku": "b"}]},
            "sizes": ["m"],
        }
    )
    assert not result.is_error
    assert result.value == {
        "cart": Cart("ann", [Line("a", Size.S), Line("b", Size.M)]),
        "sizes": [Size.M],
        "urgent": False,
    }
    assert result.text == (
        '{"cart": {"owner": "ann", "lines": [{"sku": "a", "size": "s"}, {"sku": "b", '
        '"size": "m"}]}, "sizes": ["m"], "urgent": false}'
    )


def test_integers_become_floats_for_float_parameters() -> None:
    def half(x: float) -> str:
        """Half."""
        return repr(x / 2)

    assert st.Tool.from_function(half).call({"x": 3}).text == "1.5"


def test_conversion_failures_become_error_results() -> None:
    def remind(on: datetime.date | None) -> str:
        """Remind."""
        return "ok"

    assert st.Tool.from_function(remind).call({"on": "tomorrow"}).text == (
        "Invalid arguments for tool 'remind': argument 'on' is not a valid date "
        f"(Invalid isoformat string: 'tomorrow'). {RETRY}"
    )


def test_validators_of_nested_classes_speak_to_the_model() -> None:
    @attrs.frozen
    class Qty:
        n: int = attrs.field(validator=attrs.validators.gt(0))

    def take(q: Qty) -> str:
        """Take."""
        return "ok"

    take.__annotations__["q"] = Qty  # a local class: give the resolved type
    assert st.Tool.from_function(take).call({"q": {"n": 0}}).text == (
        "Invalid arguments for tool 'take': argument 'q' is not valid "
        f"('n' must be > 0: 0). {RETRY}"
    )


# --- handler outcomes ----------------------------------------------------------------


def test_handler_exception_becomes_an_error_result(caplog: pytest.LogCaptureFixture) -> None:
    def divide(a: int, b: int) -> float:
        """Divide."""
        return a / b

    with caplog.at_level(logging.INFO, logger="statetools.tools"):
        result = st.Tool.from_function(divide).call({"a": 1, "b": 0})
    assert result.is_error
    assert result.text == "Tool 'divide' failed: division by zero"
    assert caplog.records[0].exc_info is not None


def test_exception_without_message_shows_its_type() -> None:
    def boom() -> None:
        """Boom."""
        raise RuntimeError

    assert st.Tool.from_function(boom).call().text == "Tool 'boom' failed: RuntimeError"


def test_key_error_is_named() -> None:
    def look(key: str) -> str:
        """Look."""
        return {}[key]  # type: ignore[no-any-return]

    assert st.Tool.from_function(look).call({"key": "k"}).text == (
        "Tool 'look' failed: KeyError 'k'"
    )


@pytest.mark.parametrize(
    ("value", "text", "kind"),
    [
        ("plain text", "plain text", "text"),
        ("", "", "text"),
        (3, "3", "text"),
        (2.5, "2.5", "text"),
        (True, "true", "text"),
        (None, "null", "text"),
        ([1, "a"], '[1, "a"]', "artifact"),
        ({"k": "ü"}, '{"k": "ü"}', "artifact"),
        (Line("x"), '{"sku": "x", "size": "m"}', "artifact"),
        (Size.S, '"s"', "artifact"),
    ],
)
def test_plain_return_values(value: Any, text: str, kind: str) -> None:
    result = st.Tool.create("t", "T", lambda: value).call()
    assert (result.text, result.kind) == (text, kind)
    if kind == "artifact":
        assert result.value is value
    else:
        assert result.value is None


def test_tool_results_pass_through() -> None:
    made = st.ToolResult.artifact({"id": 1}, text="order 1")
    assert st.Tool.create("t", "T", lambda: made).call() is made


def test_tool_result_constructors() -> None:
    text = st.ToolResult.text("hi")
    assert (text.text, text.value, text.is_error, text.kind) == ("hi", None, False, "text")
    art = st.ToolResult.artifact(None)
    assert (art.text, art.value, art.kind) == ("null", None, "artifact")
    err = st.ToolResult.error("nope")
    assert (err.text, err.is_error, err.kind) == ("nope", True, "error")
    assert err.with_text("still nope") == st.ToolResult.error("still nope")


def test_tool_result_text_must_be_a_string() -> None:
    with pytest.raises(TypeError):
        st.ToolResult.text(5)  # type: ignore[arg-type]


def test_tool_results_are_hashable_even_with_unhashable_values() -> None:
    first = st.ToolResult.artifact({"a": [1]}, text="same")
    assert hash(first) == hash(st.ToolResult.artifact({"a": [2]}, text="same"))
    assert first != st.ToolResult.artifact({"a": [2]}, text="same")


# --- async ----------------------------------------------------------------------------


async def fetch(url: str) -> str:
    """Fetch a page."""
    await asyncio.sleep(0)
    return f"<{url}>"


def test_async_handlers_run_with_call_and_acall() -> None:
    tool = st.Tool.from_function(fetch)
    assert tool.call({"url": "a"}).text == "<a>"
    assert asyncio.run(tool.acall({"url": "b"})).text == "<b>"


def test_sync_handlers_run_with_acall() -> None:
    assert asyncio.run(SEARCH.acall({"q": "x"})).text == "x:5"


def test_async_handler_failures_become_error_results() -> None:
    async def fail() -> None:
        """Fail."""
        raise ValueError("no route")

    tool = st.Tool.from_function(fail)
    assert tool.call().text == "Tool 'fail' failed: no route"
    assert asyncio.run(tool.acall()).text == "Tool 'fail' failed: no route"


def test_handlers_returning_awaitables_are_awaited() -> None:
    tool = st.Tool.create("later", "Later", lambda: fetch("x"))
    assert tool.call().text == "<x>"
    assert asyncio.run(tool.acall()).text == "<x>"


def test_sync_call_of_an_async_tool_inside_an_event_loop_says_what_to_do() -> None:
    tool = st.Tool.from_function(fetch)

    async def inside() -> None:
        with pytest.raises(st.StatetoolsError) as caught:
            tool.call({"url": "a"})
        assert str(caught.value) == (
            "Tool.call() cannot run inside a running event loop "
            "Hint: use 'await tool.acall(...)' in async code"
        )

    asyncio.run(inside())


def test_sync_handlers_can_be_called_inside_an_event_loop() -> None:
    async def inside() -> str:
        return SEARCH.call({"q": "x"}).text

    assert asyncio.run(inside()) == "x:5"


# --- context -----------------------------------------------------------------------------


def whoami(greeting: str, ctx: st.ToolCallContext) -> str:
    """Greet the current user."""
    return f"{greeting}, {ctx['user']}"


def test_context_is_injected_and_never_in_the_schema() -> None:
    tool = st.Tool.from_function(whoami)
    assert tool.input_schema["properties"] == {"greeting": {"type": "string"}}
    assert tool.call({"greeting": "Hi"}, context={"user": "ann"}).text == "Hi, ann"
    ctx = st.ToolCallContext({"user": "bob"})
    assert tool.call({"greeting": "Yo"}, ctx).text == "Yo, bob"


def test_the_model_cannot_send_the_context() -> None:
    tool = st.Tool.from_function(whoami)
    assert tool.call({"greeting": "Hi", "ctx": {"user": "eve"}}, {"user": "ann"}).text == (
        f"Invalid arguments for tool 'whoami': unknown argument 'ctx' (allowed: greeting). {RETRY}"
    )


def test_optional_context_parameter_gets_an_empty_context() -> None:
    def count(ctx: st.ToolCallContext | None = None) -> int:
        """Count."""
        assert isinstance(ctx, st.ToolCallContext)
        return len(ctx)

    tool = st.Tool.from_function(count)
    assert tool.input_schema["properties"] == {}
    assert tool.call().text == "0"


def test_context_is_an_immutable_mapping() -> None:
    ctx = st.ToolCallContext({"a": 1, "b": 2})
    assert dict(ctx) == {"a": 1, "b": 2}
    assert ctx == {"a": 1, "b": 2}
    assert ctx.get("z", 0) == 0
    with pytest.raises(TypeError):
        ctx["a"] = 3  # type: ignore[index]
    source = {"a": 1}
    copied = st.ToolCallContext(source)
    source["a"] = 9
    assert copied["a"] == 1


def test_merge_right_side_wins() -> None:
    base = st.ToolCallContext({"user": "ann", "locale": "en"})
    merged = base.merge({"locale": "de", "tz": "CET"})
    assert dict(merged) == {"user": "ann", "locale": "de", "tz": "CET"}
    assert dict(base) == {"user": "ann", "locale": "en"}
    assert base | {"user": "bob"} == {"user": "bob", "locale": "en"}
    assert base.merge(None) is base
    assert base.merge(st.ToolCallContext({"x": 1}))["x"] == 1


def test_dict_arguments_are_converted_per_value() -> None:
    def stock(counts: dict[str, Size]) -> str:
        """Stock per shop."""
        return ",".join(f"{shop}={size.name}" for shop, size in sorted(counts.items()))

    tool = st.Tool.from_function(stock)
    assert tool.input_schema["properties"]["counts"] == {
        "type": "object",
        "additionalProperties": {"type": "string", "enum": ["s", "m"]},
    }
    assert tool.call({"counts": {"b": "m", "a": "s"}}).text == "a=S,b=M"
    assert tool.call({"counts": {"a": "l"}}).text == (
        "Invalid arguments for tool 'stock': argument 'counts.a' must be one of \"s\", \"m\", "
        f'got "l". {RETRY}'
    )


def test_async_handlers_receive_context_too() -> None:
    async def who(ctx: st.ToolCallContext) -> str:
        """Who am I."""
        return str(ctx["user"])

    assert asyncio.run(st.Tool.from_function(who).acall(None, {"user": "ann"})).text == "ann"
