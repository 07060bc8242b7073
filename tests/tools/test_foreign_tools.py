"""Tools of LangChain, pydantic-ai and openai-agents inside tools=[...], playbooks and facades."""

from __future__ import annotations

from typing import Any

import pytest
from agents import function_tool
from langchain_core.tools import BaseTool as LangChainBaseTool
from langchain_core.tools import tool as langchain_tool
from pydantic import BaseModel, Field
from pydantic_ai import RunContext
from pydantic_ai import Tool as PydanticAITool

import statetools as st
from statetools.models import ScriptedModel


@langchain_tool
def search(query: str, limit: int = 3) -> str:
    """Search the web."""
    return f"{limit} results for {query}"


@langchain_tool
def broken(query: str) -> str:
    """Always fails."""
    raise ValueError(f"no index for {query}")


class WeatherInput(BaseModel):
    city: str = Field(description="City name")


class Weather(LangChainBaseTool):
    name: str = "weather"
    description: str = "The weather in a city."
    args_schema: type[BaseModel] = WeatherInput

    def _run(self, city: str) -> str:
        return f"sunny in {city}"


def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


async def slow_double(n: int) -> int:
    """Double a number, slowly."""
    return 2 * n


def with_context(ctx: RunContext[None], n: int) -> int:
    """Needs pydantic-ai's run context."""
    return n


@function_tool
def multiply(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


def _schemas(model: ScriptedModel, index: int) -> dict[str, Any]:
    return {t.name: dict(t.input_schema) for t in model.requests[index].tools}


def test_a_langchain_tool_unlocks_the_next_in_a_playbook() -> None:
    research = st.PlaybookTool("research", "Research").with_tool(search)
    research = research.with_tool(Weather()).unlocked_by(search)
    model = ScriptedModel(
        [
            ("weather", {"city": "Oslo"}),
            ("search", {"query": "tides"}),
            ("weather", {"city": "Oslo"}),
            "Done.",
        ]
    )

    result = st.ToolLoop(model).run("Research tides", tools=[research])

    assert [r.tool_names for r in model.requests] == [
        ["search"],
        ["search"],
        ["search", "weather"],
        ["search", "weather"],
    ]
    assert _schemas(model, 2) == {
        "search": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer", "default": 3},
            },
            "required": ["query"],
        },
        "weather": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"],
        },
    }
    assert [m.content for m in result.messages if m.role == "tool"] == [
        "Tool 'weather' is locked. Call first: search.",
        "3 results for tides\n[now available: weather]",
        "sunny in Oslo",
    ]


def test_a_failing_langchain_tool_is_an_error_result_and_the_run_goes_on() -> None:
    model = ScriptedModel([("broken", {"query": "x"}), "Sorry."])

    result = st.ToolLoop(model).run("Find x", tools=[broken])

    tool_message = result.messages[2]
    assert (tool_message.is_error, tool_message.content) == (
        True,
        "Tool 'broken' failed: no index for x",
    )
    assert result.output == "Sorry."


def test_pydantic_ai_tools_in_a_facade_keep_their_schema_and_validation() -> None:
    maths = st.UnfoldingTool.of(
        "maths", "Open the maths tools", [PydanticAITool(add), PydanticAITool(slow_double)]
    )
    model = ScriptedModel(
        [("maths", {}), [("add", {"a": 2, "b": 3}), ("slow_double", {"n": 21})], "5 and 42"]
    )

    result = st.ToolLoop(model).run("Compute", tools=[maths])

    assert model.requests[1].tool_names == ["add", "slow_double"]
    assert _schemas(model, 1)["add"] == {
        "additionalProperties": False,
        "properties": {
            "a": {"description": "The first number.", "type": "integer"},
            "b": {"description": "The second number.", "type": "integer"},
        },
        "required": ["a", "b"],
        "type": "object",
    }
    assert [m.content for m in result.messages if m.role == "tool"][1:] == ["5", "42"]


def test_a_pydantic_ai_tool_that_needs_its_run_context_is_refused_with_a_hint() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.as_tool(PydanticAITool(with_context))

    assert str(caught.value) == (
        "with_context: the pydantic-ai tool 'with_context' takes a RunContext, which exists "
        "only inside a pydantic-ai run Hint: use it in a pydantic-ai agent with "
        "StatetoolsCapability, or write its function without the ctx parameter "
        "(Tool(fn, takes_ctx=False))"
    )


def test_an_openai_agents_function_tool_runs_with_its_strict_schema() -> None:
    model = ScriptedModel([("multiply", {"a": 6, "b": 7}), ("multiply", {"a": "six"}), "42"])

    result = st.ToolLoop(model).run("6 * 7?", tools=[multiply])

    assert _schemas(model, 0) == {
        "multiply": {
            "properties": {
                "a": {"title": "A", "type": "integer"},
                "b": {"title": "B", "type": "integer"},
            },
            "required": ["a", "b"],
            "title": "multiply_args",
            "type": "object",
            "additionalProperties": False,
        }
    }
    answers = [m for m in result.messages if m.role == "tool"]
    assert (answers[0].is_error, answers[0].content) == (False, "42")
    assert (answers[1].is_error, answers[1].content) == (
        True,
        "Invalid arguments for tool 'multiply': missing required argument 'b'; argument 'a' "
        'must be an integer, got "six". Call it again with corrected arguments.',
    )
