"""Pydantic models as tool parameters, results and output types (pydantic's own schema
and validation), and statetools without pydantic loaded."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel, Field, field_validator

import statetools as st
from statetools.models import ScriptedModel


class Address(BaseModel):
    city: str = Field(description="City of residence")


class Passenger(BaseModel):
    """A traveller."""

    name: str = Field(description="First and last name")
    age: int = Field(ge=0, description="Age in years")
    home: Address | None = None

    @field_validator("name")
    @classmethod
    def first_and_last(cls, value: str) -> str:
        if " " not in value.strip():
            raise ValueError("give the first and the last name")
        return value


class Booking(BaseModel):
    """A booked flight."""

    code: str = Field(description="Booking code")
    seats: int = Field(ge=1)

    @field_validator("code")
    @classmethod
    def upper_case(cls, value: str) -> str:
        if value != value.upper():
            raise ValueError("codes are upper case")
        return value


def book(passenger: Passenger, companions: list[Passenger] | None = None) -> Booking:
    """Book a flight for a passenger."""
    return Booking(code=f"BK-{passenger.name.split()[-1].upper()}", seats=1 + len(companions or []))


PASSENGER_SCHEMA = {
    "description": "A traveller.",
    "properties": {
        "name": {"description": "First and last name", "type": "string"},
        "age": {"description": "Age in years", "minimum": 0, "type": "integer"},
        "home": {
            "anyOf": [
                {
                    "properties": {"city": {"description": "City of residence", "type": "string"}},
                    "required": ["city"],
                    "type": "object",
                },
                {"type": "null"},
            ],
            "default": None,
        },
    },
    "required": ["name", "age"],
    "type": "object",
}


def test_the_schema_is_pydantics_own_with_nested_models_in_place() -> None:
    tool = st.Tool.from_function(book)

    assert tool.input_schema == {
        "type": "object",
        "properties": {
            "passenger": PASSENGER_SCHEMA,
            "companions": {
                "type": ["array", "null"],
                "items": PASSENGER_SCHEMA,
                "default": None,
            },
        },
        "required": ["passenger"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("arguments", "text"),
    [
        (
            {"passenger": {"name": "Ada Lovelace", "age": 36, "home": {"city": "London"}}},
            '{"code": "BK-LOVELACE", "seats": 1}',
        ),
        (
            {"passenger": {"name": "Ada", "age": 36}},
            "Invalid arguments for tool 'book': argument 'passenger.name' is not valid: give "
            "the first and the last name. Call it again with corrected arguments.",
        ),
        (
            {"passenger": {"name": "Ada Lovelace", "age": -1}},
            "Invalid arguments for tool 'book': argument 'passenger.age': -1 is less than the "
            "minimum of 0. Call it again with corrected arguments.",
        ),
        (
            {"passenger": {"name": "Ada Lovelace", "age": "old"}},
            "Invalid arguments for tool 'book': argument 'passenger.age' must be an integer, "
            'got "old". Call it again with corrected arguments.',
        ),
        (
            {"passenger": {"name": "Ada Lovelace", "age": 3}, "companions": [{"name": "Bo"}]},
            "Invalid arguments for tool 'book': missing required argument 'companions[0].age'. "
            "Call it again with corrected arguments.",
        ),
        (
            {
                "passenger": {"name": "Ada Lovelace", "age": 3},
                "companions": [{"name": "Bo", "age": 2}],
            },
            "Invalid arguments for tool 'book': argument 'companions[0]' is not valid: name: "
            "give the first and the last name. Call it again with corrected arguments.",
        ),
    ],
)
def test_calls_are_validated_by_the_schema_and_by_pydantic(
    arguments: dict[str, object], text: str
) -> None:
    result = st.Tool.from_function(book).call(arguments)

    assert result.text == text


def test_a_run_with_a_pydantic_tool_and_output_type_corrects_both_mistakes() -> None:
    model = ScriptedModel(
        [
            ("book", {"passenger": {"name": "Ada", "age": 36}}),
            ("book", {"passenger": {"name": "Ada Lovelace", "age": 36}}),
            '{"code": "bk-lovelace", "seats": 1}',
            '{"code": "BK-LOVELACE", "seats": 1}',
        ]
    )

    result = st.ToolLoop(model).run("Book Ada.", tools=[book], output_type=Booking)

    assert result.output == Booking(code="BK-LOVELACE", seats=1)
    assert [message.content for message in result.messages[1:]] == [
        "",
        "Invalid arguments for tool 'book': argument 'passenger.name' is not valid: give the "
        "first and the last name. Call it again with corrected arguments.",
        "",
        '{"code": "BK-LOVELACE", "seats": 1}',
        '{"code": "bk-lovelace", "seats": 1}',
        "Your answer could not be read as Booking: field 'code' is not valid: codes are upper "
        'case. Answer again with only a JSON value matching this schema: {"description":"A '
        'booked flight.","properties":{"code":{"description":"Booking code","type":"string"},'
        '"seats":{"minimum":1,"type":"integer"}},"required":["code","seats"],"type":"object"}',
        '{"code": "BK-LOVELACE", "seats": 1}',
    ]
    assert isinstance(result.messages[4], st.ToolMessage)
    assert result.messages[4].is_error is False


def test_a_schema_check_of_the_output_speaks_of_fields() -> None:
    model = ScriptedModel(['{"code": "AB"}', '{"code": "AB", "seats": 2}'])

    result = st.ToolLoop(model).run("Book.", output_type=Booking)

    assert result.output == Booking(code="AB", seats=2)
    assert result.messages[2].content.startswith(
        "Your answer could not be read as Booking: missing required field 'seats'."
    )


class Node(BaseModel):
    children: list[Node] = []


def test_a_model_that_contains_itself_is_refused_with_a_path() -> None:
    def walk(root: Node) -> str:
        """Walk a tree."""
        return "ok"

    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.from_function(walk)

    assert str(caught.value) == (
        "walk.root: type Node contains itself; recursive types are not supported "
        "Hint: give the tool an explicit schema, or flatten the type"
    )


def test_statetools_does_not_import_pydantic() -> None:
    code = "import sys, statetools\nprint('pydantic' in sys.modules)\n"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )

    assert (done.returncode, done.stdout) == (0, "False\n")
