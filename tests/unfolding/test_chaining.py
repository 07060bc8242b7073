"""Tool chaining: methods of returned objects become tools; the newest object wins."""

from __future__ import annotations

import pytest

import statetools as st
from statetools.engine.events import CallBlocked, ToolsInjected, ToolsRemoved
from statetools.models import ScriptedModel


class Repo:
    def __init__(self, name: str, archived: bool = False) -> None:
        self.name = name
        self.archived = archived
        self.stars = 0

    @st.llm_tool("Star the repository.")
    def star(self) -> str:
        self.stars += 1
        return f"{self.name}: {self.stars} stars"

    @st.llm_tool("Rename the repository.")
    def rename(self, new_name: str) -> str:
        self.name = new_name
        return f"renamed to {new_name}"


class Issue:
    def __init__(self, number: int) -> None:
        self.number = number
        self.closed = False

    @st.llm_tool("Close the issue.")
    def close(self) -> str:
        self.closed = True
        return f"#{self.number} closed"


OPENED: dict[str, Repo] = {}


def open_repo(name: str, archived: bool = False) -> Repo:
    """Open a repository by name."""
    OPENED[name] = Repo(name, archived)
    return st.ToolResult.artifact(OPENED[name], text=f"opened {name}")  # type: ignore[return-value]


def open_issue(number: int) -> Issue:
    """Open an issue by number."""
    return Issue(number)


@pytest.fixture(autouse=True)
def _clear() -> None:
    OPENED.clear()


def texts(result: st.LoopResult) -> list[str]:
    return [m.content for m in result.messages if isinstance(m, st.ToolMessage)]


def test_chained_tools_are_declared_from_the_start_and_bind_to_the_newest_object() -> None:
    model = ScriptedModel(
        [
            ("star", {}),
            ("open_repo", {"name": "first"}),
            ("star", {}),
            ("open_repo", {"name": "second"}),
            ("star", {}),
            ("rename", {"new_name": "renamed"}),
            "ok",
        ]
    )
    loop = st.ToolLoop(model).with_tool_chaining_from(Repo)
    result = loop.run("go", tools=[open_repo])

    assert all(r.tool_names == ["open_repo", "star", "rename"] for r in model.requests)
    declared = {t.name: (t.description, t.input_schema) for t in model.requests[0].tools}
    assert (
        declared["star"][0]
        == "Star the repository. Needs a Repo returned by another tool first; uses the latest one"
    )
    assert declared["rename"][1]["properties"] == {"new_name": {"type": "string"}}
    assert texts(result)[0] == "Tool 'star' needs a Repo first. Call first: open_repo."
    assert result.trace.of_type(CallBlocked)[0].name == "star"
    assert texts(result)[1:] == [
        "opened first\n[now available: star, rename]",  # issue 30: said as after unlocks
        "first: 1 stars",
        "opened second",
        "second: 1 stars",
        "renamed to renamed",
    ]
    assert (OPENED["first"].stars, OPENED["second"].stars) == (1, 1)
    assert (OPENED["first"].name, OPENED["second"].name) == ("first", "renamed")


def test_a_predicate_decides_which_objects_bind() -> None:
    model = ScriptedModel(
        [
            ("open_repo", {"name": "live"}),
            ("open_repo", {"name": "old", "archived": True}),
            ("star", {}),
            "ok",
        ]
    )
    loop = st.ToolLoop(model).with_tool_chaining_from(Repo, predicate=lambda r: not r.archived)
    loop.run("go", tools=[open_repo])
    assert (OPENED["live"].stars, OPENED["old"].stars) == (1, 0)


def test_without_a_known_producer_the_guidance_is_generic() -> None:
    def anything() -> object:
        """Return something."""
        return Repo("x")

    model = ScriptedModel([("star", {}), "ok"])
    result = st.ToolLoop(model).with_tool_chaining_from(Repo).run("go", tools=[anything])
    assert texts(result) == ["Tool 'star' needs a Repo first. Call a tool that returns one."]


