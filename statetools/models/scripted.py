"""ScriptedModel: a model that follows a script, for offline runs, demos and tests; and
ScriptByRequest, whose answer depends only on the request, so a model activity retried
or replayed on another Temporal worker answers the same.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

from statetools.errors import ProviderError, ScriptExhaustedError, SpecError
from statetools.messages import AssistantMessage, Message, ToolCall
from statetools.models.base import ModelCapabilities, ModelRequest, ModelResponse, StopReason, Usage
from statetools.wording import counted

CallStep: TypeAlias = tuple[str, Mapping[str, Any]]
StepValue: TypeAlias = str | CallStep | Sequence[CallStep] | AssistantMessage | ModelResponse
Step: TypeAlias = StepValue | Callable[[ModelRequest], StepValue | Awaitable[StepValue]]


class ScriptedModel:
    """A model that answers with the given steps, one per request, and records requests.

    A step is a final text answer (``str``), one tool call (``(name, arguments)``),
    several tool calls in one response (a list of those), or a function of the
    :class:`ModelRequest` returning any of these.

    >>> model = ScriptedModel([("search", {"query": "x"}), "The answer is 42."])
    >>> len(model.requests)
    0

    Tool call ids are ``call_1``, ``call_2``, ... numbered through the conversation (a
    resumed conversation continues the numbering).
    """

    def __init__(
        self,
        steps: Sequence[Step],
        *,
        capabilities: ModelCapabilities | None = None,
        usage: Usage | None = None,
    ) -> None:
        self._steps = list(steps)
        self._position = 0
        self._continued = 0
        self._call_counter = 0
        self._usage = usage or Usage()
        self.capabilities_value = capabilities or ModelCapabilities()
        self.requests: list[ModelRequest] = []
        """Every request received, in order."""

    @property
    def capabilities(self) -> ModelCapabilities:
        """What this scripted model claims to support (configurable for tests).

        >>> ScriptedModel(["Hi."]).capabilities.supports_dynamic_tools
        True
        >>> static = ModelCapabilities(supports_dynamic_tools=False)
        >>> ScriptedModel(["Hi."], capabilities=static).capabilities.supports_dynamic_tools
        False
        """
        return self.capabilities_value

    @property
    def remaining(self) -> int:
        """How many steps have not been used yet.

        >>> model = ScriptedModel(["The moon.", "The sun."])
        >>> _ = ToolLoop(model).run("Why tides?")
        >>> model.remaining
        1
        """
        return len(self._steps) - self._position

    def continue_after(self, messages: Sequence[Message]) -> None:
        """Go on from a saved conversation: skip the steps its answers already used
        (one per assistant message), as a run continued from a session needs.

        >>> from statetools.messages import UserMessage
        >>> model = ScriptedModel(["first", "second"])
        >>> model.continue_after([UserMessage("hi"), AssistantMessage("first")])
        >>> model.remaining
        1
        """
        self._position = sum(isinstance(m, AssistantMessage) for m in messages)
        self._continued = self._position

    @classmethod
    def from_yaml(cls, source: str | Path) -> ScriptedModel:
        """A script from YAML: a list of ``answer: text``, ``call: {name, arguments}``
        or ``calls: [{name, arguments}, ...]`` items. ``source`` is a path or YAML text.

        >>> ScriptedModel.from_yaml("- call: {name: search, arguments: {q: x}}\\n- answer: done")
        ... # doctest: +ELLIPSIS
        <statetools.models.scripted.ScriptedModel object at ...>
        """
        where = "script"
        if isinstance(source, Path) or (
            isinstance(source, str) and "\n" not in source and source.endswith((".yaml", ".yml"))
        ):
            where = str(source)
            try:
                source = Path(source).read_text(encoding="utf-8")
            except OSError as exc:
                raise SpecError(f"cannot read script: {exc.strerror}", path=where) from exc
        import yaml  # on first use: a plain run needs no YAML parser

        from statetools.safeyaml import RefusedYaml, check_size, load_yaml

        try:
            check_size(len(source.encode("utf-8")), "script")
            data = load_yaml(source)
        except RefusedYaml as exc:
            line = f" (line {exc.line})" if exc.line else ""
            raise SpecError(f"{exc.message}{line}", path=where, hint=exc.hint) from exc
        except yaml.YAMLError as exc:
            raise SpecError(f"invalid YAML: {exc}", path=where) from exc
        return cls(parse_script(data, where=where))

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Record ``request`` and answer with the next step.

        >>> import asyncio
        >>> from statetools.messages import UserMessage
        >>> model = ScriptedModel(["Hello!"])
        >>> response = asyncio.run(model.complete(ModelRequest((UserMessage("Hi"),))))
        >>> response.message.content, len(model.requests)
        ('Hello!', 1)

        Flagged without dynamic tools, it refuses (like such a provider would) a request
        whose tools differ from the first request of the same conversation.
        """
        value = self._step(request)
        if inspect.isawaitable(value):
            value = await value
        return self._response(value)

    def respond(self, request: ModelRequest) -> ModelResponse:
        """:meth:`complete` without an event loop, for a conversation driven by hand
        (see :class:`statetools.engine.Conversation`); a step that is a coroutine
        function needs :meth:`complete`.

        >>> from statetools.messages import UserMessage
        >>> ScriptedModel(["Hello!"]).respond(ModelRequest((UserMessage("Hi"),))).message.content
        'Hello!'
        """
        value = self._step(request)
        if inspect.isawaitable(value):
            if inspect.iscoroutine(value):
                value.close()
            raise SpecError(
                f"step {self._position} is asynchronous",
                path="ScriptedModel.respond",
                hint="await model.complete(request) for asynchronous steps",
            )
        return self._response(value)

    def _step(self, request: ModelRequest) -> Any:
        """Record ``request`` and take the next step (a function of it is called)."""
        self._check_static_tools(request)
        self.requests.append(request)
        if self._position >= len(self._steps):
            used = f", {self._continued} used by the saved conversation" if self._continued else ""
            raise ScriptExhaustedError(
                f"the script has no step left for request {len(self.requests)} "
                f"(it has {counted(len(self._steps), 'step')}{used})",
                path="ScriptedModel",
                hint="add a step, or end the script with a final text answer",
            )
        step = self._steps[self._position]
        self._position += 1
        self._call_counter = sum(
            len(m.tool_calls) for m in request.messages if isinstance(m, AssistantMessage)
        )
        if callable(step) and not isinstance(step, AssistantMessage | ModelResponse):
            return step(request)
        return step

    def _check_static_tools(self, request: ModelRequest) -> None:
        if self.capabilities.supports_dynamic_tools:
            return
        for earlier in self.requests:
            if earlier.conversation == request.conversation and earlier.tools != request.tools:
                raise ProviderError(
                    f"the tools changed within conversation {request.conversation} "
                    f"(from {earlier.tool_names} to {request.tool_names})",
                    path="ScriptedModel",
                    hint="this model is flagged supports_dynamic_tools=False",
                )

    def _next_id(self) -> str:
        self._call_counter += 1
        return f"call_{self._call_counter}"

    def _call(self, step: Any) -> ToolCall:
        if (
            isinstance(step, tuple)
            and len(step) == 2
            and isinstance(step[0], str)
            and isinstance(step[1], Mapping)
        ):
            return ToolCall(id=self._next_id(), name=step[0], arguments=dict(step[1]))
        raise SpecError(
            f"invalid script step {step!r}",
            path=f"ScriptedModel step {self._position}",
            hint="a step is a text answer, a (name, arguments) tuple, a list of them, "
            "or a function of the request",
        )

    def _response(self, value: Any) -> ModelResponse:
        if isinstance(value, ModelResponse):
            return value
        if isinstance(value, AssistantMessage):
            message = value
        elif isinstance(value, str):
            message = AssistantMessage(content=value)
        elif isinstance(value, tuple):
            message = AssistantMessage(tool_calls=(self._call(value),))
        elif isinstance(value, list) and value:
            message = AssistantMessage(tool_calls=tuple(self._call(item) for item in value))
        else:
            self._call(value)  # raises with a clear message
            raise AssertionError("unreachable")
        stop: StopReason = "tool_use" if message.tool_calls else "end_turn"
        return ModelResponse(message=message, usage=self._usage, stop_reason=stop)


