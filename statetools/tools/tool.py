"""Tools: a name, a description, an input schema and something that runs."""

from __future__ import annotations

import abc
import inspect
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs

from statetools.errors import DefinitionError
from statetools.tools.context import ToolCallContext
from statetools.tools.convert import to_json_text
from statetools.tools.result import ToolResult
from statetools.tools.schema import JsonSchema, SignatureBinding, bind_signature, first_paragraph
from statetools.tools.validation import argument_problems, make_validator

TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""Names every major provider accepts for tools."""

Handler = Callable[..., Any]


def check_tool_name(name: str) -> str:
    """Return ``name`` if providers accept it as a tool name, else raise DefinitionError."""
    if not isinstance(name, str) or not TOOL_NAME_PATTERN.match(name):
        raise DefinitionError(
            f"invalid tool name {name!r}",
            path=f"tool {name!r}",
            hint="use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'",
        )
    return name


@attrs.frozen
class ToolMetadata:
    """Facts about a tool that are not shown to the model.

    ``return_direct``: the run ends with this tool's result as its output.
    ``category``: groups tools for by-category facades.
    """

    return_direct: bool = False
    category: str | None = None


def _metadata(value: ToolMetadata | Mapping[str, Any] | None) -> ToolMetadata:
    if value is None:
        return ToolMetadata()
    if isinstance(value, ToolMetadata):
        return value
    unknown = set(value) - {"return_direct", "category"}
    if unknown:
        raise DefinitionError(
            f"unknown metadata keys: {', '.join(sorted(unknown))}",
            hint="metadata takes return_direct and category",
        )
    return ToolMetadata(**value)


def parse_arguments(name: str, arguments: str | Mapping[str, Any] | None) -> dict[str, Any] | str:
    """Arguments as a dict, or the error text for the model when they are not an object."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return (
                f"Invalid arguments for tool '{name}': not valid JSON ({exc.msg} at position "
                f"{exc.pos}). Send the arguments as one JSON object."
            )
    if not isinstance(arguments, Mapping):
        return (
            f"Invalid arguments for tool '{name}': expected a JSON object, got "
            f"{type(arguments).__name__}. Send the arguments as one JSON object."
        )
    return dict(arguments)


