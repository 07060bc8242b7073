"""st.example_arguments: valid and deterministic on catalogue-shaped schemas; examples
from Param, pydantic and attrs/dataclass metadata come first."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

import attrs
import jsonschema
import pydantic
import pytest

import statetools as st

# Shapes as real catalogues write them (written here): paging with bounds, enums with
# defaults, nullable anyOf, a list of types, nested arrays of objects, $defs.
LIST_ISSUES = {
    "type": "object",
    "properties": {
        "owner": {"type": "string", "description": "Repository owner"},
        "repo": {"type": "string", "description": "Repository name"},
        "state": {"type": "string", "enum": ["OPEN", "CLOSED"], "description": "Filter"},
        "perPage": {"type": "number", "minimum": 1, "maximum": 100},
        "page": {"type": "number", "minimum": 1},
        "since": {"type": "string", "description": "ISO 8601 timestamp"},
        "labels": {"type": "array", "items": {"type": "string"}},
        "direction": {"type": "string", "enum": ["ASC", "DESC"], "default": "DESC"},
    },
    "required": ["owner", "repo"],
}
UPDATE_ISSUE = {
    "type": "object",
    "properties": {
        "issue_number": {"type": "number"},
        "type": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}]},
        "value": {"type": ["string", "number", "boolean"]},
        "body": {"type": "string", "maxLength": 4},
        "reviewers": {"type": "array", "items": {"type": "string"}, "minItems": 2},
    },
    "required": ["issue_number", "reviewers"],
    "additionalProperties": False,
}
EXCHANGE_ITEMS = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "description": "Like '#W0000000'"},
        "items": {
            "type": "array",
            "items": {"$ref": "#/$defs/item"},
            "minItems": 1,
            "uniqueItems": True,
        },
        "payment": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {"card": {"type": "string"}},
                    "required": ["card"],
                },
                {"type": "integer", "minimum": 10, "multipleOf": 5},
            ]
        },
        "express": {"const": False},
    },
    "required": ["order_id", "items", "payment"],
    "$defs": {
        "item": {
            "type": "object",
            "properties": {"item_id": {"type": "string"}, "quantity": {"type": "integer"}},
            "required": ["item_id"],
        }
    },
}
MOVE_FILE = {
    "type": "object",
    "properties": {
        "source": {"type": "string"},
        "destination": {"type": "string", "default": "None"},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    },
    "required": ["source"],
}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            LIST_ISSUES,
            {
                "owner": "octocat",
                "repo": "hello-world",
                "state": "OPEN",
                "perPage": 1.5,
                "page": 1.5,
                "since": "example since",
                "labels": ["example label"],
                "direction": "DESC",
            },
        ),
        (
            UPDATE_ISSUE,
            {
                "issue_number": 1.5,
                "type": "example type",
                "value": "example value",
                "body": "Look",
                "reviewers": ["example reviewer", "example reviewer"],
            },
        ),
        (
            EXCHANGE_ITEMS,
            {
                "order_id": "12345",
                "items": [{"item_id": "12345", "quantity": 1}],
                "payment": {"card": "example card"},
                "express": False,
            },
        ),
        (MOVE_FILE, {"source": "example source", "destination": "None", "ratio": 0.5}),
    ],
)
def test_catalogue_shaped_schemas_get_exact_valid_examples(
    schema: dict[str, Any], expected: dict[str, Any]
) -> None:
    example = st.example_arguments(schema)

    assert example == expected
    jsonschema.validate(example, schema)
    assert st.example_arguments(schema) == example


def test_an_invalid_given_value_is_skipped_for_a_valid_one() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 5, "examples": [2, 7], "default": 1},
            "mode": {"type": "string", "enum": ["fast", "slow"], "default": "turbo"},
        },
    }

    assert st.example_arguments(schema) == {"n": 7, "mode": "fast"}


def test_unique_items_get_distinct_values() -> None:
    schema = {
        "type": "object",
        "properties": {
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 3,
                "uniqueItems": True,
            }
        },
    }

    assert st.example_arguments(schema) == {
        "tags": ["example tag", "example tag 2", "example tag 3"]
    }


def test_max_properties_leaves_the_optional_ones_out() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "required": ["b"],
        "maxProperties": 1,
    }

    assert st.example_arguments(schema) == {"b": "example b"}


def test_a_schema_no_example_satisfies_is_a_definition_error() -> None:
    schema = {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
        "required": ["code"],
    }
    with pytest.raises(st.DefinitionError, match="no example arguments satisfy this schema"):
        st.example_arguments(schema)

    with_example = {**schema, "properties": {"code": {**schema["properties"]["code"]}}}
    with_example["properties"]["code"]["examples"] = ["ABC"]
    assert st.example_arguments(with_example) == {"code": "ABC"}


@attrs.frozen
class Address:
    """Where someone lives."""

    street: str = attrs.field(metadata={"example": "1 Main St"})
    city: str = attrs.field(default="Berlin", metadata={"examples": ["Paris", "Rome"]})


@dataclasses.dataclass
class Contact:
    phone: str = dataclasses.field(metadata={"example": "+49 30 1234567"})


class Employee(pydantic.BaseModel):
    name: str = pydantic.Field(examples=["Grace Hopper"])
    level: int = pydantic.Field(ge=1, le=9)


def hire(
    employee: Employee,
    address: Address,
    contact: Contact,
    team: Annotated[str, st.Param("The team", example="compilers")],
    grade: Literal["junior", "senior"] = "senior",
) -> str:
    """Hire someone."""
    return "hired"


def test_param_pydantic_and_attrs_examples_feed_the_example() -> None:
    tool = st.Tool.from_function(hire)

    assert tool.input_schema["properties"]["team"] == {
        "type": "string",
        "description": "The team",
        "examples": ["compilers"],
    }
    assert st.example_arguments(tool.input_schema) == {
        "employee": {"name": "Grace Hopper", "level": 1},
        "address": {"street": "1 Main St", "city": "Paris"},
        "contact": {"phone": "+49 30 1234567"},
        "team": "compilers",
        "grade": "senior",
    }
    assert tool.call(st.example_arguments(tool.input_schema)).text == "hired"
