"""``Annotated[T, st.Param(...)]`` on fields of dataclass and attrs arguments; ``object``."""

from __future__ import annotations

import dataclasses
from typing import Annotated

import attrs

import statetools as st


@dataclasses.dataclass
class Query:
    text: Annotated[str, st.Param("Words to look for")]
    limit: Annotated[int, st.Param("Hits wanted", schema={"minimum": 1})] = 5


@attrs.frozen
class Filter:
    field: Annotated[str, st.Param("Field to filter on")]
    values: list[Annotated[str, st.Param("One accepted value")]] = attrs.Factory(list)


def search(query: Query, filters: list[Filter]) -> str:
    """Search the catalogue."""
    shown = ", ".join(f"{f.field} in {f.values}" for f in filters)
    return f"{query.text} x{query.limit} where {shown}"


TOOL = st.Tool.from_function(search)


def test_the_schema_carries_the_field_descriptions() -> None:
    properties = TOOL.input_schema["properties"]
    assert properties["query"]["properties"] == {
        "text": {"type": "string", "description": "Words to look for"},
        "limit": {"type": "integer", "description": "Hits wanted", "minimum": 1, "default": 5},
    }
    assert properties["filters"]["items"]["properties"]["field"] == {
        "type": "string",
        "description": "Field to filter on",
    }


def test_a_valid_call_runs() -> None:
    result = TOOL.call(
        {"query": {"text": "tides"}, "filters": [{"field": "year", "values": ["2024"]}]}
    )
    assert (result.is_error, result.text) == (False, "tides x5 where year in ['2024']")


def test_an_invalid_call_is_refused_by_the_field_schema() -> None:
    result = TOOL.call({"query": {"text": "tides", "limit": 0}, "filters": []})
    assert result.text == (
        "Invalid arguments for tool 'search': argument 'query.limit': 0 is less than "
        "the minimum of 1. Call it again with corrected arguments."
    )


def test_params_with_a_schema_are_hashable_and_compare_by_schema() -> None:
    first = st.Param("Hits", schema={"minimum": 1})
    assert hash(first) == hash(st.Param("Hits", schema={"minimum": 2}))
    assert first != st.Param("Hits", schema={"minimum": 2})
    assert first == st.Param("Hits", schema={"minimum": 1})


def describe(value: object, items: list[object], table: dict[str, object]) -> str:
    """Describe any values."""
    return repr((value, items, table))


def test_parameters_annotated_object_take_any_json_value() -> None:
    tool = st.Tool.from_function(describe)
    assert tool.input_schema["properties"]["value"] == {}
    result = tool.call({"value": [1, {"a": None}], "items": ["x", 2], "table": {"k": [True]}})
    assert (result.is_error, result.text) == (
        False,
        "([1, {'a': None}], ['x', 2], {'k': [True]})",
    )
