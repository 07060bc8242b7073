"""Objects found in results whose tools cannot be described as usual, or that have no id
(issue 30: the call that returned such an object was answered "No result" although it
ran; chaining logged "its tools were not added" although they were)."""

from __future__ import annotations

import logging

import pytest

import statetools as st
from statetools.models import ScriptedModel
from tests.unfolding.unresolvable import find_customer


def tool_texts(result: st.LoopResult) -> list[str]:
    return [m.content for m in result.messages if m.role == "tool"]


def test_unresolvable_annotations_become_strings_and_the_call_keeps_its_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedModel(
        [
            ("find_customer", {"name": "Ann"}),
            ("customer_c1_orders", {"limit": "3"}),
            "ok",
        ]
    )
    with caplog.at_level(logging.WARNING, logger="statetools.discovery"):
        result = st.ToolLoop(model).run("go", tools=[find_customer])

    assert tool_texts(result)[1:] == ["3 orders of c1, newest first: True"]
    assert tool_texts(result)[0].endswith("\n[now available: customer_c1_orders]")
    orders = model.requests[1].tools[1]
    assert orders.input_schema["properties"] == {
        "limit": {"type": "string"},
        "newest": {"type": "boolean", "default": True},
    }
    assert caplog.messages == [
        "customer_c1_orders: the annotations of limit cannot be resolved (name 'Decimal' "
        "is not defined); the model sends them as strings"
    ]


class Repo:
    """The Repo of docs/chaining.md: no ``id`` attribute."""

    def __init__(self, name: str) -> None:
        self.name = name

    @st.llm_tool("Star the repository.")
    def star(self) -> str:
        return f"{self.name} starred"


def open_repo(name: str) -> Repo:
    """Open a repository by name."""
    return st.ToolResult.artifact(Repo(name), text=f"opened {name}")


def test_chaining_from_an_object_without_id_says_what_really_happens(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedModel([("open_repo", {"name": "r"}), ("star", {}), "ok"])
    with caplog.at_level(logging.WARNING, logger="statetools.discovery"):
        result = st.ToolLoop(model).with_tool_chaining_from(Repo).run("go", tools=[open_repo])

    assert tool_texts(result) == ["opened r\n[now available: star]", "r starred"]
    assert caplog.messages == [
        "Repo.id is None; its tools work in this run, but a resumed run cannot find it again"
    ]
    assert result.state.objects == ()  # nothing a resumed run could find


def test_chaining_from_any_announces_the_objects_tools(caplog: pytest.LogCaptureFixture) -> None:
    model = ScriptedModel([("open_repo", {"name": "r"}), "ok"])
    with caplog.at_level(logging.WARNING, logger="statetools.discovery"):
        result = st.ToolLoop(model).with_tool_chaining_from_any().run("go", tools=[open_repo])
    assert tool_texts(result) == ["opened r\n[now available: star]"]
    assert caplog.messages == [
        "Repo.id is None; its tools work in this run, but a resumed run cannot find it again"
    ]
