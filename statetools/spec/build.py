"""Hooks that build definitions from their forms.

Playbooks and machines are built with the same builders Python code uses, so a
loaded definition equals a hand-built one. A builder's complaint (a tool added twice,
two different tools with one name) is reported at the path of the item that caused it.
Facades are built in :mod:`~statetools.spec.build_facades`.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Callable, Mapping
from typing import Any, cast, get_origin

import attrs

from statetools.definitions.machine import StateMachineTool
from statetools.definitions.playbook import AgentOptions, PlaybookTool, with_entry
from statetools.definitions.unfolding import UnfoldingTool
from statetools.errors import StatetoolsError
from statetools.models.model_strings import parse as parse_model
from statetools.spec.code_kind import CODE_KINDS
from statetools.spec.forms import (
    FACADE_MARKERS,
    AgentForm,
    Definition,
    EntryForm,
    MachineForm,
    PlaybookForm,
    StateName,
    StateToolForm,
    TransitionForm,
    Transitions,
    state_enum,
)
from statetools.spec.problems import Invalid, Several, shorten
from statetools.spec.resolve import current, import_cached, resolve_tool, state_name
from statetools.spec.section_kinds import EXTRA_KINDS as SECTION_KINDS
from statetools.spec.values import converter, describe_value, fields_of
from statetools.tools.tool import check_timeout

EXTRA_KINDS: dict[str, Callable[[Mapping[str, Any]], Any]] = {**SECTION_KINDS, **CODE_KINDS}
"""Definition kinds built by their own hooks rather than cattrs' tagged union."""

KINDS: dict[str, Any] = {
    "playbook": PlaybookTool,
    "machine": StateMachineTool,
    "facade": UnfoldingTool,
}
"""``kind`` tag -> definition class."""


def structure_agent(value: Any, _: Any) -> AgentForm:
    """``agent:`` options, with ``max_iterations`` checked here so that its problem is
    reported together with the other problems of the definition."""
    form: AgentForm = fields_of(AgentForm)(value, AgentForm)
    if form.max_iterations < 1:
        raise Invalid("max_iterations must be at least 1", at=("max_iterations",))
    if form.model is not None:
        try:
            parse_model(form.model)
        except StatetoolsError as error:
            raise Invalid(error.message, hint=error.hint, at=("model",)) from error
    return form


def _agent(definition: Any, form: AgentForm | None) -> Any:
    if form is None:
        return definition
    options = AgentOptions(
        model=form.model,
        system_prompt=form.system_prompt,
        max_iterations=form.max_iterations,
        parameters=form.parameters,
    )
    return attrs.evolve(definition, agent=options)


def _tool_item(value: Any, form: Any, example: str) -> Any:
    """A tool list item: a name, an inline facade, or a mapping of ``form``'s fields."""
    if isinstance(value, str):
        return form(resolve_tool(value))
    if not isinstance(value, Mapping):
        raise Invalid(
            f"expected a tool, got {describe_value(value)}",
            hint=f"write '- search' or '- {example}'",
        )
    if "tool" not in value and any(key in value for key in FACADE_MARKERS):
        return form(resolve_tool(value))  # a facade written inline
    item = fields_of(form)(value, form)
    if item.timeout is None:
        return item
    try:
        seconds = check_timeout(item.timeout, "timeout")
    except StatetoolsError as exc:
        raise Invalid(exc.message, hint=exc.hint, at=("timeout",)) from None
    metadata = attrs.evolve(item.tool.metadata, timeout=seconds)
    return attrs.evolve(item, tool=attrs.evolve(item.tool, metadata=metadata), timeout=None)


def structure_entry(value: Any, _: Any) -> EntryForm:
    """A playbook's tool: a name or import path, or ``{tool: ..., unlocked_by: ...}``."""
    return _tool_item(value, EntryForm, "{tool: analyze, unlocked_by: search}")  # type: ignore[no-any-return]


