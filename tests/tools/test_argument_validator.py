"""The argument validator: a compiled check first, jsonschema's words for the problems.

The compiled check (``jsonschema-rs``) may only ever say "valid" where ``jsonschema``
(the reference) agrees: the property tests below draw schemas from the keywords tool
schemas use and values from all of JSON, and compare the validator's verdict with the
reference's alone.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as s

import statetools as st
from statetools.tools.validation import argument_problems, make_validator

JSON_SCALARS = (
    s.none()
    | s.booleans()
    | s.integers(min_value=-(2**70), max_value=2**70)
    | s.floats(allow_nan=False, allow_infinity=False)
    | s.text(max_size=8)
)
JSON_VALUES = s.recursive(
    JSON_SCALARS,
    lambda inner: (
        s.lists(inner, max_size=4) | s.dictionaries(s.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=12,
)
TYPES = s.sampled_from(["string", "integer", "number", "boolean", "array", "object", "null"])


def _bounded(schema: dict[str, Any], draw: Any, low: str, high: str, values: Any) -> None:
    if draw(s.booleans()):
        schema[low] = draw(values)
    if draw(s.booleans()):
        schema[high] = draw(values)


@s.composite
def schemas(draw: Any, depth: int = 2) -> dict[str, Any]:
    """A schema from the keywords tools use, nested ``depth`` levels at most."""
    kind = draw(s.sampled_from(["type", "enum", "const", "anyOf", "oneOf"] if depth else ["type"]))
    if kind == "enum":
        return {"enum": draw(s.lists(JSON_SCALARS, min_size=1, max_size=4))}
    if kind == "const":
        return {"const": draw(JSON_VALUES)}
    if kind in ("anyOf", "oneOf"):
        return {kind: draw(s.lists(schemas(depth - 1), min_size=1, max_size=3))}
    types = draw(s.lists(TYPES, min_size=1, max_size=2, unique=True))
    schema: dict[str, Any] = {"type": types[0] if len(types) == 1 else types}
    sizes = s.integers(min_value=0, max_value=4)
    if "string" in types:
        _bounded(schema, draw, "minLength", "maxLength", sizes)
    if "integer" in types or "number" in types:
        _bounded(schema, draw, "minimum", "maximum", s.integers(-5, 5) | s.floats(-5, 5))
        if draw(s.booleans()):
            schema["multipleOf"] = draw(s.sampled_from([1, 2, 0.5, 3]))
    if "array" in types:
        _bounded(schema, draw, "minItems", "maxItems", sizes)
        if depth and draw(s.booleans()):
            schema["items"] = draw(schemas(depth - 1))
        if draw(s.booleans()):
            schema["uniqueItems"] = True
    if "object" in types and depth:
        names = draw(s.lists(s.sampled_from("abcd"), max_size=3, unique=True))
        schema["properties"] = {n: draw(schemas(depth - 1)) for n in names}
        if names and draw(s.booleans()):
            schema["required"] = draw(s.lists(s.sampled_from(names), max_size=2, unique=True))
        if draw(s.booleans()):
            schema["additionalProperties"] = False
    return schema


def values_near(schema: dict[str, Any]) -> Any:
    """Values of every shape, and ones built from the schema's own examples."""
    pieces = [JSON_VALUES]
    for word in ("enum", "const"):
        if word in schema:
            pieces.append(s.sampled_from(schema[word] if word == "enum" else [schema[word]]))
    return s.one_of(*pieces)


@settings(max_examples=300, deadline=None)
@given(s.data())
def test_the_verdict_is_the_references_for_any_schema_and_value(data: Any) -> None:
    schema = data.draw(schemas())
    validator = make_validator(schema)
    value = data.draw(values_near(schema))
    valid = validator.reference.is_valid(value)
    assert validator.is_valid(value) == valid
    assert (argument_problems(validator, value) == []) == valid


