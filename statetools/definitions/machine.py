"""StateMachineTool: each state exposes its tools; calling a tool can change the state."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

import attrs

from statetools.definitions.items import as_tool
from statetools.definitions.moves import Guard as Guard
from statetools.definitions.moves import Move as Move
from statetools.definitions.moves import Transition as Transition
from statetools.definitions.shared_definition import (
    AgentOptions,
    Appendable,
    Definition,
    SystemPrompt,
    agent_model,
)
from statetools.errors import DefinitionError
from statetools.tools.schema import Parameter
from statetools.tools.tool import BaseTool

E = TypeVar("E", bound=enum.Enum)


def _tool_name(tool: BaseTool) -> str:
    """The key of a machine's tools."""
    return tool.name


def _tools(tools: Any) -> Appendable[BaseTool]:
    return Appendable.of(tools, _tool_name)


def _pairs(pairs: Any) -> Appendable[tuple[str, str]]:
    return Appendable.of(pairs)


def _transitions(transitions: Any) -> Appendable[Transition]:
    return Appendable.of(transitions)


def _names(names: Any) -> Appendable[str]:
    return Appendable.of(names)


_NAMES: dict[int, tuple[type[enum.Enum], tuple[str, ...], frozenset[str]]] = {}
"""Member names of the enums machines were built with, by the enum's id (the enum is
kept, so the id stays its own; an enum class may define its own equality and hash,
which this never calls)."""


def _names_of(states: type[enum.Enum]) -> tuple[tuple[str, ...], frozenset[str]]:
    """The member names of an enum, in order and as a set (enums never change)."""
    found = _NAMES.get(id(states))
    if found is not None and found[0] is states:
        return found[1], found[2]
    names = tuple(member.name for member in states)
    if len(_NAMES) >= 256:
        _NAMES.clear()
    _NAMES[id(states)] = (states, names, frozenset(names))
    return names, frozenset(names)