def build_playbook(form: PlaybookForm) -> PlaybookTool:
    """The playbook a form describes, as the PlaybookTool builder builds it (each tool
    added in constant time)."""
    entries = PlaybookTool(form.name, form.description).entries
    problems: list[Invalid] = []
    for index, entry in enumerate(form.tools):
        try:
            entries = with_entry(entries, form.name, entry.tool, entry.unlocked_by)
        except StatetoolsError as exc:
            problems.append(Invalid(exc.message, hint=exc.hint, at=("tools", index)))
    if problems:
        raise Several(problems)
    playbook = PlaybookTool(form.name, form.description, entries=entries)
    return _agent(playbook, form.agent)  # type: ignore[no-any-return]


def structure_playbook(value: Any, _: Any) -> PlaybookTool:
    """A ``kind: playbook`` definition, built."""
    return build_playbook(fields_of(PlaybookForm)(value, PlaybookForm))


def structure_transitions(value: Any, _: Any) -> Transitions:
    """``transitions_to:``: a state name, a transition mapping, or a list of them."""
    if isinstance(value, str):
        return Transitions((TransitionForm(StateName(state_name(value, StateName))),))
    if isinstance(value, Mapping):
        return Transitions((converter.structure(value, TransitionForm),))
    if isinstance(value, list | tuple):
        return Transitions(converter.structure(value, tuple[TransitionForm, ...]))
    raise Invalid(
        f"expected a state, got {describe_value(value)}",
        hint="write 'transitions_to: DONE' or {state: DONE, when: module:guard}",
    )


def structure_transition(value: Any, _: Any) -> TransitionForm:
    """One transition: a state name, or ``{state: DONE, when: PREDICATE, label: TEXT}``."""
    if isinstance(value, str):
        return TransitionForm(StateName(state_name(value, StateName)))
    return fields_of(TransitionForm)(value, TransitionForm)  # type: ignore[no-any-return]


def structure_state_tool(value: Any, _: Any) -> StateToolForm:
    """A state's tool: a name or import path, or ``{tool: ..., transitions_to: ...}``."""
    return _tool_item(value, StateToolForm, "{tool: confirm, transitions_to: DONE}")  # type: ignore[no-any-return]


def declared_states(data: Any) -> frozenset[str] | None:
    """The state names a raw machine mapping declares, if they can be told."""
    if not isinstance(data, Mapping):
        return None
    enum_path = data.get("enum")
    if isinstance(enum_path, str):
        try:
            found = import_cached(enum_path)
        except Invalid:
            return None
        if isinstance(found, type) and issubclass(found, enum.Enum):
            return frozenset(member.name for member in found)
        return None
    states = data.get("states")
    if isinstance(states, Mapping):
        return frozenset(key for key in states if isinstance(key, str))
    return None


Machine = StateMachineTool[Any]


def _apply(
    machine: Machine,
    problems: list[Invalid],
    at: tuple[str | int, ...],
    step: Callable[[Machine, Any], Machine],
    argument: Any,
) -> Machine:
    """``step(machine, argument)``, or ``machine`` unchanged when the builder refuses."""
    try:
        return step(machine, argument)
    except StatetoolsError as exc:
        problems.append(Invalid(exc.message, hint=exc.hint, at=at))
        return machine


def _initial(machine: Machine, state: str) -> Machine:
    return machine.with_initial_state(state)


def _add(machine: Machine, item: StateToolForm) -> Machine:
    machine = machine.with_tool(item.tool)
    for transition in item.transitions_to:
        guard = transition.when.value if transition.when else None
        machine = machine.transitions_to(transition.state, guard, label=transition.label)
    return machine


def _add_global(machine: Machine, tool: Any) -> Machine:
    return machine.with_global_tools(tool)


def _finals(machine: Machine, states: tuple[str, ...]) -> Machine:
    return machine.with_final_states(*states)


