"""Facades from classes: @unfolding_tools, nested classes, categories, from_tool_object."""

from __future__ import annotations

import pytest

import statetools as st
from statetools.models import ScriptedModel


@st.unfolding_tools("labels", "Open the label tools.")
class Labels:
    @st.llm_tool("List the labels.")
    def list_labels(self) -> str:
        return "bug, docs"


@st.unfolding_tools("repo", "Open the repository tools.", usage_notes="Read before you write.")
class Repo:
    def __init__(self, name: str) -> None:
        self.name = name
        self.labels = Labels()
        self.stars = 0

    @st.llm_tool("Read a file of the repository.", category="read")
    def read(self, path: str) -> str:
        return f"{self.name}/{path}"

    @st.llm_tool("Star the repository.", category="write")
    def star(self) -> str:
        self.stars += 1
        return f"{self.stars} stars"

    @st.llm_tool("Say which repository this is.")
    def which(self) -> str:
        return self.name

    @st.unfolding_tools("admin", "Open the admin tools.")
    class Admin:
        @st.llm_tool("Archive the repository.")
        def archive(self) -> str:
            return "archived"


def test_a_decorated_object_is_one_facade_with_categories_and_nested_facades() -> None:
    repo = Repo("statetools")
    (facade,) = st.tools_from_instance(repo)
    assert isinstance(facade, st.UnfoldingTool)
    assert (facade.name, facade.description, facade.usage_notes) == (
        "repo",
        "Open the repository tools.",
        "Read before you write.",
    )
    assert [t.name for t in facade.inner] == ["read", "star", "which", "admin", "labels"]
    assert facade.categories == (
        ("read", ("read", "which", "admin", "labels")),
        ("write", ("star", "which", "admin", "labels")),
    )
    again = st.as_tool(repo)
    assert isinstance(again, st.UnfoldingTool)
    assert [t.name for t in again.inner] == [t.name for t in facade.inner]


def test_the_facade_of_an_object_runs_in_the_loop_on_that_object() -> None:
    repo = Repo("statetools")
    model = ScriptedModel(
        [
            ("repo", {"category": "write"}),
            ("star", {}),
            ("labels", {}),
            ("list_labels", {}),
            "ok",
        ]
    )
    result = st.ToolLoop(model).run("go", tools=[repo])
    assert [r.tool_names for r in model.requests] == [
        ["repo"],
        ["repo", "star", "which", "admin", "labels"],
        ["repo", "star", "which", "admin", "labels"],
        ["repo", "star", "which", "admin", "list_labels"],
        ["repo", "star", "which", "admin", "list_labels"],
    ]
    texts = [m.content for m in result.messages if isinstance(m, st.ToolMessage)]
    assert texts == [
        "Tools now available: star, which, admin, labels.\n\nRead before you write.",
        "1 stars",
        "Tools now available: list_labels.",
        "bug, docs",
    ]
    assert repo.stars == 1


def test_from_instance_needs_a_decorated_class() -> None:
    with pytest.raises(st.DefinitionError, match="is not an instance of an @unfolding_tools"):
        st.UnfoldingTool.from_instance(object())
    with pytest.raises(st.DefinitionError, match="is not an instance of an @unfolding_tools"):
        st.UnfoldingTool.from_instance(Repo)


class Calculator:
    """A class we pretend we cannot change."""

    def add(self, a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    def _secret(self) -> int:
        """Not for the model."""
        return 0

    def undocumented(self) -> int:
        return 1


def test_from_tool_object_uses_public_documented_methods() -> None:
    facade = st.UnfoldingTool.from_tool_object(Calculator(), "calc", "Open the calculator.")
    assert [t.name for t in facade.inner] == ["add"]
    assert facade.call({"add": {"a": 2, "b": 3}}).text == "5"


def test_from_tool_object_prefers_llm_tool_methods() -> None:
    class Marked:
        @st.llm_tool("Ping.")
        def ping(self) -> str:
            return "pong"

        def other(self) -> str:
            """Also documented."""
            return ""

    facade = st.UnfoldingTool.from_tool_object(Marked(), "m", "Open m.", exclusive=True)
    assert [t.name for t in facade.inner] == ["ping"]
    assert facade.exclusive


def test_an_object_with_nothing_to_offer_is_a_definition_error() -> None:
    class Empty:
        pass

    with pytest.raises(st.DefinitionError, match="Empty offers no tools"):
        st.UnfoldingTool.from_tool_object(Empty(), "e", "Open e.")


def test_a_nested_class_that_needs_arguments_is_explained() -> None:
    @st.unfolding_tools("outer", "Open outer.")
    class Outer:
        @st.unfolding_tools("inner", "Open inner.")
        class Inner:
            def __init__(self, token: str) -> None:
                self.token = token

            @st.llm_tool("Use the token.")
            def use(self) -> str:
                return self.token

    with pytest.raises(st.DefinitionError) as caught:
        st.tools_from_instance(Outer())
    assert "cannot create the nested facade" in str(caught.value)
    assert "give " in str(caught.value)
    assert "an attribute holding a Inner object" in str(caught.value)


def test_decorators_check_their_arguments() -> None:
    with pytest.raises(st.DefinitionError, match="a facade needs a description"):
        st.unfolding_tools("x", " ")
    with pytest.raises(st.DefinitionError, match="invalid tool name"):
        st.unfolding_tools("bad name", "Open.")
    with pytest.raises(st.DefinitionError, match="decorates classes"):
        st.unfolding_tools("x", "Open.")(len)  # type: ignore[type-var]
    with pytest.raises(st.DefinitionError, match="invalid tool_provider prefix"):
        st.tool_provider(prefix="a b")
    with pytest.raises(st.DefinitionError, match="has no @llm_tool methods"):

        @st.tool_provider
        class Nothing:
            pass
