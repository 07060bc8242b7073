"""Arguments a model invents to break a tool: huge numbers, deep nesting, bad JSON.

Each becomes an error result the model can act on, never an exception, also when it
arrives through a provider adapter.
"""

from __future__ import annotations

from typing import Any

import pytest

import statetools as st
from statetools.models import ScriptedModel

ECHO = st.Tool.create(
    "echo",
    "Repeat the text.",
    lambda text: text,
    schema=st.InputSchema.of(st.Parameter.string("text", "The text")),
)


def anything(value: Any) -> str:
    """Take any JSON value."""
    return "ok"


ANY = st.Tool.from_function(anything)
TOO_LONG = (
    "Invalid arguments for tool '{}': a number is longer than 4300 digits. "
    "Call it again with corrected arguments."
)
TOO_DEEP = (
    "Invalid arguments for tool '{}': nested more than 64 levels deep. "
    "Call it again with corrected arguments."
)
DIGITS = "1" * 5000
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("tool", [ECHO, ANY], ids=["string", "any"])
@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"text": ' + DIGITS + "}", TOO_LONG),
        ({"text": 10**5000}, TOO_LONG),
        ('{"text": ' + DEEP + "}", TOO_DEEP),
        ('{"text": ' + "[" * 65 + "]" * 65 + "}", TOO_DEEP),
    ],
    ids=["digits-json", "digits-dict", "deep-json", "deep-65"],
)
def test_huge_numbers_and_deep_nesting_are_error_results(
    tool: st.Tool, arguments: Any, expected: str
) -> None:
    name = "value" if tool is ANY else "text"
    if isinstance(arguments, str):
        arguments = arguments.replace('"text"', f'"{name}"')
    else:
        arguments = {name: arguments["text"]}
    result = tool.call(arguments)
    assert result.is_error
    assert result.text == expected.format(tool.name)


def test_nesting_up_to_the_limit_is_accepted() -> None:
    assert ANY.call('{"value": ' + "[" * 63 + "]" * 63 + "}").text == "ok"
    assert ANY.call({"value": 10**4000}).text == "ok"


def test_a_dict_that_contains_itself_is_refused_as_too_deep() -> None:
    looped: dict[str, Any] = {}
    looped["again"] = looped
    assert ANY.call({"value": looped}).text == TOO_DEEP.format("anything")


def test_the_run_goes_on_after_such_a_call() -> None:
    model = ScriptedModel([("echo", {"text": 10**5000}), ("echo", {"text": "hi"}), "Done."])
    result = st.ToolLoop(model).run("Echo", tools=[ECHO])
    assert [(m.role, m.content) for m in result.messages[2::2]] == [
        ("tool", TOO_LONG.format("echo")),
        ("tool", "hi"),
    ]
    assert result.output == "Done."


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ('{"text": ' + DIGITS + "}", "it holds a number too long to read"),
        ('{"text": ' + DEEP + "}", "it is nested too deeply"),
    ],
    ids=["digits", "deep"],
)
def test_a_final_answer_with_a_huge_number_or_deep_nesting_is_corrected(
    answer: str, problem: str
) -> None:
    model = ScriptedModel([answer, '{"text": "x"}'])
    result = st.ToolLoop(model).run("Answer", output_type=dict[str, str])
    assert result.output == {"text": "x"}
    assert result.messages[2].content.startswith(
        f"Your answer could not be read as dict: {problem}. Answer again"
    )


def loose(**anything: Any) -> str:
    """Take any keywords."""
    return "ok"


@pytest.mark.parametrize(
    ("key", "kind"), [(None, "null"), (1, "integer"), (("a",), "array")], ids=repr
)
def test_argument_names_that_are_not_text_are_an_error_result(key: Any, kind: str) -> None:
    result = st.Tool.from_function(loose).call({key: 1, "fine": 2})
    assert result.text == (
        f"Invalid arguments for tool 'loose': argument names must be text, got {kind}. "
        "Call it again with corrected arguments."
    )
