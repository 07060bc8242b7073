"""The errors statetools raises. Every one derives from :class:`StatetoolsError`.

Errors that end a run (:class:`RunError` and its subclasses) carry ``.result``, the
partial :class:`~statetools.engine.run_result.LoopResult` of the run, so nothing of the
conversation is lost::

    try:
        loop.run("hi", tools=tools)
    except st.MaxIterationsExceeded as error:
        print(error.result.messages)
"""

from __future__ import annotations

from typing import Any


class StatetoolsError(Exception):
    """Base class of every error statetools raises.

    ``path`` says where the problem is (a tool name, a YAML path such as
    ``$.states.DRAFT``), ``hint`` what to do about it. Both are optional and are part
    of ``str(error)``.

    >>> str(StatetoolsError("no such tool", path="search", hint="check the name"))
    'search: no such tool Hint: check the name'
    """

    def __init__(self, message: str, *, path: str | None = None, hint: str | None = None) -> None:
        self.message = message
        self.path = path
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"{self.path}: {self.message}" if self.path else self.message
        if self.hint:
            text = f"{text} Hint: {self.hint}"
        return text


class DefinitionError(StatetoolsError):
    """A tool or disclosure definition is invalid (bad name, bad schema, bad wiring).

    >>> Tool.create("bad name", "Does nothing", lambda: None)
    Traceback (most recent call last):
    statetools.errors.DefinitionError: tool 'bad name': invalid tool name 'bad name' Hint: ...
    """


class RunError(StatetoolsError):
    """An error that ended a run. ``result`` holds everything the run produced so far.

    >>> from statetools.models import ScriptedModel
    >>> try:
    ...     ToolLoop(ScriptedModel([("missing", {})])).run("hi")
    ... except RunError as error:
    ...     print(type(error).__name__, error.result.iterations)
    ScriptExhaustedError 1
    """

    result: Any = None
    """The run's :class:`~statetools.LoopResult` so far (None until the loop sets it).

    Typed loosely because the errors sit below the loop that builds the result."""


class MaxIterationsExceeded(RunError):
    """The model did not give a final answer within ``max_iterations`` model calls.

    >>> from statetools.models import ScriptedModel
    >>> ToolLoop(ScriptedModel([("missing", {})] * 2), max_iterations=2).run("hi")
    Traceback (most recent call last):
    statetools.errors.MaxIterationsExceeded: ToolLoop: no final answer after 2 model calls ...
    """


class ToolNotFoundError(RunError):
    """The model kept calling tools that do not exist (three misses in a row).

    >>> from statetools.models import ScriptedModel
    >>> ToolLoop(ScriptedModel([("missing", {})] * 3)).run("hi")
    Traceback (most recent call last):
    statetools.errors.ToolNotFoundError: iteration 3: the model called tools that do not exist ...
    """


class OutputValidationError(RunError):
    """The final answer could not be read as the requested ``output_type``, twice.

    >>> from statetools.models import ScriptedModel
    >>> ToolLoop(ScriptedModel(["forty-two", "42?"])).run("hi", output_type=int)
    Traceback (most recent call last):
    statetools.errors.OutputValidationError: output: the final answer is not a valid int: ...
    """


class ProviderError(RunError):
    """The model provider failed (after the SDK's retries). ``status`` is the HTTP status.

    >>> ProviderError("rate limited", status=429, path="openai").status
    429
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        path: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.status = status
        super().__init__(message, path=path, hint=hint)


class RunAborted(RunError):
    """Code outside the model and the tools failed during a run (a listener, an
    injection strategy, a ``When`` predicate, a transition guard...). The original
    exception is the ``__cause__``; ``result`` holds the run so far, with every tool
    call of the last response answered.

    >>> from statetools.models import ScriptedModel
    >>> def listener(event):
    ...     if event.type == "model_responded":
    ...         raise ValueError("listener broke")
    >>> try:
    ...     ToolLoop(ScriptedModel(["Hi."]), listeners=[listener]).run("hi")
    ... except RunAborted as error:
    ...     print(repr(error.__cause__))
    ValueError('listener broke')
    """


class RestartLimitExceeded(RunError):
    """A model without dynamic tools needed more conversation restarts than allowed.

    Each change of the visible tools restarts the conversation for such a model
    (``ModelCapabilities(supports_dynamic_tools=False)``); past ten restarts the run
    stops. Like every :class:`RunError`, it carries ``.result``:

    >>> issubclass(RestartLimitExceeded, RunError)
    True
    """


class ScriptExhaustedError(RunError):
    """A :class:`~statetools.models.ScriptedModel` was asked for more steps than it has.

    >>> from statetools.models import ScriptedModel
    >>> ToolLoop(ScriptedModel([])).run("hi")
    Traceback (most recent call last):
    statetools.errors.ScriptExhaustedError: ScriptedModel: the script has no step left ...
    """


class SpecError(StatetoolsError):
    """A YAML/dict definition is invalid. ``problems`` lists every problem found.

    >>> try:
    ...     load_playbook("definitions: 3")
    ... except SpecError as error:
    ...     print(error.problems)
    ('$.definitions (line 1): expected a list, got 3 Hint: write a list: [3]',)
    """

    def __init__(
        self,
        message: str,
        *,
        problems: tuple[str, ...] = (),
        path: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.problems = problems
        super().__init__(message, path=path, hint=hint)
