"""run_scripted: run a definition against a script in one line."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypedDict, Unpack

from statetools.definitions.chaining import Chaining
from statetools.engine.events import Listener
from statetools.engine.run_result import LoopResult
from statetools.engine.scheduler import Visibility
from statetools.engine.state import DisclosureState
from statetools.engine.strategies import ToolInjectionStrategy
from statetools.loop.toolloop import ToolLoop
from statetools.models.base import Model, ModelCapabilities
from statetools.models.scripted import ScriptedModel, Step

Script = Sequence[Step] | str | Path
"""Steps of a :class:`~statetools.models.ScriptedModel`, or a YAML script (path or text).

>>> search = st.Tool.create("search", "Search the web", lambda query: "found")
>>> script: Script = [("search", {"query": "tides"}), "Done."]
>>> run_scripted([search], script).output
'Done.'
>>> run_scripted([search], "- answer: Done from YAML.\\n").output
'Done from YAML.'
"""


class ScriptedModelFactory(Protocol):
    """The ``scripted_model`` fixture: makes a :class:`~statetools.models.ScriptedModel`.

    >>> def test_search(scripted_model: ScriptedModelFactory) -> None:
    ...     model = scripted_model([("search", {"query": "x"}), "Done."])
    """

    def __call__(
        self, steps: Script, *, capabilities: ModelCapabilities | None = None
    ) -> ScriptedModel:
        """A scripted model following ``steps`` (a list of steps, YAML text, or the
        path of a YAML script, relative to the test file)."""
        ...


class LoopOptions(TypedDict, total=False):
    """Options of :class:`~statetools.ToolLoop` that :func:`run_scripted` passes on.

    >>> options: LoopOptions = {"max_iterations": 3, "system_prompt": "Be brief."}
    >>> result = run_scripted([], ["Done."], **options)
    >>> result.messages[0].content, result.output
    ('Be brief.', 'Done.')
    """

    max_iterations: int
    listeners: Sequence[Listener]
    visibility: Visibility
    strategies: Sequence[ToolInjectionStrategy]
    system_prompt: str | None
    end_on_final_state: bool
    clock: Callable[[], float]
    id_factory: Callable[[], str]
    chaining: Sequence[Chaining]
    max_discovered_tools: int


def scripted(script: Script | Model) -> Model:
    """A model for ``script``: a model as is, YAML (a path, or text) read by
    :meth:`ScriptedModel.from_yaml`, and a list of steps given to :class:`ScriptedModel`.

    >>> scripted(["Done."]).remaining
    1
    """
    if isinstance(script, Model):
        return script
    if isinstance(script, str | Path):
        return ScriptedModel.from_yaml(script)
    return ScriptedModel(script)


def run_scripted(
    definition_or_tools: Any,
    steps: Script | Model,
    *,
    prompt: str = "Go.",
    context: Mapping[str, Any] | None = None,
    output_type: Any = None,
    state: DisclosureState | None = None,
    **loop_options: Unpack[LoopOptions],
) -> LoopResult:
    """Run a definition (a playbook, a state machine, a tool, or a list of them) with a
    scripted model and return the :class:`~statetools.LoopResult`.

    ``steps`` are :class:`~statetools.models.ScriptedModel` steps, a YAML script (path or
    text), or a model (pass a ``ScriptedModel`` of your own to inspect its ``requests``).
    ``loop_options`` go to :class:`~statetools.ToolLoop`; its clock and run id are fixed
    (``0.0``, ``"scripted-run"``) unless given, so ``result.trace.to_json()`` is the same
    in every run. Errors that end the run are raised as usual; each carries ``.result``.

    >>> import statetools as st
    >>> @st.llm_tool("Say hello.")
    ... def hello() -> str:
    ...     return "hello"
    >>> run_scripted([hello], [("hello", {}), "Said hello."]).output
    'Said hello.'
    """
    tools = (
        list(definition_or_tools)
        if isinstance(definition_or_tools, Sequence) and not isinstance(definition_or_tools, str)
        else [definition_or_tools]
    )
    loop_options.setdefault("clock", _zero)
    loop_options.setdefault("id_factory", _run_id)
    loop = ToolLoop(scripted(steps), **loop_options)
    return loop.run(prompt, tools=tools, output_type=output_type, context=context, state=state)


def _zero() -> float:
    return 0.0


def _run_id() -> str:
    return "scripted-run"
