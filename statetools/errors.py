"""The errors statetools raises. Every one derives from :class:`StatetoolsError`.

Errors that end a run (:class:`RunError` and its subclasses) carry ``.result``, the
partial :class:`~statetools.loop.result.LoopResult` of the run, so nothing of the
conversation is lost::

    try:
        loop.run("hi", tools=tools)
    except st.MaxIterationsExceeded as error:
        print(error.result.messages)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from statetools.loop.result import LoopResult


class StatetoolsError(Exception):
    """Base class of every error statetools raises.

    ``path`` says where the problem is (a tool name, a YAML path such as
    ``$.states.DRAFT``), ``hint`` what to do about it. Both are optional and are part
    of ``str(error)``.
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
    """A tool or disclosure definition is invalid (bad name, bad schema, bad wiring)."""


class RunError(StatetoolsError):
    """An error that ended a run. ``result`` holds everything the run produced so far."""

    result: LoopResult | None = None


class MaxIterationsExceeded(RunError):
    """The model did not give a final answer within ``max_iterations`` model calls."""


class ToolNotFoundError(RunError):
    """The model kept calling tools that do not exist (three misses in a row)."""


class OutputValidationError(RunError):
    """The final answer could not be read as the requested ``output_type``, twice."""


class ProviderError(RunError):
    """The model provider failed (after the SDK's retries). ``status`` is the HTTP status."""

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
    call of the last response answered."""


class RestartLimitExceeded(RunError):
    """A model without dynamic tools needed more conversation restarts than allowed."""


class ScriptExhaustedError(RunError):
    """A :class:`~statetools.models.ScriptedModel` was asked for more steps than it has."""


class SpecError(StatetoolsError):
    """A YAML/dict definition is invalid. ``problems`` lists every problem found."""

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
