"""Layered tool detail: tools shown in a short base form, the full form on demand.

``layered(*items)`` shows each tool as its name and the first sentence of its
description, with parameters ``{"type": "object"}``, plus one ``tool_detail(name)``
tool. ``tool_detail`` answers with the tool's full parameters, return type and example
arguments, and the full tool then takes the base form's place (moved to the end of the
list, so what comes before it stays the same for a provider's prompt cache). A call of
a base form is checked against the real schema: a valid call runs, an invalid one gets
the detail text in its error.

``layered(*items, swap=False)`` is the cache-safe form: the base forms stay, so the
tools array never changes during a run and a cached prompt prefix is never lost;
``tool_detail``'s answer is where the model reads the full parameters.

The detail text of a tool lists its parameters, its return type and example arguments:

>>> def add(a: int, b: int = 2) -> int:
...     '''Add two numbers.'''
...     return a + b
>>> print(detail_text(Tool.from_function(add)))
add: Add two numbers.
Parameters:
- a (integer, required)
- b (integer, default 2)
Returns: int
Example arguments: {"a": 1, "b": 2}
"""

from __future__ import annotations

import difflib
import json
import typing
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from statetools.definitions.items import as_tool
from statetools.definitions.machine import StateMachineTool
from statetools.definitions.playbook import PlaybookTool
from statetools.definitions.unfold_call import Unfolded
from statetools.definitions.unfolding import UnfoldingTool
from statetools.errors import DefinitionError
from statetools.tools.calling import Arguments, Context, ToolResult, parse_arguments
from statetools.tools.descriptions import first_sentence
from statetools.tools.examples import example_arguments
from statetools.tools.schema import InputSchema, Parameter
from statetools.tools.tool import BaseTool
from statetools.tools.validation import argument_problems, make_validator
from statetools.tools.wrappers import WrapperTool

__all__ = ["BaseForm", "DetailText", "ToolDetail", "detail_text", "layered", "return_type"]

BASE_SCHEMA: dict[str, Any] = {"type": "object"}


@attrs.frozen(kw_only=True)
class BaseForm(WrapperTool):
    """A tool in its base form: its name, the first sentence of its description, any
    object as arguments. Valid calls run the full tool (``delegate``); invalid ones are
    answered with what is wrong and the full detail.

    >>> def add(a: int, b: int) -> int:
    ...     '''Add two numbers. Both must be integers.'''
    ...     return a + b
    >>> base = BaseForm.of(Tool.from_function(add))
    >>> base.description, base.input_schema, base.call({"a": 1, "b": 2}).text
    ('Add two numbers.', {'type': 'object'}, '3')
    """

    full_validator: Any = attrs.field(init=False, eq=False, repr=False, hash=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "full_validator", make_validator(self.delegate.input_schema))

    @classmethod
    def of(cls, tool: BaseTool) -> BaseForm:
        """The base form of ``tool``."""
        return cls.around(
            tool, description=first_sentence(tool.description), input_schema=BASE_SCHEMA
        )

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run the full tool, or explain the full parameters when the arguments do not fit."""
        parsed = parse_arguments(self.name, arguments)
        if isinstance(parsed, str):
            return ToolResult.error(parsed)
        problems = argument_problems(self.full_validator, parsed)
        if problems:
            return ToolResult.error(
                f"Invalid arguments for tool '{self.name}': {'; '.join(problems)}. "
                f"Call it again with arguments that fit:\n\n{detail_text(self.delegate)}"
            )
        return await self.delegate.acall(parsed, context)


@attrs.frozen(kw_only=True)
class ToolDetail(UnfoldingTool):
    """``tool_detail(name)``: the detail text of a layered tool; the full tool then
    replaces its base form. It stays visible (see :func:`layered`)."""

    swaps: ClassVar[bool] = True
    full: Mapping[str, BaseTool] = attrs.field(factory=dict, eq=False, repr=False)
    """The full tools by name."""

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Answer with the detail of the named tool and open its full form."""
        return self._detail(arguments)

    async def open(
        self,
        arguments: Arguments = None,
        context: Context = None,
        current: Any = None,
    ) -> ToolResult:
        """The same as a call: the detail may be asked for again."""
        return self._detail(arguments)

    def _detail(self, arguments: Arguments) -> ToolResult:
        tool = _named_tool(self.name, self.validator, self.full, arguments)
        if isinstance(tool, ToolResult):
            return tool
        value = Unfolded(self.name, (tool,), {"name": tool.name})
        return ToolResult(content=detail_text(tool), value=value)