@settings(max_examples=150, deadline=None)
@given(s.data())
def test_tool_arguments_are_checked_the_same_with_and_without_the_compiled_check(
    data: Any,
) -> None:
    properties = data.draw(s.dictionaries(s.sampled_from("xyz"), schemas(1), max_size=3))
    required = sorted(properties)[: data.draw(s.integers(0, len(properties)))]
    schema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    arguments = data.draw(s.dictionaries(s.sampled_from("xyzw"), JSON_VALUES, max_size=4))
    validator = make_validator(schema)
    reference_only = make_validator(schema)
    reference_only._quick = lambda value: False  # no compiled verdict: jsonschema alone
    assert argument_problems(validator, arguments) == argument_problems(reference_only, arguments)


def test_a_tuple_is_an_array_for_arguments_given_from_python() -> None:
    validator = make_validator(
        {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "integer"}}}}
    )
    assert argument_problems(validator, {"xs": (1, 2)}) == []
    assert argument_problems(validator, {"xs": (1, "2")}) == [
        "argument 'xs[1]' must be an integer, got \"2\""
    ]


def test_a_value_that_is_no_json_value_is_judged_by_the_reference() -> None:
    validator = make_validator({"type": "object", "properties": {"when": {"type": "string"}}})
    assert argument_problems(validator, {"when": object()})[0].startswith(
        "argument 'when' must be a string, got "
    )
    assert argument_problems(validator, {"other": object()}) == []


def test_a_pattern_only_python_reads_is_checked_by_the_reference_alone() -> None:
    # ``\\Z`` is not ECMA-262 regex syntax: the compiled check refuses the schema
    validator = make_validator(
        {"type": "object", "properties": {"code": {"type": "string", "pattern": r"^[A-Z]+\Z"}}}
    )
    assert argument_problems(validator, {"code": "AB"}) == []
    assert argument_problems(validator, {"code": "AB\n"}) == [
        "argument 'code': 'AB\\n' does not match '^[A-Z]+\\\\Z'"
    ]


def test_where_the_reference_is_more_lenient_it_wins() -> None:
    # Python's ``$`` matches before a final newline, ECMA's does not; infinity is a
    # number to jsonschema
    validator = make_validator(
        {
            "type": "object",
            "properties": {
                "code": {"type": "string", "pattern": "^[A-Z]+$"},
                "n": {"type": "number"},
            },
        }
    )
    assert argument_problems(validator, {"code": "AB\n", "n": math.inf}) == []


def test_a_tool_call_reports_problems_in_the_same_words() -> None:
    def pick(n: int, tags: list[str]) -> str:
        """Pick."""
        return f"{n} {tags}"

    tool = st.Tool.from_function(pick)
    assert tool.call({"n": 2, "tags": ["a"]}).text == "2 ['a']"
    assert tool.call({"n": "2", "tags": ["a", 1], "x": 0}).text == (
        "Invalid arguments for tool 'pick': unknown argument 'x' (allowed: n, tags); "
        "argument 'n' must be an integer, got \"2\"; argument 'tags[1]' must be a string, "
        "got 1. Call it again with corrected arguments."
    )


def test_the_reference_validator_is_made_when_a_value_is_first_refused() -> None:
    validator = make_validator({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert validator._reference is None  # making a tool builds no jsonschema validator
    assert argument_problems(validator, {"n": 1}) == []
    assert validator._reference is None  # the compiled check said "valid"
    assert argument_problems(validator, {"n": "1"}) == [
        "argument 'n' must be an integer, got \"1\""
    ]
    assert validator._reference is not None
    assert validator.reference is validator._reference  # made once


def test_multiple_of_is_checked_exactly_even_for_a_large_float() -> None:
    # 2.620354914380229e79 is an integer that leaves 2 when divided by 3; a check that
    # divides in floating point calls it a multiple of 3
    validator = make_validator({"type": "integer", "multipleOf": 3})
    value = 2.620354914380229e79
    assert not validator.is_valid(value)
    assert argument_problems(validator, value) == [
        "the value: 2.620354914380229e+79 is not a multiple of 3"
    ]
    nested = make_validator({"type": "object", "properties": {"n": {"multipleOf": 3}}})
    assert not nested.is_valid({"n": value})