def parse_script(data: Any, *, where: str = "script") -> list[Step]:
    """Steps from YAML/JSON data (see :meth:`ScriptedModel.from_yaml`).

    >>> parse_script([{"call": {"name": "search", "arguments": {"q": "x"}}}, {"answer": "Done."}])
    [('search', {'q': 'x'}), 'Done.']
    """
    if not isinstance(data, list):
        raise SpecError(
            "a script must be a list of steps", path=where, hint="start each step with '- '"
        )
    steps: list[Step] = []
    problems: list[str] = []
    for index, item in enumerate(data):
        path = f"{where}[{index}]"
        try:
            steps.append(_parse_step(item, path))
        except SpecError as exc:
            problems.append(str(exc))
    if problems:
        raise SpecError(
            f"{len(problems)} problem(s) in the script: " + " | ".join(problems),
            problems=tuple(problems),
            path=where,
        )
    return steps


def _parse_call(item: Any, path: str) -> CallStep:
    if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
        raise SpecError(
            "a call needs a 'name'", path=path, hint="write {name: tool, arguments: {...}}"
        )
    unknown = set(item) - {"name", "arguments"}
    if unknown:
        raise SpecError(
            f"unknown keys {sorted(unknown)}", path=path, hint="a call has name and arguments"
        )
    arguments = item.get("arguments") or {}
    if not isinstance(arguments, Mapping):
        raise SpecError("'arguments' must be a mapping", path=f"{path}.arguments")
    return (item["name"], dict(arguments))


