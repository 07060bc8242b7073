"""Tools written for other frameworks, used as they are wherever a tool goes.

A LangChain tool (``@tool`` or a ``BaseTool`` subclass), a pydantic-ai ``Tool`` and an
openai-agents ``FunctionTool`` keep their name, description and the input schema their
own framework sends to models; a call runs them through their framework's own entry
point (``ainvoke``, the function schema's validation and call, ``on_invoke_tool``), so
their validation, defaults and error handling stay theirs. Nothing is imported here: a
foreign tool is recognised by the classes of its framework, which is already loaded
when one of its objects exists.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from statetools.errors import DefinitionError
from statetools.tools.tool import Tool


def _instance_of(obj: Any, module: str, name: str) -> bool:
    """Whether ``obj`` is an instance of ``module.name``, without importing ``module``."""
    loaded = sys.modules.get(module)
    cls = getattr(loaded, name, None)
    return isinstance(cls, type) and isinstance(obj, cls)


def foreign_tool(obj: Any) -> Tool | None:
    """``obj`` as a statetools tool when it is another framework's tool, else None.

    >>> from langchain_core.tools import tool
    >>> @tool
    ... def weather(city: str) -> str:
    ...     '''The weather in a city.'''
    ...     return f"sunny in {city}"
    >>> converted = foreign_tool(weather)
    >>> converted.name, converted.call({"city": "Oslo"}).text
    ('weather', 'sunny in Oslo')
    """
    for module, name, convert in _KINDS:
        if _instance_of(obj, module, name):
            return convert(obj)
    return None


def _langchain(tool: Any) -> Tool:
    """A LangChain ``BaseTool``, with the parameters LangChain shows an OpenAI model."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    function = convert_to_openai_tool(tool)["function"]

    async def handler(**arguments: Any) -> Any:
        return await tool.ainvoke(arguments)

    schema = function.get("parameters") or {"type": "object", "properties": {}}
    return Tool.create(function["name"], function.get("description", ""), handler, schema=schema)


def _pydantic_ai(tool: Any) -> Tool:
    """A pydantic-ai ``Tool`` whose function takes no ``RunContext``."""
    if tool.takes_ctx:
        raise DefinitionError(
            f"the pydantic-ai tool '{tool.name}' takes a RunContext, which exists only "
            "inside a pydantic-ai run",
            path=tool.name,
            hint="use it in a pydantic-ai agent with StatetoolsCapability, or write its "
            "function without the ctx parameter (Tool(fn, takes_ctx=False))",
        )
    schema = tool.function_schema

    async def handler(**arguments: Any) -> Any:
        validated = schema.validator.validate_python(arguments)
        return await schema.call(validated, None)

    return Tool.create(tool.name, tool.description or "", handler, schema=schema.json_schema)


def _openai_agents(tool: Any) -> Tool:
    """An openai-agents ``FunctionTool``, called with a context of its own (no run context)."""
    from agents.tool_context import ToolContext

    async def handler(**arguments: Any) -> Any:
        text = json.dumps(arguments)
        context = ToolContext(
            context=None, tool_name=tool.name, tool_call_id="", tool_arguments=text
        )
        return await tool.on_invoke_tool(context, text)

    return Tool.create(tool.name, tool.description, handler, schema=tool.params_json_schema)


_KINDS: tuple[tuple[str, str, Callable[[Any], Tool]], ...] = (
    ("langchain_core.tools", "BaseTool", _langchain),
    ("pydantic_ai.tools", "Tool", _pydantic_ai),
    ("agents.tool", "FunctionTool", _openai_agents),
)
"""Where each framework's tool class lives, and how one of its tools is converted."""
