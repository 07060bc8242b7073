"""PlaybookTool: a set of tools, some of which unlock only after others were used."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from statetools.definitions.chaining import Chaining
from statetools.definitions.conditions import (
    After,
    AllOf,
    AnyOf,
    Condition,
    ConditionView,
    OnArtifact,
    OnBlackboard,
    When,
)
from statetools.definitions.items import as_tool
from statetools.definitions.shared_definition import AgentOptions as AgentOptions
from statetools.definitions.shared_definition import Appendable, Definition
from statetools.definitions.shared_definition import SystemPrompt as SystemPrompt
from statetools.definitions.shared_definition import agent_model as agent_model
from statetools.definitions.shared_definition import agent_schema as agent_schema
from statetools.errors import DefinitionError
from statetools.tools.schema import Parameter
from statetools.tools.tool import BaseTool

Prerequisite = Any
"""A tool, an ``@llm_tool`` function, or a tool name."""


def prerequisite_name(value: Prerequisite) -> str:
    """The tool name a prerequisite refers to."""
    if isinstance(value, str):
        return value
    return as_tool(value).name


@attrs.frozen
class PlaybookEntry:
    """One tool of a playbook and the condition that unlocks it (None: always)."""

    tool: BaseTool
    condition: Condition | None = None


@attrs.frozen
class Unlock:
    """A tool of :meth:`PlaybookTool.of` that unlocks once every tool in ``after``
    succeeded (``.with_tool(tool).unlocked_by(*after)``) and, with ``when``, while that
    condition holds too (``.unlocked(when)``). ``after`` takes tools, ``@llm_tool``
    functions or tool names.

    >>> search = Tool.create("search", "Search", lambda: "found")
    >>> report = Tool.create("report", "Report", lambda: "done")
    >>> PlaybookTool.of("p", "Research", [search, Unlock(report, after=[search])]).conditions
    {'report': After(tools=('search',), count=1)}
    >>> Unlock(report, when=AnyOf(After("search"), OnArtifact(dict))).condition()
    AnyOf(conditions=(After(tools=('search',), count=1), OnArtifact(type=<class 'dict'>)))
    """

    tool: Any
    after: Sequence[Prerequisite] = attrs.field(default=(), converter=tuple)
    when: Condition | None = None

    def condition(self) -> Condition | None:
        """The condition this gives the tool (None: available from the start).

        >>> Unlock("report", after=["a", "b"]).condition()
        After(tools=('a', 'b'), count=1)
        """
        after = After([prerequisite_name(p) for p in self.after]) if self.after else None
        if after is not None and self.when is not None:
            return AllOf(after, self.when)
        return after if after is not None else self.when


def entry_name(entry: PlaybookEntry) -> str:
    """The name of an entry's tool (the key of a playbook's entries)."""
    return entry.tool.name


def _entries(entries: Any) -> Appendable[PlaybookEntry]:
    return Appendable.of(entries, entry_name)


def with_entry(
    entries: Appendable[PlaybookEntry], playbook: str, tool: Any, condition: Condition | None
) -> Appendable[PlaybookEntry]:
    """``entries`` and one more tool with its condition (in constant time); a tool
    already among them is refused (``playbook`` names the playbook in the error).

    >>> search = Tool.create("search", "Search", lambda: "found")
    >>> [e.tool.name for e in with_entry(PlaybookTool("p", "P").entries, "p", search, None)]
    ['search']
    """
    entry = PlaybookEntry(as_tool(tool), condition)
    if entries.position(entry.tool.name) is not None:
        raise DefinitionError(
            f"tool '{entry.tool.name}' is already in the playbook",
            path=f"playbook '{playbook}'",
            hint="add each tool once; combine its conditions with unlocked(AllOf(...))",
        )
    return entries.appended(entry)


@attrs.frozen
class PlaybookTool(Definition):
    """Tools that unlock as the work proceeds.

    Pass it in ``tools=[...]`` to disclose its tools inside the same conversation, or
    give it a model (:meth:`with_model`) to make it an agentic tool with its own loop.

    >>> def search(query: str) -> str:
    ...     '''Search the web.'''
    ...     return "Tides follow the moon."
    >>> def analyze(text: str) -> str:
    ...     '''Analyze a text.'''
    ...     return "The moon causes tides."
    >>> research = (
    ...     PlaybookTool("research", "Research a topic")
    ...     .with_tool(search)
    ...     .with_tool(analyze).unlocked_by(search)
    ... )
    >>> [tool.name for tool in Scheduler.for_items([research]).visible()]
    ['search']
    """

    name: str
    description: str
    entries: Appendable[PlaybookEntry] = attrs.field(default=(), converter=_entries)
    """The tools and their conditions, in order (a sequence that equals the tuple of
    them; adding one tool at a time costs constant time)."""
    last: str | None = attrs.field(default=None, eq=False)
    """The tool added last (the builder's position; not part of equality)."""
    agent: AgentOptions = attrs.field(factory=AgentOptions)
    chaining: tuple[Chaining, ...] = ()
    """Tool chaining rules of the playbook (see :meth:`with_tool_chaining_from`)."""
    preflight: Callable[[Any], None] | None = attrs.field(default=None, eq=False, repr=False)
    """Called with the run's :class:`DisclosureGraph` before a ``ToolLoop`` run starts
    (a definition loaded from YAML checks the design there); not part of equality."""

    @classmethod
    def of(
        cls, name: str, description: str, tools: Iterable[Any] = (), **options: Any
    ) -> PlaybookTool:
        """A playbook written in one go, shaped like its YAML: ``tools`` lists tools that
        are available from the start and :class:`Unlock` items for the ones that unlock.
        The same playbook as the builder's, in constant time per tool; ``options`` are
        the playbook's other fields (``chaining=...``, ``agent=...``).

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> written = PlaybookTool.of("p", "Research", [search, Unlock(report, after=[search])])
        >>> written == PlaybookTool("p", "Research").with_tool(search).with_tool(
        ...     report).unlocked_by(search)
        True
        """
        entries = _entries(())
        for item in tools:
            if isinstance(item, Unlock):
                entries = with_entry(entries, name, item.tool, item.condition())
            else:
                entries = with_entry(entries, name, item, None)
        return cls(name, description, entries=entries, **options)

    def with_tools(self, *tools: Any) -> PlaybookTool:
        """Add tools that are available from the start.

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> [tool.name for tool in p.with_tools(search, report).tools]
        ['search', 'report']
        """
        entries = self.entries
        for tool in tools:
            entries = with_entry(entries, self.name, tool, None)
        return attrs.evolve(self, entries=entries, last=None)

    def with_tool(self, tool: Any) -> PlaybookTool:
        """Add one tool; follow with ``unlocked_by...`` to give it a condition.

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> p.with_tool(search).with_tool(report).unlocked_by(search).conditions
        {'report': After(tools=('search',), count=1)}
        """
        entries = with_entry(self.entries, self.name, tool, None)
        return attrs.evolve(self, entries=entries, last=entries[-1].tool.name)

    def unlocked(self, condition: Condition) -> PlaybookTool:
        """Give the tool added last this condition (combined with AND if it has one).

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> playbook = p.with_tool(report).unlocked(After("search"))
        >>> playbook.unlocked(InState("order", "OPEN")).conditions["report"].conditions
        (After(tools=('search',), count=1), InState(machine='order', state='OPEN'))
        """
        if self.last is None:
            raise DefinitionError(
                "unlocked_by... must follow with_tool(tool)",
                path=f"playbook '{self.name}'",
                hint="write .with_tool(analyze).unlocked_by(search)",
            )
        entry = self.entries[-1]  # with_tool appends the tool and sets `last` to it
        combined = condition if entry.condition is None else AllOf(entry.condition, condition)
        entries = self.entries.with_last(attrs.evolve(entry, condition=combined))
        return attrs.evolve(self, entries=entries)

    def unlocked_by(self, *prerequisites: Prerequisite) -> PlaybookTool:
        """Unlock the last tool after every prerequisite succeeded once.

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> p.with_tool(report).unlocked_by(search, "review").conditions
        {'report': After(tools=('search', 'review'), count=1)}
        """
        return self.unlocked_by_all(*prerequisites)

    def unlocked_by_all(self, *prerequisites: Prerequisite) -> PlaybookTool:
        """Unlock the last tool after every prerequisite succeeded once.

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> p.with_tool(report).unlocked_by_all("a", "b").conditions
        {'report': After(tools=('a', 'b'), count=1)}
        """
        return self.unlocked(After([prerequisite_name(p) for p in prerequisites]))

    def unlocked_by_any(self, *prerequisites: Prerequisite) -> PlaybookTool:
        """Unlock the last tool after any one of the prerequisites succeeded.

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> p.with_tool(report).unlocked_by_any("a", "b").conditions
        {'report': AnyOf(conditions=(After(tools=('a',), count=1), After(tools=('b',), count=1)))}
        """
        return self.unlocked(AnyOf(*(After(prerequisite_name(p)) for p in prerequisites)))

    def unlocked_by_artifact(self, kind: type) -> PlaybookTool:
        """Unlock the last tool once a tool returned a value of type ``kind``.

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> p.with_tool(report).unlocked_by_artifact(dict).conditions
        {'report': OnArtifact(type=<class 'dict'>)}
        """
        return self.unlocked(OnArtifact(kind))

    def unlocked_by_blackboard(self, kind: type) -> PlaybookTool:
        """Unlock the last tool once a value of type ``kind`` is on the blackboard.

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> p.with_tool(report).unlocked_by_blackboard(dict).conditions
        {'report': OnBlackboard(type=<class 'dict'>)}
        """
        return self.unlocked(OnBlackboard(kind))

    def unlocked_when(
        self, predicate: Callable[[ConditionView], bool], label: str | None = None
    ) -> PlaybookTool:
        """Unlock the last tool while ``predicate(view)`` holds (re-checked every turn).

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> def searched_twice(view: ConditionView) -> bool:
        ...     return view.calls("search") >= 2
        >>> p.with_tool(report).unlocked_when(searched_twice).conditions["report"].label
        'searched_twice'
        """
        return self.unlocked(
            When(predicate, label or str(getattr(predicate, "__name__", "condition")))
        )

    # agentic mode -----------------------------------------------------------------

    def with_model(self, model: Any) -> PlaybookTool:
        """Run as an agentic tool: calling it runs a nested loop with ``model`` (a Model
        or a string such as ``"openai:gpt-4o-mini"``).

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> agent = p.with_tools(search).with_model(st.models.ScriptedModel(["Found."]))
        >>> outer = st.models.ScriptedModel([("p", {"task": "Find it"}), "Done."])
        >>> ToolLoop(outer).run("Go", tools=[agent]).messages[2].content  # the nested run's answer
        'Found.'
        """
        return attrs.evolve(self, agent=attrs.evolve(self.agent, model=agent_model(model)))

    def with_system_prompt(self, prompt: SystemPrompt) -> PlaybookTool:
        """The system prompt of the nested loop (agentic mode): text, or a function of
        the run context that gives it when the nested run starts.

        >>> PlaybookTool("p", "P").with_system_prompt("Be brief.").agent.system_prompt
        'Be brief.'
        """
        return attrs.evolve(self, agent=attrs.evolve(self.agent, system_prompt=prompt))

    def with_max_iterations(self, max_iterations: int) -> PlaybookTool:
        """The model-call limit of the nested loop (agentic mode).

        >>> PlaybookTool("p", "P").with_max_iterations(5).agent.max_iterations
        5
        """
        return attrs.evolve(self, agent=attrs.evolve(self.agent, max_iterations=max_iterations))

    def with_parameter(self, parameter: Parameter) -> PlaybookTool:
        """An input of the agentic tool (default: one ``task`` string).

        >>> playbook = PlaybookTool("p", "P").with_parameter(Parameter.string("city", "City"))
        >>> [parameter.name for parameter in playbook.agent.parameters]
        ['city']
        """
        return attrs.evolve(
            self, agent=attrs.evolve(self.agent, parameters=(*self.agent.parameters, parameter))
        )

    def with_tool_chaining_from(
        self,
        source: type,
        predicate: Callable[[Any], bool] | None = None,
        *,
        id_attribute: str = "id",
    ) -> PlaybookTool:
        """Declare the ``@llm_tool`` methods of ``source`` as tools; they run on the
        latest ``source`` object a tool returned (for which ``predicate`` holds).

        >>> PlaybookTool("p", "d").with_tool_chaining_from(dict).chaining
        (Chaining(source=<class 'dict'>, predicate=None, id_attribute='id'),)
        """
        return attrs.evolve(
            self,
            chaining=(
                *self.chaining,
                Chaining.from_type(source, predicate, id_attribute=id_attribute),
            ),
            last=None,
        )

    def with_tool_chaining_from_any(
        self, predicate: Callable[[Any], bool] | None = None, *, id_attribute: str = "id"
    ) -> PlaybookTool:
        """Any returned object with ``@llm_tool`` methods lends them as tools; a newer
        object replaces the previous one's tools.

        >>> PlaybookTool("p", "d").with_tool_chaining_from_any().chaining[0].source is None
        True
        """
        return attrs.evolve(
            self,
            chaining=(*self.chaining, Chaining.any(predicate, id_attribute=id_attribute)),
            last=None,
        )

    @property
    def tools(self) -> list[BaseTool]:
        """The playbook's tools in the order they were added.

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> [tool.name for tool in p.with_tool(report).with_tools(search).tools]
        ['report', 'search']
        """
        return [entry.tool for entry in self.entries]

    @property
    def conditions(self) -> dict[str, Condition]:
        """Tool name -> unlock condition, for the tools that have one.

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "Research")
        >>> p.with_tools(search).with_tool(report).unlocked_by(search).conditions
        {'report': After(tools=('search',), count=1)}
        """
        return {e.tool.name: e.condition for e in self.entries if e.condition is not None}
