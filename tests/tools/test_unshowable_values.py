"""A handler that succeeded is a success, whatever it returned; bytes show as bytes."""

from __future__ import annotations

from typing import Any

import pytest

import statetools as st
from statetools.models import ScriptedModel


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def __str__(self) -> str:
        raise RuntimeError("no str")


def _looped() -> list[Any]:
    looped: list[Any] = [1]
    looped.append(looped)
    return looped


UNPRINTABLE = Unprintable()
LOOPED = _looped()


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({("a", 1): "x"}, "{('a', 1): 'x'}"),
        (LOOPED, "[1, [...]]"),
        (UNPRINTABLE, "<Unprintable object>"),
        ([UNPRINTABLE, {"k": UNPRINTABLE}], "[<Unprintable object>, {'k': <Unprintable object>}]"),
        (b"\x00\x01abc", "<bytes, 5 bytes>"),
        (bytearray(b"xy"), "<bytearray, 2 bytes>"),
        ({"id": 7, "raw": b"xy"}, '{"id": 7, "raw": "<bytes, 2 bytes>"}'),
    ],
    ids=[
        "tuple-keys",
        "recursive",
        "repr-raises",
        "nested-repr-raises",
        "bytes",
        "bytearray",
        "nested-bytes",
    ],
)
def test_a_value_json_cannot_show_is_a_success_with_a_safe_text_and_kept(
    value: Any, text: str
) -> None:
    made = st.Tool.create("make", "Make a value.", lambda: value)

    result = made.call()

    assert not result.is_error
    assert result.text == text
    assert result.kind == "artifact"
    assert result.value is value


def test_artifact_results_built_by_hand_never_raise_either() -> None:
    assert st.ToolResult.artifact(LOOPED).text == "[1, [...]]"


def test_in_a_run_the_model_is_told_the_call_succeeded() -> None:
    made = st.Tool.create("make", "Make a value.", lambda: {("a", 1): "x"})
    model = ScriptedModel([("make", {}), "Made."])

    result = st.ToolLoop(model).run("Make it", tools=[made])

    tool_message = result.messages[2]
    assert (tool_message.content, tool_message.is_error) == ("{('a', 1): 'x'}", False)
    assert result.output == "Made."


def test_an_exception_whose_str_raises_is_still_reported() -> None:
    class Odd(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no str")

    def fail() -> None:
        raise Odd

    assert st.Tool.create("fail", "Fail.", fail).call().text == "Tool 'fail' failed: Odd"