@attrs.frozen(kw_only=True)
class DetailText(BaseTool):
    """``tool_detail(name)`` of the cache-safe form (``layered(..., swap=False)``): it
    answers with the detail text and changes no tool, so the tools array stays as it
    was.

    >>> def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> *_, detail = layered(add, swap=False)
    >>> print(detail.call({"name": "add"}).text)
    add: Add two numbers.
    Parameters:
    - a (integer, required)
    - b (integer, required)
    Returns: int
    Example arguments: {"a": 1, "b": 1}
    """

    full: Mapping[str, BaseTool] = attrs.field(factory=dict, eq=False, repr=False)
    """The full tools by name."""
    validator: Any = attrs.field(init=False, eq=False, repr=False, hash=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "validator", make_validator(self.input_schema))

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Answer with the detail of the named tool."""
        tool = _named_tool(self.name, self.validator, self.full, arguments)
        return tool if isinstance(tool, ToolResult) else ToolResult.text(detail_text(tool))


def _named_tool(
    detail_tool: str, validator: Any, full: Mapping[str, BaseTool], arguments: Arguments
) -> BaseTool | ToolResult:
    """The full tool ``arguments`` name, or the error result that says what is wrong."""
    parsed = parse_arguments(detail_tool, arguments)
    if isinstance(parsed, str):
        return ToolResult.error(parsed)
    problems = argument_problems(validator, parsed)
    if problems:
        return ToolResult.error(
            f"Invalid arguments for tool '{detail_tool}': {'; '.join(problems)}. "
            "Call it again with the name of a tool."
        )
    name = str(parsed["name"])
    tool = full.get(name)
    if tool is None:
        closest = difflib.get_close_matches(name, list(full), n=3, cutoff=0.5)
        hint = f" Closest names: {', '.join(closest)}." if closest else ""
        return ToolResult.error(f"Tool '{detail_tool}' knows no tool named '{name}'.{hint}")
    return tool


def _pick(full: Mapping[str, BaseTool]) -> Any:
    def selector(arguments: dict[str, Any]) -> list[BaseTool]:
        tool = full.get(str(arguments.get("name")))
        return [tool] if tool is not None else []

    return selector


class _Layering:
    def __init__(self) -> None:
        self.full: dict[str, BaseTool] = {}

    def tool(self, tool: BaseTool) -> BaseTool:
        if isinstance(tool, UnfoldingTool):
            if tool.search is not None or tool.members:
                members = tuple(self.item(m) for m in tool.members)
                return attrs.evolve(tool, inner=[self.tool(t) for t in tool.inner], members=members)
            return attrs.evolve(tool, inner=[self.tool(t) for t in tool.inner])
        if isinstance(tool, BaseForm):
            tool = tool.delegate
        if self.full.setdefault(tool.name, tool) is not tool:
            raise DefinitionError(
                f"two layered tools are named '{tool.name}'",
                path="layered",
                hint="give every tool its own name",
            )
        return BaseForm.of(tool)

    def item(self, item: Any) -> Any:
        if isinstance(item, PlaybookTool | StateMachineTool) and item.agent.model is not None:
            return item  # an agentic tool: its own loop shows its tools
        if isinstance(item, PlaybookTool):
            entries = tuple(attrs.evolve(e, tool=self.tool(e.tool)) for e in item.entries)
            return attrs.evolve(item, entries=entries)
        if isinstance(item, StateMachineTool):
            return attrs.evolve(item, tools=tuple(self.tool(t) for t in item.tools))
        if isinstance(item, list | tuple):
            return [self.item(part) for part in item]
        try:
            tool = as_tool(item)
        except DefinitionError:
            return item  # chaining rules and other definitions pass through
        return self.tool(tool)


def layered(*items: Any, detail_tool: str = "tool_detail", swap: bool = True) -> list[Any]:
    """``items`` (tools, functions, playbooks, machines, facades) with every tool in its
    base form, followed by the ``detail_tool`` that shows a tool in full. Pass the list
    in ``tools=[...]``.

    With ``swap`` (the default) the full tool takes its base form's place, at the end of
    the list, once its detail was read; ``swap=False`` keeps the base forms, so the
    tools array never changes and a provider's cached prompt prefix is never lost (the
    detail is in ``tool_detail``'s answer only).

    >>> def create_employee(name: str, salary: float, department: str = "R&D") -> str:
    ...     '''Create a new employee. The name must be unique.'''
    ...     return f"created {name}"
    >>> tools = layered(create_employee)
    >>> [(t.name, t.description, t.input_schema) for t in tools]  # doctest: +NORMALIZE_WHITESPACE
    [('create_employee', 'Create a new employee.', {'type': 'object'}),
     ('tool_detail', 'Show the full parameters and example arguments of a tool by name;
       the tool then shows in full.', {'type': 'object', 'properties': {'name':
       {'type': 'string', 'description': 'The exact name of the tool'}},
       'required': ['name'], 'additionalProperties': False})]
    >>> print(tools[1].call({"name": "create_employee"}).text)
    create_employee: Create a new employee. The name must be unique.
    Parameters:
    - name (string, required)
    - salary (number, required)
    - department (string, default "R&D")
    Returns: str
    Example arguments: {"name": "Ada Lovelace", "salary": 1.5, "department": "R&D"}
    """
    layering = _Layering()
    shown = [layering.item(item) for item in items]
    if detail_tool in layering.full:
        raise DefinitionError(
            f"the detail tool's name '{detail_tool}' is taken by a layered tool",
            path="layered",
            hint="pass detail_tool='...' with another name",
        )
    schema = InputSchema.of(Parameter.string("name", "The exact name of the tool"))
    if not swap:
        description = "Show the full parameters and example arguments of a tool by name."
        text = DetailText(
            name=detail_tool, description=description, input_schema=schema, full=layering.full
        )
        return [*shown, text]
    detail = ToolDetail(
        name=detail_tool,
        description="Show the full parameters and example arguments of a tool by name; "
        "the tool then shows in full.",
        input_schema=schema,
        selector=_pick(layering.full),
        full=dict(layering.full),
    )
    return [*shown, detail]


def _type_name(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    if isinstance(kind, str):
        if kind == "array":
            items = schema.get("items")
            inner = _type_name(items) if isinstance(items, Mapping) else ""
            return f"array of {inner}" if inner else "array"
        return kind
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return " or ".join(_type_name(part) for part in schema[key])
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return "any"


def _facts(schema: Mapping[str, Any], required: bool) -> str:
    facts = [_type_name(schema)]
    if schema.get("format"):
        facts.append(f"format {schema['format']}")
    if required:
        facts.append("required")
    if isinstance(schema.get("enum"), list):
        facts.append("one of " + ", ".join(json.dumps(v) for v in schema["enum"]))
    if "default" in schema:
        facts.append(f"default {json.dumps(schema['default'])}")
    for key, word in (("minimum", "at least"), ("maximum", "at most")):
        if key in schema:
            facts.append(f"{word} {schema[key]}")
    return ", ".join(facts)


def _lines(
    schema: Mapping[str, Any], root: Mapping[str, Any], indent: str, depth: int
) -> list[str]:
    schema = _deref(schema, root)
    properties: Mapping[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    lines: list[str] = []
    for name, child in properties.items():
        child = _deref(child, root)
        text = f"{indent}- {name} ({_facts(child, name in required)})"
        description = " ".join(str(child.get("description") or "").split())
        lines.append(f"{text}: {description}" if description else text)
        if depth < 6:
            items = child.get("items")
            nested = _deref(items, root) if isinstance(items, Mapping) else child
            lines.extend(_lines(nested, root, indent + "  ", depth + 1))
    return lines


def _deref(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return schema
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part, {}) if isinstance(target, Mapping) else {}
    return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}


def return_type(tool: BaseTool) -> str | None:
    """The return annotation of a function tool, as text (None when unknown)."""
    handler = getattr(tool, "handler", None)
    if handler is None:
        return None
    try:
        hints = typing.get_type_hints(handler)
    except Exception:
        return None
    if "return" not in hints:
        return None
    annotation = hints["return"]
    if isinstance(annotation, type):
        return annotation.__qualname__
    return str(annotation).replace("typing.", "")


def detail_text(tool: BaseTool) -> str:
    """Everything about ``tool``: description, each parameter (type, required, enum,
    default, bounds, nested fields), the return type when known, and example arguments
    generated by :func:`~statetools.example_arguments`."""
    schema = tool.input_schema or {"type": "object"}
    lines = [f"{tool.name}: {' '.join(tool.description.split())}"]
    parameters = _lines(schema, schema, "", 0)
    lines += ["Parameters:", *parameters] if parameters else ["Parameters: none"]
    returns = return_type(tool)
    if returns:
        lines.append(f"Returns: {returns}")
    lines.append(f"Example arguments: {json.dumps(example_arguments(schema))}")
    return "\n".join(lines)
