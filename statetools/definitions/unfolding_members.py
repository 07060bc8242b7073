"""What may go inside a facade, and the tools an object offers to one."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from statetools.definitions.agentic import agentic_from_definition
from statetools.definitions.shared_definition import Definition
from statetools.errors import DefinitionError
from statetools.tools.classes import unfolding_spec
from statetools.tools.decorators import attribute_names, marked_methods, tool_from
from statetools.tools.tool import BaseTool, Tool


def inner_tool(item: Any, facade: Callable[[Any], BaseTool]) -> BaseTool:
    """``item`` as a facade's inner tool: tools and functions as with ``as_tool``
    (objects of ``@unfolding_tools`` classes become facades, built by ``facade``);
    playbooks and state machines that have a model become their agentic tool."""
    if isinstance(item, Definition):
        if item.agent.model is None:
            raise DefinitionError(
                f"'{item.name}' cannot go inside a facade without a model",
                path=f"'{item.name}'",
                hint="give it a model (.with_model(m)) to make it an agentic tool, or put "
                "the facade inside the playbook instead",
            )
        return agentic_from_definition(item)
    if not isinstance(item, BaseTool | type) and unfolding_spec(type(item)) is not None:
        return facade(item)
    return tool_from(item)


def object_tools(obj: Any, facade: Callable[[Any], BaseTool]) -> list[BaseTool]:
    """The tools of ``obj`` for a facade, in definition order: its ``@llm_tool`` methods,
    nested ``@unfolding_tools`` classes and attributes holding ``@unfolding_tools``
    objects (as facades, built by ``facade``). Without any of these: its public methods
    that have a docstring."""
    cls = type(obj)
    tools: list[BaseTool] = []
    marked = dict(marked_methods(cls))
    for attribute in attribute_names(cls):
        static = inspect.getattr_static(cls, attribute, None)
        if isinstance(static, type) and unfolding_spec(static) is not None:
            tools.append(facade(_instantiate(static, cls)))
        elif attribute in marked:
            tools.append(Tool.from_function(getattr(obj, attribute)))
    for value in getattr(obj, "__dict__", {}).values():
        if not isinstance(value, type) and unfolding_spec(type(value)) is not None:
            tools.append(facade(value))
    if not tools:
        tools = _public_methods(obj)
    if not tools:
        raise DefinitionError(
            f"{cls.__qualname__} offers no tools",
            path=cls.__qualname__,
            hint="mark the methods the model may call with @llm_tool('description')",
        )
    return tools


def _instantiate(nested: type, outer: type) -> Any:
    try:
        return nested()
    except TypeError as exc:
        raise DefinitionError(
            f"cannot create the nested facade {nested.__qualname__} without arguments: {exc}",
            path=outer.__qualname__,
            hint=f"give {outer.__qualname__} an attribute holding a {nested.__name__} "
            "object instead",
        ) from exc


def _public_methods(obj: Any) -> list[BaseTool]:
    tools: list[BaseTool] = []
    for attribute in attribute_names(type(obj)):
        if attribute.startswith("_"):
            continue
        member = getattr(obj, attribute, None)
        if inspect.ismethod(member) and inspect.getdoc(member):
            tools.append(Tool.from_function(member))
    return tools
