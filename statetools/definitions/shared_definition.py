"""What playbooks and state machines share: being a definition, and how one runs as
an agentic tool (:class:`AgentOptions`). Facades and agentic tools need only this,
not the playbook and machine modules."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from statetools.errors import DefinitionError
from statetools.tools.context import ToolCallContext
from statetools.tools.schema import InputSchema, JsonSchema, Parameter


class Definition:
    """Base of :class:`~statetools.PlaybookTool` and :class:`~statetools.StateMachineTool`:
    a definition whose tools (``tools``) a loop discloses, or that runs as an agentic
    tool when it has a model (``agent``).

    >>> isinstance(PlaybookTool("p", "P"), Definition)
    True
    """

    __slots__ = ()

    name: str
    description: str
    agent: AgentOptions


SystemPrompt = str | Callable[[ToolCallContext], str]
"""A nested loop's system prompt: text, or a function of the run's context that gives
the text when the nested run starts."""


def _check_system_prompt(_instance: object, _attribute: object, value: Any) -> None:
    if value is not None and not isinstance(value, str) and not callable(value):
        raise DefinitionError(
            f"a system prompt must be text or a function of the run context, got "
            f"{type(value).__name__}",
            path="system_prompt",
            hint="pass a string, or a function (context) -> str",
        )


@attrs.frozen
class AgentOptions:
    """How a definition runs as an agentic tool (its own nested loop with ``model``)."""

    model: Any = None
    system_prompt: SystemPrompt | None = attrs.field(default=None, validator=_check_system_prompt)
    max_iterations: int = 20
    parameters: tuple[Parameter, ...] = ()


def agent_model(model: Any) -> Any:
    """The model of an agentic definition: a ``provider:name`` string becomes its model
    now (see :func:`statetools.models.resolve`), so a bad string or a missing key is an
    error here, not in the middle of a run; ``None`` and models stay as they are.

    >>> agent_model("nope:x")
    Traceback (most recent call last):
    statetools.errors.StatetoolsError: model: unknown model provider 'nope' in 'nope:x' ...
    """
    if isinstance(model, str):
        from statetools.models.model_strings import resolve

        return resolve(model)
    return model


def agent_schema(parameters: Sequence[Parameter]) -> JsonSchema:
    """The input schema of an agentic tool: its parameters, or one ``task`` string."""
    if not parameters:
        parameters = (Parameter.string("task", "What to do, in plain words"),)
    return InputSchema.of(*parameters)
