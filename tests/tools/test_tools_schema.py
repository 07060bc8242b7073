"""Input schemas: hand-written with Parameter/InputSchema and derived from signatures."""

from __future__ import annotations

import dataclasses
import datetime
import enum
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NewType, Optional

import attrs
import pytest

import statetools as st
from statetools.tools.schema import type_schema


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Item:
    sku: str
    qty: int = 1


@attrs.frozen
class Address:
    """Where to deliver.

    Attributes:
        city: City name.
    """

    city: str
    street: Annotated[str, st.Param("Street and number")] = ""


@attrs.frozen
class Order:
    customer: str
    items: list[Item]
    address: Address | None = None
    color: Color = Color.RED


def _object(properties: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
        **extra,
    }


# --- Parameter and InputSchema ------------------------------------------------------


def test_input_schema_of_builds_an_exact_object_schema() -> None:
    schema = st.InputSchema.of(
        st.Parameter.string("q", "Query"),
        st.Parameter.integer("n", "Count", required=False),
        st.Parameter.number("min_score", "Lowest score", required=False),
        st.Parameter.boolean("exact", "Exact match only"),
        st.Parameter.string("sort", "Sort order", enum=["asc", "desc"]),
    )
    assert schema == _object(
        {
            "q": {"type": "string", "description": "Query"},
            "n": {"type": "integer", "description": "Count"},
            "min_score": {"type": "number", "description": "Lowest score"},
            "exact": {"type": "boolean", "description": "Exact match only"},
            "sort": {"type": "string", "description": "Sort order", "enum": ["asc", "desc"]},
        },
        ["q", "exact", "sort"],
    )


def test_integer_and_number_parameters_take_enums() -> None:
    assert st.Parameter.integer("size", "Size", enum=[1, 2]).schema == {
        "type": "integer",
        "description": "Size",
        "enum": [1, 2],
    }
    assert st.Parameter.number("rate", "Rate", enum=[0.5, 1]).schema["enum"] == [0.5, 1]


def test_array_parameter_takes_a_schema_or_a_python_type_for_its_items() -> None:
    assert st.Parameter.array("ids", "Ids", {"type": "integer"}).schema == {
        "type": "array",
        "description": "Ids",
        "items": {"type": "integer"},
    }
    assert st.Parameter.array("tags", "Tags", list[str]).schema["items"] == {
        "type": "array",
        "items": {"type": "string"},
    }
    assert st.Parameter.array("any", "Anything").schema["items"] == {}


def test_object_parameter_with_nested_parameters_requires_and_closes_them() -> None:
    parameter = st.Parameter.object(
        "to",
        "Recipient",
        [
            st.Parameter.string("email", "Address"),
            st.Parameter.string("name", "Name", required=False),
        ],
        required=False,
    )
    assert parameter.required is False
    assert parameter.schema == {
        "type": "object",
        "description": "Recipient",
        "properties": {
            "email": {"type": "string", "description": "Address"},
            "name": {"type": "string", "description": "Name"},
        },
        "required": ["email"],
        "additionalProperties": False,
    }


def test_object_parameter_with_a_mapping_of_schemas_or_nothing() -> None:
    mapped = st.Parameter.object("meta", "Metadata", {"k": {"type": "string"}})
    assert mapped.schema == {
        "type": "object",
        "description": "Metadata",
        "properties": {"k": {"type": "string"}},
    }
    assert st.Parameter.object("any", "Anything").schema == {
        "type": "object",
        "description": "Anything",
    }


def test_empty_input_schema() -> None:
    assert st.InputSchema.of() == st.InputSchema.empty() == _object({}, [])


def test_duplicate_parameter_names_are_rejected() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.InputSchema.of(st.Parameter.string("q", "A"), st.Parameter.integer("q", "B"))
    assert str(caught.value) == (
        "duplicate parameter names: q Hint: give every parameter of a tool its own name"
    )


def test_input_schema_of_rejects_things_that_are_not_parameters() -> None:
    with pytest.raises(st.DefinitionError, match=r"InputSchema\.of takes Parameter objects"):
        st.InputSchema.of({"type": "string"})  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["", "has space", "a/b", "x" * 65, "ünicode"])
def test_parameter_names_must_suit_every_provider(name: str) -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.Parameter.string(name, "desc")
    assert caught.value.message == f"invalid parameter name {name!r}"
    assert caught.value.hint == "use 1 to 64 characters from a-z, A-Z, 0-9, '_', '.' and '-'"