@attrs.frozen(kw_only=True)
class BaseTool(abc.ABC):
    """What the loop needs of a tool: a definition for the model and :meth:`acall`.

    Subclass it for tools that wrap other tools (see :class:`DelegatingTool`).
    """

    name: str = attrs.field(validator=lambda _i, _a, v: check_tool_name(v))
    description: str
    input_schema: JsonSchema = attrs.field(factory=lambda: dict(_EMPTY_SCHEMA))
    metadata: ToolMetadata = attrs.field(default=None, converter=_metadata)

    @abc.abstractmethod
    async def acall(
        self,
        arguments: str | Mapping[str, Any] | None = None,
        context: ToolCallContext | Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Run the tool with arguments from the model (a JSON string or a dict)."""

    def call(
        self,
        arguments: str | Mapping[str, Any] | None = None,
        context: ToolCallContext | Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Run the tool synchronously; see :meth:`acall`. Not for use inside an event loop."""
        import asyncio

        return asyncio.run(self.acall(arguments, context))

    def with_description(self, description: str) -> BaseTool:
        """The same tool with another description."""
        return attrs.evolve(self, description=description)

    def with_note(self, note: str) -> BaseTool:
        """The same tool with ``". note"`` appended to its description."""
        base = self.description.rstrip().rstrip(".")
        return attrs.evolve(self, description=f"{base}. {note}")


_EMPTY_SCHEMA: JsonSchema = {
    "type": "object",
    "properties": {},
    "required": [],
    "additionalProperties": False,
}


def _as_context(context: ToolCallContext | Mapping[str, Any] | None) -> ToolCallContext:
    if isinstance(context, ToolCallContext):
        return context
    return ToolCallContext(context or {})


@attrs.frozen(kw_only=True)
class Tool(BaseTool):
    """A tool backed by a Python function (sync or async).

    >>> def add(a: int, b: int = 1) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> tool = Tool.from_function(add)
    >>> tool.call({"a": 2}).text
    '3'
    >>> tool.call('{"a": "x"}').is_error
    True
    """

    handler: Handler
    binding: SignatureBinding
    _validator: Any = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        try:
            validator = make_validator(self.input_schema)
            validator.check_schema(self.input_schema)
        except Exception as exc:
            raise DefinitionError(
                f"invalid input schema: {getattr(exc, 'message', exc)}",
                path=f"tool '{self.name}'",
                hint="input_schema must be a JSON schema of type object",
            ) from exc
        object.__setattr__(self, "_validator", validator)

    @classmethod
    def create(
        cls,
        name: str,
        description: str,
        handler: Handler,
        *,
        schema: JsonSchema | None = None,
        metadata: ToolMetadata | Mapping[str, Any] | None = None,
    ) -> Tool:
        """A tool from a handler called with the arguments as keywords.

        Without ``schema`` the schema is derived from the handler's signature.

        >>> t = Tool.create("echo", "Echo text", lambda text: text,
        ...                 schema=InputSchema.of(Parameter.string("text", "Text")))
        >>> t.call({"text": "hi"}).text
        'hi'
        """
        binding = bind_signature(handler, where=name)
        if schema is not None:
            binding = attrs.evolve(binding, schema=dict(schema), types={})
        return cls(
            name=name,
            description=description,
            input_schema=binding.schema,
            handler=handler,
            binding=binding,
            metadata=metadata,
        )

    @classmethod
    def from_function(
        cls,
        fn: Handler,
        *,
        name: str | None = None,
        description: str | None = None,
        metadata: ToolMetadata | Mapping[str, Any] | None = None,
    ) -> Tool:
        """A tool whose schema comes from ``fn``'s signature and description from its docstring."""
        tool_name = name or getattr(fn, "__name__", None)
        if not tool_name:
            raise DefinitionError(f"cannot name a tool for {fn!r}", hint="pass name=")
        text = description if description is not None else first_paragraph(inspect.getdoc(fn))
        if not text:
            raise DefinitionError(
                "tool has no description",
                path=f"tool '{tool_name}'",
                hint="write a docstring or pass description=",
            )
        binding = bind_signature(fn, where=tool_name)
        return cls(
            name=tool_name,
            description=text,
            input_schema=binding.schema,
            handler=fn,
            binding=binding,
            metadata=metadata,
        )

    async def acall(
        self,
        arguments: str | Mapping[str, Any] | None = None,
        context: ToolCallContext | Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Validate ``arguments``, convert them, run the handler and wrap what it returns.

        Problems with the arguments and exceptions from the handler become error results
        the model can act on; this method never raises for them.
        """
        parsed = parse_arguments(self.name, arguments)
        if isinstance(parsed, str):
            return ToolResult.error(parsed)
        problems = argument_problems(self._validator, parsed)
        if problems:
            return ToolResult.error(
                f"Invalid arguments for tool '{self.name}': {'; '.join(problems)}. "
                "Call it again with corrected arguments."
            )
        try:
            kwargs = self.binding.to_call_arguments(parsed)
        except Exception as exc:
            return ToolResult.error(
                f"Invalid arguments for tool '{self.name}': {_conversion_message(exc)}. "
                "Call it again with corrected arguments."
            )
        if self.binding.context_parameter:
            kwargs[self.binding.context_parameter] = _as_context(context)
        try:
            value = self.handler(**kwargs)
            if isinstance(value, Awaitable):
                value = await value
        except Exception as exc:
            return ToolResult.error(f"Tool '{self.name}' failed: {exc}")
        return to_result(value)


def _conversion_message(exc: Exception) -> str:
    inner = getattr(exc, "exceptions", None)
    if inner:
        return "; ".join(_conversion_message(e) for e in inner)
    return str(exc)


def to_result(value: Any) -> ToolResult:
    """A handler's return value as a ToolResult.

    ToolResults pass through; strings become text as they are; numbers, booleans and
    None become their JSON text; anything else (dicts, lists, objects) is kept as an
    artifact and shown to the model as JSON.
    """
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult.text(value)
    if value is None or isinstance(value, int | float | bool):
        return ToolResult.text(to_json_text(value))
    return ToolResult.artifact(value, to_json_text(value))
