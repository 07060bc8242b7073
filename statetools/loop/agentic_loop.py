"""SimpleAgenticTool: an agentic tool that runs its task in a :class:`ToolLoop`."""

from __future__ import annotations

import attrs

from statetools.definitions.agentic import AgenticTool
from statetools.loop.toolloop import ToolLoop
from statetools.tools.context import LoopFactory


@attrs.frozen(init=False)
class SimpleAgenticTool(AgenticTool):
    """A tool that delegates its task to a nested :class:`ToolLoop` over its own tools
    and model, inside a run or on its own.

    The tools may include playbooks and state machines; they are disclosed inside the
    nested conversation by the same scheduler as at the top level. The nested run's
    :class:`~statetools.engine.loop_result.LoopResult` is kept as the result's ``value``.
    The nested run shares the caller's blackboard (both ways), and its events reach the
    caller's listeners as :class:`~statetools.NestedEvent` (see docs/playbooks.md).

    >>> from statetools.models import ScriptedModel
    >>> def search(query: str) -> str:
    ...     '''Search the web.'''
    ...     return "Tides follow the moon."
    >>> model = ScriptedModel([("search", {"query": "tides"}), "The moon causes tides."])
    >>> helper = SimpleAgenticTool("researcher", "Researches a topic").with_tools(search)
    >>> helper.with_model(model).call({"task": "Why are there tides?"}).text
    'The moon causes tides.'
    """

    def default_loop_factory(self) -> LoopFactory:
        """:class:`ToolLoop`, so the tool also runs when called outside a run.

        >>> SimpleAgenticTool("helper", "Helps").default_loop_factory() is ToolLoop
        True
        """
        return ToolLoop