def test_enum_values_must_match_the_parameter_type() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.Parameter.integer("n", "Count", enum=[1, "two"])  # type: ignore[list-item]
    assert caught.value.message == "enum values ['two'] are not of type integer"
    assert caught.value.path == "parameter 'n'"
    with pytest.raises(st.DefinitionError, match="enum is empty"):
        st.Parameter.string("s", "S", enum=[])


# --- type_schema ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (Any, {}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (list, {"type": "array", "items": {}}),
        (set[str], {"type": "array", "items": {"type": "string"}}),
        (Sequence[float], {"type": "array", "items": {"type": "number"}}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "items": False,
                "minItems": 2,
            },
        ),
        (dict, {"type": "object"}),
        (dict[str, Any], {"type": "object"}),
        (Mapping[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (Optional[int], {"type": ["integer", "null"]}),  # noqa: UP045
        (int | str, {"type": ["integer", "string"]}),
        (int | Any, {}),
        (Color, {"type": "string", "enum": ["red", "green"]}),
        (Priority, {"type": "integer", "enum": [1, 2]}),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, "x"], {"enum": [1, "x"]}),
        (Literal["a"] | None, {"type": ["string", "null"], "enum": ["a", None]}),
        (Color | None, {"type": ["string", "null"], "enum": ["red", "green", None]}),
        (
            list[int] | None,
            {"type": ["array", "null"], "items": {"type": "integer"}},
        ),
        (
            int | list[int],
            {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]},
        ),
        (datetime.date, {"type": "string", "format": "date"}),
        (datetime.datetime, {"type": "string", "format": "date-time"}),
        (NewType("UserId", str), {"type": "string"}),
        (
            Annotated[int, st.Param("Hits wanted", schema={"minimum": 1})],
            {"type": "integer", "description": "Hits wanted", "minimum": 1},
        ),
    ],
)
def test_type_schema(annotation: Any, expected: dict[str, Any]) -> None:
    assert type_schema(annotation) == expected


def test_nested_attrs_classes_and_dataclasses() -> None:
    assert type_schema(Order) == _object(
        {
            "customer": {"type": "string"},
            "items": {
                "type": "array",
                "items": _object(
                    {"sku": {"type": "string"}, "qty": {"type": "integer", "default": 1}},
                    ["sku"],
                ),
            },
            "address": {
                **_object(
                    {
                        "city": {"type": "string", "description": "City name."},
                        "street": {
                            "type": "string",
                            "description": "Street and number",
                            "default": "",
                        },
                    },
                    ["city"],
                    description="Where to deliver.",
                ),
                "type": ["object", "null"],
                "default": None,
            },
            "color": {"type": "string", "enum": ["red", "green"], "default": "red"},
        },
        ["customer", "items"],
    )


def test_private_attrs_fields_use_the_name_cattrs_reads() -> None:
    @attrs.define
    class Secret:
        _token: str
        hidden: int = attrs.field(default=0, init=False)
        tags: list[str] = attrs.Factory(list)

    assert type_schema(Secret) == _object(
        {"_token": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
        ["_token"],
    )


def test_unsupported_types_name_the_path_and_say_what_to_do() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        type_schema(bytes, where="upload.data")
    assert str(caught.value) == (
        "upload.data: cannot describe type bytes as JSON schema Hint: use str, int, float, "
        "bool, enums, Literal, lists, dicts, attrs classes, dataclasses or pydantic models, "
        "or give the tool an explicit schema"
    )


@dataclasses.dataclass
class Blob:
    data: bytes


@dataclasses.dataclass
class Upload:
    files: list[Blob]


@dataclasses.dataclass
class Node:
    name: str
    children: list[Node]


def test_unsupported_nested_types_name_the_full_path() -> None:
    def upload(batch: Upload) -> str:
        """Upload files."""
        return "ok"

    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.from_function(upload)
    assert caught.value.path == "upload.batch.files[].data"
    assert caught.value.message == "cannot describe type bytes as JSON schema"


def test_recursive_types_are_refused_with_a_hint() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        type_schema(Node, where="tree")
    assert caught.value.message == ("type Node contains itself; recursive types are not supported")
    assert caught.value.path == "tree.children[]"
    assert caught.value.hint == "give the tool an explicit schema, or flatten the type"


# --- schemas from signatures -----------------------------------------------------------


def test_from_function_schema_from_signature() -> None:
    def search(
        q: Annotated[str, st.Param("Search query")],
        n: int = 5,
        sort: Literal["asc", "desc"] = "desc",
        since: datetime.date | None = None,
        color: Color | None = None,
        ctx: st.ToolCallContext | None = None,
    ) -> list[str]:
        """Search the catalogue."""
        return []

    tool = st.Tool.from_function(search)
    assert tool.name == "search"
    assert tool.description == "Search the catalogue."
    assert tool.input_schema == {
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": "Search query"},
            "n": {"type": "integer", "default": 5},
            "sort": {"type": "string", "enum": ["asc", "desc"], "default": "desc"},
            "since": {"type": ["string", "null"], "format": "date", "default": None},
            "color": {
                "type": ["string", "null"],
                "enum": ["red", "green", None],
                "default": None,
            },
        },
        "required": ["q"],
        "additionalProperties": False,
    }