def test_chaining_from_any_replaces_the_previous_objects_tools() -> None:
    model = ScriptedModel(
        [
            ("open_repo", {"name": "r"}),
            ("star", {}),
            ("open_issue", {"number": 4}),
            ("star", {}),
            ("close", {}),
            "ok",
        ]
    )
    result = (
        st.ToolLoop(model).with_tool_chaining_from_any().run("go", tools=[open_repo, open_issue])
    )
    assert [r.tool_names for r in model.requests] == [
        ["open_repo", "open_issue"],
        ["open_repo", "open_issue", "star", "rename"],
        ["open_repo", "open_issue", "star", "rename"],
        ["open_repo", "open_issue", "close"],
        ["open_repo", "open_issue", "close"],
        ["open_repo", "open_issue", "close"],
    ]
    assert texts(result)[3] == (
        "Tool 'star' does not exist. Available tools: open_repo, open_issue, close."
    )
    assert texts(result)[4] == "#4 closed"
    assert [(e.names, e.source) for e in result.trace.of_type(ToolsInjected)] == [
        (("star", "rename"), "chaining"),
        (("close",), "chaining"),
    ]
    assert [e.names for e in result.trace.of_type(ToolsRemoved)] == [("star", "rename")]


def test_a_typed_rule_and_from_any_together() -> None:
    model = ScriptedModel(
        [("open_repo", {"name": "r"}), ("open_issue", {"number": 1}), ("star", {}), "ok"]
    )
    loop = st.ToolLoop(model).with_tool_chaining_from(Repo).with_tool_chaining_from_any()
    loop.run("go", tools=[open_repo, open_issue])
    assert model.requests[-1].tool_names == ["open_repo", "open_issue", "star", "rename", "close"]
    assert OPENED["r"].stars == 1


def test_chaining_in_an_agentic_tool_and_in_a_playbook() -> None:
    inner = ScriptedModel([("open_repo", {"name": "a"}), ("star", {}), "starred a"])
    agent = (
        st.SimpleAgenticTool("maintainer", "Looks after a repository.")
        .with_tools(open_repo)
        .with_tool_chaining_from(Repo)
        .with_model(inner)
    )
    outer = ScriptedModel([("maintainer", {"task": "star a"}), "done"])
    st.ToolLoop(outer).run("go", tools=[agent])
    assert outer.requests[0].tool_names == ["maintainer"]
    assert inner.requests[0].tool_names == ["open_repo", "star", "rename"]
    assert OPENED["a"].stars == 1

    playbook = st.PlaybookTool("p", "P").with_tools(open_repo).with_tool_chaining_from(Repo)
    model = ScriptedModel([("open_repo", {"name": "b"}), ("star", {}), "ok"])
    st.ToolLoop(model).run("go", tools=[playbook, st.Chaining.any()])
    assert model.requests[0].tool_names == ["open_repo", "star", "rename"]
    assert OPENED["b"].stars == 1


def test_bindings_are_not_kept_across_a_resume() -> None:
    model = ScriptedModel([("open_repo", {"name": "a"})])
    loop = st.ToolLoop(model).with_tool_chaining_from(Repo)
    with pytest.raises(st.ScriptExhaustedError) as caught:
        loop.run("go", tools=[open_repo])
    first = caught.value.result
    assert first is not None
    again = ScriptedModel([("star", {}), "ok"])
    result = (
        st.ToolLoop(again)
        .with_tool_chaining_from(Repo)
        .run(list(first.messages), tools=[open_repo], state=first.state)
    )
    assert texts(result)[-1] == "Tool 'star' needs a Repo first. Call first: open_repo."


def test_chaining_definitions_are_checked() -> None:
    with pytest.raises(st.DefinitionError, match="tool chaining needs a class"):
        st.Chaining("Repo")  # type: ignore[arg-type]
    with pytest.raises(st.DefinitionError, match="has no @llm_tool methods to chain"):
        st.disclosure_graph(st.Chaining(dict))
    with pytest.raises(st.DefinitionError, match="set twice, differently"):
        st.disclosure_graph(st.Chaining(Repo), st.Chaining(Repo, lambda r: True))
    with pytest.raises(st.DefinitionError, match="cannot be combined"):
        st.ToolLoop(ScriptedModel(["x"])).with_tool_chaining_from(Repo).run(
            "go", tools=[st.disclosure_graph(open_repo)]
        )
    unbound = st.Chaining(Repo).declared_tools()[0]
    assert unbound.call().text == "Tool 'star' needs a Repo first. Call a tool that returns one."


def test_several_producers_are_all_named() -> None:
    def fork_repo(name: str) -> Repo:
        """Fork a repository."""
        return Repo(f"fork of {name}")

    model = ScriptedModel([("star", {}), "ok"])
    result = (
        st.ToolLoop(model).with_tool_chaining_from(Repo).run("go", tools=[open_repo, fork_repo])
    )
    assert texts(result) == [
        "Tool 'star' needs a Repo first. Call first one of: open_repo, fork_repo."
    ]
