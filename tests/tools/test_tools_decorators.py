"""@llm_tool, as_tool and tools_from_instance."""

from __future__ import annotations

from typing import Annotated

import pytest

import statetools as st


@st.llm_tool("Add two numbers", category="math", return_direct=True)
def add(a: int, b: int) -> int:
    return a + b


@st.llm_tool
def shout(text: str) -> str:
    """Say it loudly.

    Args:
        text: What to say.
    """
    return text.upper()


class Library:
    """Tools on an object: defined out of alphabetical order on purpose."""

    def __init__(self) -> None:
        self.books: list[str] = []

    @st.llm_tool("Shelve a book")
    def shelve(self, title: Annotated[str, st.Param("Book title")]) -> str:
        self.books.append(title)
        return f"{len(self.books)} books"

    @st.llm_tool("List the books", name="list_books")
    def books_on_shelf(self) -> list[str]:
        return list(self.books)

    @staticmethod
    @st.llm_tool("Normalise a title")
    def normalise(title: str) -> str:
        return title.strip().title()

    @st.llm_tool("How many shelves a library has")
    @classmethod
    def shelves(cls) -> int:
        return 3

    def helper(self) -> str:
        return "not a tool"


class BranchLibrary(Library):
    @st.llm_tool("Close the branch")
    def close(self) -> str:
        return "closed"

    def shelve(self, title: str) -> str:  # overridden without the decorator: not a tool
        return "no"


def test_llm_tool_keeps_the_function_callable() -> None:
    assert add(2, 3) == 5
    assert shout("hi") == "HI"


def test_llm_tool_function_as_tool() -> None:
    tool = st.as_tool(add)
    assert isinstance(tool, st.Tool)
    assert (tool.name, tool.description) == ("add", "Add two numbers")
    assert tool.metadata == st.ToolMetadata(return_direct=True, category="math")
    assert tool.input_schema == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    assert tool.call({"a": 2, "b": 3}).text == "5"


def test_bare_llm_tool_uses_the_docstring() -> None:
    tool = st.as_tool(shout)
    assert tool.description == "Say it loudly."
    assert tool.input_schema["properties"] == {
        "text": {"type": "string", "description": "What to say."}
    }


def test_llm_tool_refuses_bad_names_and_missing_descriptions_at_once() -> None:
    with pytest.raises(st.DefinitionError, match="invalid tool name 'bad name'"):
        st.llm_tool("D", name="bad name")
    with pytest.raises(st.DefinitionError) as caught:

        @st.llm_tool()
        def nothing() -> None:
            pass

    assert str(caught.value) == (
        "tool 'nothing': tool has no description "
        "Hint: pass @llm_tool('what it does') or write a docstring"
    )


def test_tools_from_instance_in_definition_order_bound_to_the_object() -> None:
    library = Library()
    tools = st.tools_from_instance(library)
    assert [t.name for t in tools] == ["shelve", "list_books", "normalise", "shelves"]
    shelve, list_books, normalise, shelves = tools
    assert shelve.input_schema["properties"] == {
        "title": {"type": "string", "description": "Book title"}
    }
    assert shelve.call({"title": "Dune"}).text == "1 books"
    assert list_books.call().value == ["Dune"]
    assert library.books == ["Dune"]
    assert normalise.call({"title": " the hobbit "}).text == "The Hobbit"
    assert shelves.call().text == "3"
    assert shelves.input_schema["properties"] == {}


def test_tools_from_instance_of_a_subclass_respects_overrides() -> None:
    tools = st.tools_from_instance(BranchLibrary())
    assert [t.name for t in tools] == ["list_books", "normalise", "shelves", "close"]


def test_each_instance_gets_its_own_tools() -> None:
    first, second = Library(), Library()
    st.tools_from_instance(first)[0].call({"title": "A"})
    assert (first.books, second.books) == (["A"], [])


def test_bound_methods_can_be_passed_directly() -> None:
    library = Library()
    tool = st.as_tool(library.shelve)
    assert tool.call({"title": "B"}).text == "1 books"
    assert library.books == ["B"]


def test_tools_from_instance_without_tools_is_an_error() -> None:
    class Plain:
        def method(self) -> None:
            """Not marked."""

    with pytest.raises(st.DefinitionError) as caught:
        st.tools_from_instance(Plain())
    assert caught.value.message == (
        "test_tools_from_instance_without_tools_is_an_error.<locals>.Plain has no @llm_tool methods"
    )
    assert caught.value.hint == "mark the methods the model may call with @llm_tool('description')"


def test_tools_from_instance_needs_an_instance() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.tools_from_instance(Library)
    assert str(caught.value) == (
        "tools_from_instance needs an instance, got the class Library "
        "Hint: pass an object: tools_from_instance(Library(...))"
    )


def test_as_tool_passes_tools_through_and_converts_functions() -> None:
    tool = st.Tool.create("t", "T", lambda: "")
    assert st.as_tool(tool) is tool

    def documented(x: int) -> int:
        """Double x."""
        return 2 * x

    assert st.as_tool(documented).call({"x": 4}).text == "8"


def test_as_tool_refuses_other_things() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.as_tool(42)
    assert str(caught.value) == (
        "42 is not a tool Hint: pass Tool objects, functions, objects' methods marked "
        "with @llm_tool (use tools_from_instance(obj) for a whole object), or tools of "
        "LangChain, pydantic-ai or openai-agents"
    )


def test_unbound_marked_methods_are_refused() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.as_tool(Library.shelve)
    assert str(caught.value) == (
        "Library.shelve is a method; a tool needs it bound to an object "
        "Hint: pass obj.method, or tools_from_instance(obj) for all of them"
    )


def test_from_function_uses_the_llm_tool_marks() -> None:
    @st.llm_tool("Ship it.", name="ship_order", category="write", return_direct=True)
    def ship() -> str:
        return "shipped"

    tool = st.Tool.from_function(ship)
    assert (tool.name, tool.description) == ("ship_order", "Ship it.")
    assert tool.metadata == st.ToolMetadata(return_direct=True, category="write")
    assert st.Tool.from_function(ship, name="other", description="Other.").name == "other"