@attrs.frozen
class StateMachineTool(Definition, Generic[E]):
    """An enum of states, the tools of each state, and the transitions between them.

    >>> class Order(enum.Enum):
    ...     DRAFT = "draft"
    ...     CONFIRMED = "confirmed"
    >>> def confirm() -> str:
    ...     '''Confirm the order.'''
    ...     return "confirmed"
    >>> machine = (
    ...     StateMachineTool("order", "Handle one order", Order)
    ...     .with_initial_state(Order.DRAFT)
    ...     .in_state(Order.DRAFT).with_tool(confirm).transitions_to(Order.CONFIRMED)
    ...     .with_final_states(Order.CONFIRMED)
    ... )
    >>> machine.transitions
    (Transition(source='DRAFT', tool='confirm', target='CONFIRMED', guard=None, label=None),)
    """

    name: str
    description: str
    states: type[E]
    initial: str | None = None
    tools: Appendable[BaseTool] = attrs.field(default=(), converter=_tools)
    """The machine's tools, in order (a sequence that equals the tuple of them; the
    builder adds one in constant time, as it does pairs and transitions)."""
    availability: Appendable[tuple[str, str]] = attrs.field(default=(), converter=_pairs)
    """(tool name, state name) pairs."""
    transitions: Appendable[Transition] = attrs.field(default=(), converter=_transitions)
    global_tools: Appendable[str] = attrs.field(default=(), converter=_names)
    final_states: tuple[str, ...] = ()
    cursor: str | None = attrs.field(default=None, eq=False)
    """The state selected by in_state (the builder's position; not part of equality)."""
    last: str | None = attrs.field(default=None, eq=False)
    """The tool added last (the builder's position; not part of equality)."""
    agent: AgentOptions = attrs.field(factory=AgentOptions)
    preflight: Callable[[Any], None] | None = attrs.field(default=None, eq=False, repr=False)
    """Called with the run's :class:`DisclosureGraph` before a ``ToolLoop`` run starts
    (a definition loaded from YAML checks the design there); not part of equality."""
    _states_by_tool: dict[str, list[str]] | None = attrs.field(
        init=False, default=None, eq=False, hash=False, repr=False
    )

    def __attrs_post_init__(self) -> None:
        if not (isinstance(self.states, type) and issubclass(self.states, enum.Enum)):
            raise DefinitionError(
                f"states must be an Enum class, got {self.states!r}",
                path=f"machine '{self.name}'",
                hint="define class MyStates(enum.Enum) with one member per state",
            )

    @classmethod
    def of(
        cls,
        name: str,
        description: str,
        states: type[E],
        *,
        initial: E | str | None = None,
        tools: Mapping[E | str, Iterable[Any]] | None = None,
        global_tools: Iterable[Any] = (),
        final: Iterable[E | str] = (),
    ) -> StateMachineTool[E]:
        """A machine written in one go, shaped like its YAML: ``tools`` gives each state
        its tools, a :class:`Move` for a tool that moves the machine to another state.
        The same machine as the builder's (``in_state(S).with_tool(t)``,
        ``.transitions_to(S2)``, ``with_global_tools``, ``with_final_states``), in
        constant time per tool.

        >>> import enum
        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> edit, confirm = (Tool.create(n, n.title(), lambda: "ok") for n in ("edit", "confirm"))
        >>> written = StateMachineTool.of(
        ...     "order", "Order", Order, initial=Order.DRAFT,
        ...     tools={Order.DRAFT: [edit, Move(confirm, to=Order.CONFIRMED)]},
        ...     final=[Order.CONFIRMED],
        ... )
        >>> built = (
        ...     StateMachineTool("order", "Order", Order).with_initial_state(Order.DRAFT)
        ...     .in_state(Order.DRAFT).with_tool(edit)
        ...     .with_tool(confirm).transitions_to(Order.CONFIRMED)
        ...     .with_final_states(Order.CONFIRMED)
        ... )
        >>> written == built
        True
        """
        machine = cls(name, description, states)
        if initial is not None:
            machine = machine.with_initial_state(initial)
        for state, listed in (tools or {}).items():
            machine = machine.in_state(state)
            for item in listed:
                if isinstance(item, Move):
                    machine = machine.with_tool(item.tool)
                    machine = machine.transitions_to(item.to, item.when, label=item.label)
                else:
                    machine = machine.with_tool(item)
        global_tools = tuple(global_tools)
        if global_tools:
            machine = machine.with_global_tools(*global_tools)
        final = tuple(final)
        if final:
            machine = machine.with_final_states(*final)
        return attrs.evolve(machine, cursor=None, last=None)

    @property
    def state_names(self) -> list[str]:
        """The names of every state, in enum order.

        >>> StateMachineTool("order", "Order", enum.Enum("Order", "DRAFT CONFIRMED")).state_names
        ['DRAFT', 'CONFIRMED']
        """
        return list(_names_of(self.states)[0])

    def _state(self, state: Any, what: str) -> str:
        name = state.name if isinstance(state, enum.Enum) else state
        if isinstance(state, enum.Enum) and not isinstance(state, self.states):
            name = None
        if name not in _names_of(self.states)[1]:
            raise DefinitionError(
                f"{what} {state!r} is not a state of {self.states.__name__}",
                path=f"machine '{self.name}'",
                hint=f"use one of: {', '.join(self.state_names)}",
            )
        return str(name)

    def with_initial_state(self, state: E | str) -> StateMachineTool[E]:
        """The state the machine starts in.

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> order.with_initial_state(Order.CONFIRMED).initial_state()
        'CONFIRMED'
        """
        return attrs.evolve(self, initial=self._state(state, "initial state"))

    def starting_in(self, state: E | str) -> StateMachineTool[E]:
        """The same machine starting in another state.

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> machine = order.with_initial_state("DRAFT")
        >>> machine.starting_in("CONFIRMED").initial_state(), machine.initial_state()
        ('CONFIRMED', 'DRAFT')
        """
        return self.with_initial_state(state)

    def in_state(self, state: E | str) -> StateMachineTool[E]:
        """Select the state that following ``with_tool`` calls add tools to.

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> order.in_state(Order.DRAFT).with_tool(confirm).availability
        (('confirm', 'DRAFT'),)
        """
        return attrs.evolve(self, cursor=self._state(state, "state"), last=None)

    def _add_tool(self, tool: Any) -> tuple[Appendable[BaseTool], str]:
        resolved = as_tool(tool)
        position = self.tools.position(resolved.name)
        if position is None:
            return self.tools.appended(resolved), resolved.name
        existing = self.tools[position]
        if existing is not resolved and existing != resolved:
            raise DefinitionError(
                f"two different tools are named '{resolved.name}'",
                path=f"machine '{self.name}'",
                hint="give them different names",
            )
        return self.tools, resolved.name

    def with_tool(self, tool: Any) -> StateMachineTool[E]:
        """Make ``tool`` available in the selected state (a tool may be in several).

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> machine = order.in_state("DRAFT").with_tool(confirm)
        >>> machine.in_state("CONFIRMED").with_tool(confirm).states_of("confirm")
        ['DRAFT', 'CONFIRMED']
        """
        if self.cursor is None:
            raise DefinitionError(
                "with_tool must follow in_state(state)",
                path=f"machine '{self.name}'",
                hint="write .in_state(States.DRAFT).with_tool(tool)",
            )
        tools, name = self._add_tool(tool)
        pair = (name, self.cursor)
        availability = (
            self.availability
            if self.availability.position(pair) is not None
            else self.availability.appended(pair)
        )
        return attrs.evolve(self, tools=tools, availability=availability, last=name)

    def transitions_to(
        self, state: E | str, when: Guard | None = None, *, label: str | None = None
    ) -> StateMachineTool[E]:
        """After the last added tool succeeds in the selected state, move to ``state``.

        ``when`` guards the transition with a test of the tool's result.


        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> machine = order.in_state("DRAFT").with_tool(confirm)
        >>> [transition] = machine.transitions_to("CONFIRMED", lambda r: not r.is_error).transitions
        >>> transition.source, transition.target, transition.label
        ('DRAFT', 'CONFIRMED', 'guarded')
        """
        if self.cursor is None or self.last is None:
            raise DefinitionError(
                "transitions_to must follow in_state(state).with_tool(tool)",
                path=f"machine '{self.name}'",
                hint="write .in_state(A).with_tool(tool).transitions_to(B)",
            )
        if when is not None and label is None:
            name = getattr(when, "__name__", "")
            label = name if name and name != "<lambda>" else "guarded"
        transition = Transition(self.cursor, self.last, self._state(state, "target"), when, label)
        return attrs.evolve(self, transitions=self.transitions.appended(transition))

    def with_global_tools(self, *tools: Any) -> StateMachineTool[E]:
        """Tools available in every state.

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> help_tool = Tool.create("help", "Help", lambda: "Ask away.")
        >>> order.with_global_tools(help_tool).states_of("help")
        ['DRAFT', 'CONFIRMED']
        """
        machine = self
        for tool in tools:
            new_tools, name = machine._add_tool(tool)
            if name not in machine.global_tools:
                machine = attrs.evolve(
                    machine, tools=new_tools, global_tools=machine.global_tools.appended(name)
                )
        return attrs.evolve(machine, last=None)

    def with_final_states(self, *states: E | str) -> StateMachineTool[E]:
        """States that end the work (an agentic machine returns when it reaches one).

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> order.with_final_states(Order.CONFIRMED).final_states
        ('CONFIRMED',)
        """
        names = tuple(self._state(s, "final state") for s in states)
        return attrs.evolve(self, final_states=tuple(dict.fromkeys((*self.final_states, *names))))

    # agentic mode ---------------------------------------------------------------

    def with_model(self, model: Any) -> StateMachineTool[E]:
        """Run as an agentic tool with its own nested loop and ``model`` (a Model or a
        string such as ``"openai:gpt-4o-mini"``).

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> machine = order.in_state("DRAFT").with_tool(confirm)
        >>> agent = machine.with_model(st.models.ScriptedModel(["Confirmed."]))
        >>> outer = st.models.ScriptedModel([("order", {"task": "Confirm it"}), "Done."])
        >>> ToolLoop(outer).run("Go", tools=[agent]).messages[2].content  # the nested run's answer
        'Confirmed.'
        """
        return attrs.evolve(self, agent=attrs.evolve(self.agent, model=agent_model(model)))

    def with_system_prompt(self, prompt: SystemPrompt) -> StateMachineTool[E]:
        """The system prompt of the nested loop (agentic mode): text, or a function of
        the run context that gives it when the nested run starts.

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> order.with_system_prompt("Be brief.").agent.system_prompt
        'Be brief.'
        """
        return attrs.evolve(self, agent=attrs.evolve(self.agent, system_prompt=prompt))

    def with_max_iterations(self, max_iterations: int) -> StateMachineTool[E]:
        """The model-call limit of the nested loop (agentic mode).

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> order.with_max_iterations(5).agent.max_iterations
        5
        """
        return attrs.evolve(self, agent=attrs.evolve(self.agent, max_iterations=max_iterations))

    def with_parameter(self, parameter: Parameter) -> StateMachineTool[E]:
        """An input of the agentic tool (default: one ``task`` string).

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> machine = order.with_parameter(Parameter.string("id", "Id"))
        >>> [parameter.name for parameter in machine.agent.parameters]
        ['id']
        """
        return attrs.evolve(
            self, agent=attrs.evolve(self.agent, parameters=(*self.agent.parameters, parameter))
        )

    def states_of(self, tool: str) -> list[str]:
        """The states in which ``tool`` is available (all states for global tools).

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> machine = order.in_state("DRAFT").with_tool(confirm)
        >>> machine.states_of("confirm")
        ['DRAFT']
        """
        if tool in self.global_tools:
            return self.state_names
        by_tool = self._states_by_tool
        if by_tool is None:  # one pass over the pairs, kept: the machine never changes
            by_tool = {}
            for name, state in self.availability:
                by_tool.setdefault(name, []).append(state)
            object.__setattr__(self, "_states_by_tool", by_tool)
        return list(by_tool.get(tool, ()))

    def initial_state(self) -> str:
        """The initial state (the first enum member when none was set).

        >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
        >>> confirm = Tool.create("confirm", "Confirm the order", lambda: "ok")
        >>> order = StateMachineTool("order", "Handle one order", Order)
        >>> order.initial_state()
        'DRAFT'
        """
        return self.initial or self.state_names[0]
