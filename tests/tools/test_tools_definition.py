"""Defining tools: names, descriptions, explicit schemas, metadata, derived copies."""

from __future__ import annotations

from typing import Any

import pytest

import statetools as st

NAME_HINT = "use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'"


def echo(text: str) -> str:
    """Repeat the text."""
    return text


@pytest.mark.parametrize("name", ["a", "search_orders", "get-user", "X9", "n" * 64])
def test_valid_names(name: str) -> None:
    assert st.Tool.create(name, "D", lambda: "").name == name


@pytest.mark.parametrize("name", ["", "has space", "dot.name", "slash/name", "n" * 65, "ümlaut"])
def test_invalid_names_are_a_clear_definition_error(name: str) -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.create(name, "D", lambda: "")
    assert str(caught.value) == f"tool {name!r}: invalid tool name {name!r} Hint: {NAME_HINT}"


def test_invalid_names_are_refused_by_every_constructor() -> None:
    with pytest.raises(st.DefinitionError, match="invalid tool name 'a b'"):
        st.Tool.from_function(echo, name="a b")
    with pytest.raises(st.DefinitionError, match="invalid tool name"):
        st.Tool(name="a b", description="D", handler=lambda: "")


def test_lambdas_need_an_explicit_name() -> None:
    with pytest.raises(st.DefinitionError, match="invalid tool name '<lambda>'"):
        st.Tool.from_function(lambda: "", description="D")


def test_a_tool_needs_a_description() -> None:
    def undocumented() -> None:
        pass

    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.from_function(undocumented)
    assert str(caught.value) == (
        "tool 'undocumented': tool has no description Hint: write a docstring or pass description="
    )
    with pytest.raises(st.DefinitionError, match="a tool needs a description, got '  '"):
        st.Tool.create("t", "  ", lambda: "")


def test_create_derives_the_schema_from_the_handler_without_schema() -> None:
    tool = st.Tool.create("echo", "Echo", echo)
    assert tool.input_schema == {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    assert tool.description == "Echo"


def test_create_with_an_explicit_schema_still_converts_and_injects() -> None:
    schema = st.InputSchema.of(
        st.Parameter.string("text", "Text"), st.Parameter.integer("times", "Times", required=False)
    )

    def repeat(text: str, ctx: st.ToolCallContext, times: int = 1) -> str:
        return f"{ctx['sep']}".join([text] * times)

    tool = st.Tool.create("repeat", "Repeat", repeat, schema=schema)
    assert tool.input_schema == schema
    assert tool.call({"text": "ab", "times": 3}, {"sep": "-"}).text == "ab-ab-ab"


def test_explicit_schema_is_copied() -> None:
    schema = st.InputSchema.of(st.Parameter.string("text", "Text"))
    tool = st.Tool.create("echo", "Echo", echo, schema=schema)
    schema["properties"]["text"]["type"] = "integer"
    assert tool.input_schema["properties"]["text"]["type"] == "string"


def test_explicit_schema_lets_unsupported_annotations_through() -> None:
    def send(payload: bytes) -> str:
        return str(len(payload))

    schema = st.InputSchema.of(st.Parameter.string("payload", "Base85 text"))
    assert st.Tool.create("send", "Send", send, schema=schema).call({"payload": "VPX"}).text == "2"


def test_schema_properties_the_handler_does_not_accept() -> None:
    schema = st.InputSchema.of(st.Parameter.string("text", "T"), st.Parameter.string("lang", "L"))
    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.create("echo", "Echo", echo, schema=schema)
    assert caught.value.message == "the schema has properties the handler does not accept: lang"
    assert caught.value.path == "echo"


def test_handler_parameters_the_schema_does_not_require() -> None:
    schema = st.InputSchema.of(st.Parameter.string("text", "T", required=False))
    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.create("echo", "Echo", echo, schema=schema)
    assert caught.value.message == ("the handler needs arguments the schema does not require: text")
    assert caught.value.hint == "list them under 'required' in the schema, or give them defaults"


def test_handler_with_kwargs_accepts_any_schema() -> None:
    def anything(**kwargs: Any) -> str:
        return ",".join(sorted(kwargs))

    schema = st.InputSchema.of(st.Parameter.string("a", "A"), st.Parameter.string("b", "B"))
    assert st.Tool.create("any", "Any", anything, schema=schema).call(
        {"a": "1", "b": "2"}
    ).text == ("a,b")


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "string"}, "input schema must have type 'object', got 'string'"),
        ({"properties": {}}, "input schema must have type 'object', got None"),
        (
            {"type": "object", "properties": {"n": {"type": "integr"}}},
            "invalid input schema: 'integr' is not valid under any of the given schemas",
        ),
        (
            {"type": "object", "required": "n"},
            "invalid input schema: 'n' is not of type 'array'",
        ),
    ],
)
def test_bad_schemas_are_a_definition_error(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.create("t", "T", lambda **kw: "", schema=schema)
    assert caught.value.message == message
    assert caught.value.path == "tool 't'"


def test_handler_must_be_callable() -> None:
    with pytest.raises(st.DefinitionError, match="a tool handler must be callable, got 42"):
        st.Tool.create("t", "T", 42)  # type: ignore[arg-type]


def test_metadata_from_object_or_mapping() -> None:
    tool = st.Tool.create("t", "T", lambda: "", metadata={"return_direct": True, "category": "io"})
    assert tool.metadata == st.ToolMetadata(return_direct=True, category="io")
    assert st.Tool.create("u", "U", lambda: "").metadata == st.ToolMetadata()
    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.create("t", "T", lambda: "", metadata={"direct": True})
    assert str(caught.value) == (
        "unknown metadata keys: direct Hint: metadata takes return_direct, category, timeout "
        "and on_loop_thread"
    )


def test_with_description_returns_a_new_tool() -> None:
    tool = st.Tool.from_function(echo)
    changed = tool.with_description("Say it again")
    assert (tool.description, changed.description) == ("Repeat the text.", "Say it again")
    assert isinstance(changed, st.Tool)
    assert changed.call({"text": "x"}).text == "x"
    assert changed.input_schema == tool.input_schema


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("Repeat the text.", "Repeat the text. Only for short texts"),
        ("Repeat the text", "Repeat the text. Only for short texts"),
        ("Repeat the text.  ", "Repeat the text. Only for short texts"),
    ],
)
def test_with_note_appends_dot_note(description: str, expected: str) -> None:
    tool = st.Tool.create("echo", description, echo)
    assert tool.with_note("Only for short texts").description == expected