def test_descriptions_from_the_docstring_args_section() -> None:
    def book(
        flight: str, seats: Annotated[int, st.Param("How many seats")] = 1, *, note: str = ""
    ) -> str:
        """Book seats on a flight.

        Use it only after the user confirmed.

        Args:
            flight: Flight number,
                like LH123.
            seats: Ignored because Param wins.
            note: A note for the crew.
        """
        return "ok"

    tool = st.Tool.from_function(book)
    assert tool.description == "Book seats on a flight."
    assert tool.input_schema["properties"] == {
        "flight": {"type": "string", "description": "Flight number, like LH123."},
        "seats": {"type": "integer", "description": "How many seats", "default": 1},
        "note": {"type": "string", "description": "A note for the crew.", "default": ""},
    }


def test_description_is_the_first_paragraph_on_one_line() -> None:
    def f() -> None:
        """Look up the weather
        for a city.

        Uses a slow service.
        """

    assert st.Tool.from_function(f).description == "Look up the weather for a city."


def test_description_argument_wins_over_the_docstring() -> None:
    def f() -> None:
        """Docstring."""

    assert st.Tool.from_function(f, description="Given").description == "Given"


def test_kwargs_allow_extra_arguments_and_args_are_ignored() -> None:
    def f(a: int, *rest: int, **more: Any) -> str:
        """F."""
        return f"{a} {sorted(more.items())}"

    tool = st.Tool.from_function(f)
    assert tool.input_schema == {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": True,
    }
    assert tool.call({"a": 1, "b": 2}).text == "1 [('b', 2)]"


def test_unannotated_parameters_accept_any_json() -> None:
    def f(x, y=None):  # type: ignore[no-untyped-def]
        """F."""
        return x

    assert st.Tool.from_function(f).input_schema["properties"] == {
        "x": {},
        "y": {"default": None},
    }


def test_non_json_defaults_are_not_shown() -> None:
    sentinel = object()

    def f(a: Any = sentinel, b: list[int] = [1, 2]) -> None:  # noqa: B006
        """F."""

    assert st.Tool.from_function(f).input_schema["properties"] == {
        "a": {},
        "b": {"type": "array", "items": {"type": "integer"}, "default": [1, 2]},
    }


def test_positional_only_parameters_are_refused() -> None:
    def f(a: int, /) -> None:
        """F."""

    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.from_function(f)
    assert caught.value.path == "f"
    assert "parameter 'a' of" in caught.value.message
    assert caught.value.message.endswith("is positional-only")


def test_unresolvable_annotations_are_a_definition_error() -> None:
    def f(a: NoSuchType) -> None:  # type: ignore[name-defined]  # noqa: F821
        """F."""

    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.from_function(f)
    assert caught.value.path == "f"
    assert "name 'NoSuchType' is not defined" in caught.value.message
    assert caught.value.hint == (
        "make every annotation importable, or give the tool an explicit schema"
    )


def test_unsupported_parameter_type_names_tool_and_parameter() -> None:
    def send(payload: bytes) -> None:
        """Send bytes."""

    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.from_function(send)
    assert caught.value.path == "send.payload"


def test_rest_and_numpy_docstrings_describe_parameters_too() -> None:
    def rest(q: str) -> None:
        """Search.

        :param q: The query.
        """

    def numpy(q: str) -> None:
        """Search.

        Parameters
        ----------
        q : str
            The query.
        """

    for fn in (rest, numpy):
        tool = st.Tool.from_function(fn)
        assert tool.description == "Search."
        assert tool.input_schema["properties"] == {
            "q": {"type": "string", "description": "The query."}
        }


def test_local_classes_with_unresolvable_annotations_say_so() -> None:
    @dataclasses.dataclass
    class Pair:
        left: Later  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(st.DefinitionError) as caught:
        type_schema(Pair, where="join.pair")
    assert caught.value.path == "join.pair"
    assert caught.value.message == (
        "cannot resolve the annotations of "
        "test_local_classes_with_unresolvable_annotations_say_so.<locals>.Pair: "
        "name 'Later' is not defined"
    )
