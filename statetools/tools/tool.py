"""Tools: a name, a description, an input schema and something that runs."""

from __future__ import annotations

import abc
import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Self

import attrs

from statetools.errors import DefinitionError, StatetoolsError
from statetools.tools.calling import (
    Arguments,
    Context,
    ToolResult,
    failure,
    invalid_arguments,
    parse_arguments,
    to_result,
)
from statetools.tools.context import ToolCallContext
from statetools.tools.descriptions import description_of
from statetools.tools.fields import (
    TOOL_NAME_PATTERN,
    ToolDefinition,
    ToolMetadata,
    check_description,
    check_name,
    check_timeout,
    check_tool_name,
    metadata_of,
    schema_copy,
)
from statetools.tools.signature import ConversionProblem, SignatureBinding, bind_signature
from statetools.tools.typeschema import JsonSchema
from statetools.tools.validation import argument_problems, make_validator

__all__ = [
    "Arguments",
    "BaseTool",
    "Context",
    "Handler",
    "TOOL_NAME_PATTERN",
    "Tool",
    "ToolMetadata",
    "check_timeout",
    "check_tool_name",
    "failure",
    "parse_arguments",
    "to_result",
]

Handler = Callable[..., Any]


def _outside_event_loop(what: str) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise StatetoolsError(
        f"{what} cannot run inside a running event loop",
        hint="use 'await tool.acall(...)' in async code",
    )


@attrs.frozen(kw_only=True)
class BaseTool(abc.ABC):
    """What the loop needs of a tool: a definition for the model and :meth:`acall`.

    Subclass it for tools that are not a single function, such as wrappers (see
    :class:`~statetools.tools.wrappers.WrapperTool`):

    >>> @attrs.frozen(kw_only=True)
    ... class Clock(BaseTool):
    ...     async def acall(self, arguments=None, context=None) -> ToolResult:
    ...         return ToolResult.text("12:00")
    >>> Clock(name="clock", description="The time").call().text
    '12:00'
    """

    name: str = attrs.field(validator=check_name)
    description: str = attrs.field(validator=check_description)
    input_schema: JsonSchema = attrs.field(
        default=None, converter=schema_copy, hash=False, repr=False
    )
    metadata: ToolMetadata = attrs.field(default=None, converter=metadata_of)
    _definition: ToolDefinition | None = attrs.field(
        init=False, default=None, eq=False, hash=False, repr=False
    )

    @property
    def definition(self) -> ToolDefinition:
        """What the model is shown of this tool, built on first use and kept.

        >>> Tool.create("ping", "Ping the host.", lambda: "pong").definition.description
        'Ping the host.'
        """
        built = self._definition
        if built is None:
            built = ToolDefinition(self.name, self.description, self.input_schema)
            object.__setattr__(self, "_definition", built)
        return built

    @abc.abstractmethod
    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run the tool with arguments from the model (a JSON string or a dict).

        Bad arguments and failures come back as error results, never as exceptions.


        >>> import asyncio
        >>> add = Tool.create("add", "Add", lambda a, b: a + b)
        >>> asyncio.run(add.acall('{"a": 2, "b": 3}')).text
        '5'
        """

    def call(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run the tool synchronously; see :meth:`acall`. Use ``acall`` in async code.

        >>> Tool.create("add", "Add", lambda a, b: a + b).call({"a": 2, "b": 3}).text
        '5'
        """
        _outside_event_loop(f"{type(self).__name__}.call()")
        return asyncio.run(self.acall(arguments, context))

    def with_description(self, description: str) -> Self:
        """The same tool with another description.

        >>> t = Tool.create("ping", "Ping", lambda: "pong").with_description("Check the link")
        >>> t.description
        'Check the link'
        """
        return attrs.evolve(self, description=description)

    def with_note(self, note: str) -> Self:
        """The same tool with ``". note"`` appended to its description.

        >>> Tool.create("ping", "Ping the host.", lambda: "pong").with_note("Cheap").description
        'Ping the host. Cheap'
        """
        base = self.description.rstrip().rstrip(".")
        return attrs.evolve(self, description=f"{base}. {note}")


def _as_context(context: Context) -> ToolCallContext:
    if isinstance(context, ToolCallContext):
        return context
    return ToolCallContext(context or {})