def _parse_step(item: Any, path: str) -> Step:
    if not isinstance(item, Mapping) or len(item) != 1:
        raise SpecError(
            "a step is a mapping with one key: answer, call or calls",
            path=path,
            hint="e.g. '- answer: Done.' or '- call: {name: search, arguments: {q: x}}'",
        )
    ((key, value),) = item.items()
    if key == "answer":
        if not isinstance(value, str):
            raise SpecError("'answer' must be text", path=f"{path}.answer")
        return value
    if key == "call":
        return _parse_call(value, f"{path}.call")
    if key == "calls":
        if not isinstance(value, list) or not value:
            raise SpecError("'calls' must be a non-empty list", path=f"{path}.calls")
        return [_parse_call(v, f"{path}.calls[{i}]") for i, v in enumerate(value)]
    raise SpecError(f"unknown step kind {key!r}", path=path, hint="use answer, call or calls")


class ScriptByRequest:
    """Plays ``steps`` (as :class:`~statetools.models.ScriptedModel` takes them), picking
    the step by the number of assistant messages already in the request: request 1
    gets step 1, whichever worker asks and however often.

    >>> import asyncio
    >>> from statetools.messages import UserMessage
    >>> model = ScriptByRequest(["Hello!"])
    >>> response = asyncio.run(model.complete(ModelRequest((UserMessage("Hi"),))))
    >>> response.message.content
    'Hello!'
    """

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)
        self.capabilities_value = ModelCapabilities()

    @property
    def capabilities(self) -> ModelCapabilities:
        """Dynamic tools, parallel calls.

        >>> ScriptByRequest(["Hi"]).capabilities.supports_dynamic_tools
        True
        """
        return self.capabilities_value

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The step for this request.

        >>> import asyncio
        >>> from statetools.messages import AssistantMessage, UserMessage
        >>> model = ScriptByRequest(["Hello!", "Bye."])
        >>> history = (UserMessage("Hi"), AssistantMessage("Hello!"), UserMessage("Go on"))
        >>> second = ModelRequest(history)
        >>> asyncio.run(model.complete(second)).message.content  # the step of request 2
        'Bye.'
        """
        index = sum(isinstance(m, AssistantMessage) for m in request.messages)
        if index >= len(self.steps):
            raise ScriptExhaustedError(
                f"the script has no step for request {index + 1} "
                f"(it has {counted(len(self.steps), 'step')})",
                path="ScriptByRequest",
                hint="add a step, or end the script with a final text answer",
            )
        return await ScriptedModel([self.steps[index]]).complete(request)