def build_machine(form: MachineForm) -> StateMachineTool[Any]:
    """The state machine a form describes, built with the StateMachineTool builder."""
    if form.enum is not None:
        states: type[enum.Enum] = form.enum.value
    elif not form.states:
        raise Invalid(
            "a machine needs states",
            hint="write 'states: {DRAFT: {tools: [...]}, DONE: {}}' or 'enum: module:States'",
            at=("states",),
        )
    else:
        states = state_enum(form.name, list(form.states))
    machine: StateMachineTool[Any] = StateMachineTool(form.name, form.description, states)
    problems: list[Invalid] = []
    if form.initial is not None:
        machine = _apply(machine, problems, ("initial",), _initial, form.initial)
    for state, state_form in (form.states or {}).items():
        if state_form is None or not state_form.tools:
            continue  # the builder never visits a state without tools (equality needs this)
        machine = machine.in_state(state)
        for index, item in enumerate(state_form.tools):
            machine = _apply(machine, problems, ("states", state, "tools", index), _add, item)
    for index, tool in enumerate(form.global_tools):
        machine = _apply(machine, problems, ("global_tools", index), _add_global, tool)
    if form.final_states:
        machine = _apply(machine, problems, ("final_states",), _finals, form.final_states)
    if problems:
        raise Several(problems)
    return _agent(machine, form.agent)  # type: ignore[no-any-return]


def structure_machine(value: Any, _: Any) -> StateMachineTool[Any]:
    """A ``kind: state_machine`` definition, built (its states are known while its
    tools and conditions are read, so a misspelt state is a problem at its line)."""
    context = current()
    context.states.append(declared_states(value))
    try:
        form = fields_of(MachineForm)(value, MachineForm)
    finally:
        context.states.pop()
    return build_machine(form)


def is_machine(kind: Any) -> bool:
    """Whether ``kind`` is ``StateMachineTool`` (or ``StateMachineTool[...]``)."""
    return kind is StateMachineTool or get_origin(kind) is StateMachineTool


def kind_of(kind: Any) -> str:
    """The ``kind:`` tag of a definition class (``playbook`` for ``PlaybookTool``)."""
    origin = get_origin(kind) or kind
    return next(tag for tag, cls in KINDS.items() if cls is origin)


def definition_hook(tagged: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Definition]:
    """The hook for definitions around cattrs' tagged-union hook ``tagged``: an import
    path, or a mapping whose ``kind`` is checked first (with a clear message)."""

    def structure(value: Any, _: Any = None) -> Definition:
        if isinstance(value, str):
            found = import_cached(value)
            if not isinstance(found, tuple(KINDS.values())):
                raise Invalid(
                    f"{value!r} is not a definition (it is a {type(found).__name__})",
                    hint="name a PlaybookTool, StateMachineTool or UnfoldingTool",
                )
            return cast(Definition, found)
        if not isinstance(value, Mapping):
            raise Invalid(
                f"expected a definition, got {describe_value(value)}",
                hint="a definition is a mapping with 'kind:' playbook, machine or facade",
            )
        kind = value.get("kind")
        if kind is None:
            raise Invalid(
                "'kind' is required",
                hint=f"add 'kind:' with one of: {', '.join(KINDS)}",
                at=("kind",),
            )
        if isinstance(kind, str) and kind in EXTRA_KINDS:
            return cast(Definition, EXTRA_KINDS[kind](value))
        if not isinstance(kind, str) or kind not in KINDS:
            shown = shorten(repr(kind))
            close = (
                difflib.get_close_matches(str(kind), [*KINDS, *EXTRA_KINDS], n=1)
                if len(shown) < 80
                else []
            )
            kinds = ", ".join([*KINDS, *SECTION_KINDS])  # code_mode: docs/yaml.md
            hint = f"did you mean '{close[0]}'?" if close else f"use one of: {kinds}"
            raise Invalid(f"unknown kind {shown}", hint=hint, at=("kind",))
        return cast(Definition, tagged(value, Definition))

    return structure