def test_tools_are_immutable_and_compare_by_value() -> None:
    import attrs

    tool = st.Tool.from_function(echo)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        tool.name = "other"  # type: ignore[misc]
    assert tool == st.Tool.from_function(echo)
    assert tool != tool.with_note("x")
    assert len({tool, st.Tool.from_function(echo)}) == 1


def test_base_tool_subclasses_get_a_sync_call() -> None:
    import attrs

    @attrs.frozen(kw_only=True)
    class Clock(st.BaseTool):
        async def acall(self, arguments: Any = None, context: Any = None) -> st.ToolResult:
            return st.ToolResult.text("12:00")

    clock = Clock(name="clock", description="The time")
    assert clock.input_schema == st.InputSchema.empty()
    assert clock.call().text == "12:00"
    assert clock.with_note("UTC").description == "The time. UTC"


def test_partials_and_callable_objects_are_handlers() -> None:
    import functools

    def scale(x: float, factor: float) -> float:
        """Scale a number."""
        return x * factor

    double = st.Tool.from_function(functools.partial(scale, factor=2.0), name="double")
    assert double.description == "Scale a number."
    assert double.call({"x": 1.5}).text == "3.0"

    class Counter:
        """Count up by a step."""

        def __init__(self) -> None:
            self.total = 0

        def __call__(self, step: int = 1) -> int:
            self.total += step
            return self.total

    counter = st.Tool.from_function(Counter(), name="count")
    assert counter.description == "Count up by a step."
    assert counter.input_schema["properties"] == {"step": {"type": "integer", "default": 1}}
    assert counter.call({"step": 3}).text == "3"


def test_unnamed_callables_need_a_name() -> None:
    import functools

    with pytest.raises(st.DefinitionError) as caught:
        st.Tool.from_function(functools.partial(echo), description="D")
    assert caught.value.message.startswith("cannot name a tool for functools.partial(")
    assert caught.value.hint == "pass name= to Tool.from_function"


def test_a_docstring_is_parsed_once_and_only_when_it_names_a_parameter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import docstring_parser

    from statetools.tools import descriptions as docstrings

    parsed: list[str] = []
    real = docstring_parser.parse

    def counting(text: str, *args: Any, **kwargs: Any) -> Any:
        parsed.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(docstrings.docstring_parser, "parse", counting)
    docstrings._described.cache_clear()

    def plain(x: int) -> str:
        """Look up record 7 in the registry."""
        return "r"

    def described(limit: int) -> str:
        """List the records.

        Args:
            limit: How many records at most.
        """
        return "r"

    st.Tool.from_function(plain, name="plain_a", description="Look up.")
    assert parsed == []  # the text never names `x`: nothing to find in it
    first = st.Tool.from_function(described, name="described_a", description="List.")
    second = st.Tool.from_function(described, name="described_b", description="List.")
    assert len(parsed) == 1  # the same docstring is read once
    for tool in (first, second):
        assert (
            tool.input_schema["properties"]["limit"]["description"] == "How many records at most."
        )