@attrs.frozen(kw_only=True)
class Tool(BaseTool):
    """A tool backed by a Python function (sync or async).

    Build it with :meth:`from_function` (schema from the signature) or :meth:`create`
    (explicit name, description and, optionally, schema).

    >>> def add(a: int, b: int = 1) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> tool = Tool.from_function(add)
    >>> tool.call({"a": 2}).text
    '3'
    >>> tool.call('{"a": "x"}').text
    'Invalid arguments for tool \\'add\\': argument \\'a\\' must be an integer, got "x". Call it again with corrected arguments.'
    """  # noqa: E501

    handler: Handler
    binding: SignatureBinding = attrs.field(
        default=attrs.Factory(
            lambda self: bind_signature(self.handler, where=self.name, schema=self.input_schema),
            takes_self=True,
        ),
        eq=False,
        repr=False,
    )
    _validator: Any = attrs.field(init=False, eq=False, repr=False, hash=False)

    def __attrs_post_init__(self) -> None:
        where = f"tool '{self.name}'"
        if self.input_schema.get("type") != "object":
            raise DefinitionError(
                f"input schema must have type 'object', got {self.input_schema.get('type')!r}",
                path=where,
                hint="tool arguments are a JSON object; use InputSchema.of(...)",
            )
        try:
            validator = make_validator(self.input_schema)
        except Exception as exc:
            raise DefinitionError(
                f"invalid input schema: {getattr(exc, 'message', exc)}",
                path=where,
                hint="fix the schema, or build it with InputSchema.of(Parameter...)",
            ) from exc
        object.__setattr__(self, "_validator", validator)

    @classmethod
    def create(
        cls,
        name: str,
        description: str,
        handler: Handler,
        *,
        schema: Mapping[str, Any] | None = None,
        metadata: ToolMetadata | Mapping[str, Any] | None = None,
    ) -> Tool:
        """A tool whose handler is called with the arguments as keywords.

        Without ``schema`` the schema comes from the handler's signature; with it, the
        schema must fit the handler (it may only send parameters the handler accepts).

        >>> from statetools.tools.schema import Parameter
        >>> echo = Tool.create("echo", "Repeat the text", lambda text: text,
        ...                    schema=InputSchema.of(Parameter.string("text", "Text")))
        >>> echo.call({"text": "hi"}).text
        'hi'
        """
        check_tool_name(name)
        binding = bind_signature(handler, where=name, schema=schema)
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
        """A tool named after ``fn``, described by its docstring, with a schema from its
        signature (see :func:`~statetools.tools.schema.bind_signature`). For an
        ``@llm_tool`` function, the decorator's name, description and metadata are the
        defaults.

        >>> def greet(name: str) -> str:
        ...     '''Greet someone by name.'''
        ...     return f"Hello, {name}!"
        >>> Tool.from_function(greet).description
        'Greet someone by name.'
        """
        spec = getattr(fn, "__llm_tool__", None)  # set by @llm_tool (decorators.py)
        if spec is not None:
            name = name or spec.name
            description = description if description is not None else spec.description
            if metadata is None:
                metadata = spec.metadata()
        tool_name = name or getattr(fn, "__name__", None)
        if tool_name is None:
            raise DefinitionError(
                f"cannot name a tool for {fn!r}", hint="pass name= to Tool.from_function"
            )
        check_tool_name(tool_name)
        text = description if description is not None else description_of(fn)
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

    def _prepare(self, arguments: Arguments, context: Context) -> dict[str, Any] | ToolResult:
        """Keyword arguments for the handler, or the error result for the model."""
        parsed = parse_arguments(self.name, arguments)
        if isinstance(parsed, str):
            return ToolResult.error(parsed)
        problems = argument_problems(self._validator, parsed)
        if not problems:
            try:
                kwargs = self.binding.to_call_arguments(parsed)
            except ConversionProblem as problem:
                problems = problem.problems
        if problems:
            return ToolResult.error(invalid_arguments(self.name, problems))
        if self.binding.context_parameters:
            injected = _as_context(context)
            kwargs.update(dict.fromkeys(self.binding.context_parameters, injected))
        return kwargs

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Validate ``arguments``, convert them, run the handler and wrap what it returns.

        A synchronous handler runs in a worker thread (``asyncio.to_thread``), so it
        never blocks the event loop; ``metadata.on_loop_thread`` keeps it on the loop's
        thread. Problems with the arguments and exceptions from the handler become error results
        the model can act on; this method never raises for them.


        >>> import asyncio
        >>> def divide(a: int, b: int) -> float:
        ...     '''Divide a by b.'''
        ...     return a / b
        >>> result = asyncio.run(Tool.from_function(divide).acall({"a": 1, "b": 0}))
        >>> result.is_error, result.text
        (True, "Tool 'divide' failed: division by zero")
        """
        kwargs = self._prepare(arguments, context)
        if isinstance(kwargs, ToolResult):
            return kwargs
        try:
            if self.metadata.on_loop_thread or inspect.iscoroutinefunction(self.handler):
                value = self.handler(**kwargs)
            else:  # a synchronous handler must not block the event loop
                value = await asyncio.to_thread(self.handler, **kwargs)
        except Exception as exc:
            return failure(self.name, exc)
        return await self._finish(value) if inspect.isawaitable(value) else to_result(value)

    def call(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run the tool synchronously. A sync handler runs right here, with no event loop.

        >>> Tool.create("ping", "Ping", lambda: "pong").call().text
        'pong'
        """
        if inspect.iscoroutinefunction(self.handler):
            return super().call(arguments, context)
        kwargs = self._prepare(arguments, context)
        if isinstance(kwargs, ToolResult):
            return kwargs
        try:
            value = self.handler(**kwargs)
        except Exception as exc:
            return failure(self.name, exc)
        if not inspect.isawaitable(value):
            return to_result(value)
        try:
            _outside_event_loop(f"Tool.call() of '{self.name}'")
        except StatetoolsError:
            if inspect.iscoroutine(value):
                value.close()
            raise
        return asyncio.run(self._finish(value))

    async def _finish(self, awaitable: Awaitable[Any]) -> ToolResult:
        try:
            value = await awaitable
        except Exception as exc:
            return failure(self.name, exc)
        return to_result(value)
