"""The shapes of the YAML/dict format, as attrs classes that cattrs structures; and the
state enums of machines defined in YAML, which have no Python enum of their own.

These are intermediate forms: the converter (:mod:`statetools.spec.converter`) turns
them into the same immutable definitions the Python builders make. Field names are
the YAML keys; unknown keys are errors.

Two enums made from the same YAML are equal (same name, same members in the same
order), so a machine loaded twice, or dumped and loaded again, equals the first.

>>> a = state_enum("order", ["DRAFT", "DONE"])
>>> b = state_enum("order", ["DRAFT", "DONE"])
>>> a == b, a is b, [m.name for m in a]
(True, False, ['DRAFT', 'DONE'])
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NewType, cast

import attrs

from statetools.definitions.conditions import After, Condition, InState, When
from statetools.definitions.machine import StateMachineTool
from statetools.definitions.playbook import PlaybookTool
from statetools.definitions.search_index import SearchOptions
from statetools.definitions.unfolding import UnfoldingTool
from statetools.spec.problems import ROOT_KEYS
from statetools.tools.schema import Parameter
from statetools.tools.tool import BaseTool

DOCUMENT_KEYS = ROOT_KEYS
"""Keys of a document that may sit beside a single top-level definition."""

CONDITION_KEYS = ("after", "all_of", "any_of", "on_artifact", "on_blackboard", "in_state", "when")


class StateName(str):
    """A state of the machine being read (checked against its states)."""


@attrs.frozen
class TypeRef:
    """A class named by import path (``on_artifact: myapp.models:Order``)."""

    path: str
    value: type


@attrs.frozen
class CallableRef:
    """A function named by import path (a ``when`` predicate or transition guard)."""

    path: str
    value: Callable[..., Any]


@attrs.frozen
class EnumRef:
    """A Python enum named by import path (a machine's ``enum``)."""

    path: str
    value: type[enum.Enum]


class Names(tuple[str, ...]):
    """Tool names: one name, or a list of them."""


@attrs.frozen
class AfterForm:
    """``after: {tools: [a, b], count: 2}`` (short forms: ``after: a``, ``after: [a, b]``)."""

    tools: Names
    count: int = 1


@attrs.frozen
class InStateForm:
    """``in_state: {machine: order, state: CONFIRMED}``."""

    machine: str
    state: str


@attrs.frozen
class WhenForm:
    """``when: {predicate: myapp.rules:cart_not_empty, label: the cart is not empty}``."""

    predicate: CallableRef
    label: str | None = None


@attrs.frozen
class ConditionForm:
    """A condition: a mapping with exactly one of these keys."""

    after: After | None = None
    all_of: tuple[Condition, ...] | None = None
    any_of: tuple[Condition, ...] | None = None
    on_artifact: TypeRef | None = None
    on_blackboard: TypeRef | None = None
    in_state: InState | None = None
    when: When | None = None


@attrs.frozen
class AgentForm:
    """How the definition runs as an agentic tool (``model``: a string such as
    ``openai:gpt-4o-mini``, made into the model when the tool first runs)."""

    model: str | None = None
    system_prompt: str | None = None
    max_iterations: int = 20
    parameters: tuple[Parameter, ...] = ()


@attrs.frozen
class EntryForm:
    """A playbook tool: ``- search`` or ``- {tool: analyze, unlocked_by: search}``
    (``timeout: 5`` sets the tool's timeout, in seconds)."""

    tool: BaseTool
    unlocked_by: Condition | None = None
    timeout: Any = None


@attrs.frozen
class PlaybookForm:
    """``kind: playbook``."""

    name: str
    description: str
    tools: tuple[EntryForm, ...] = ()
    agent: AgentForm | None = None


@attrs.frozen
class TransitionForm:
    """``transitions_to: DONE`` or ``{state: DONE, when: myapp.rules:approved, label: ...}``."""

    state: StateName
    when: CallableRef | None = None
    label: str | None = None


class Transitions(tuple[TransitionForm, ...]):
    """One transition, or a list of them (guarded ones first; the first match wins)."""


@attrs.frozen
class StateToolForm:
    """A tool of a state: ``- confirm`` or ``- {tool: confirm, transitions_to: DONE}``
    (``timeout: 5`` sets the tool's timeout, in seconds)."""

    tool: BaseTool
    transitions_to: Transitions = attrs.field(factory=Transitions)
    timeout: Any = None


@attrs.frozen
class StateForm:
    """One state: ``DRAFT: {tools: [...]}`` (or nothing, for a state without tools)."""

    tools: tuple[StateToolForm, ...] = ()


@attrs.frozen
class MachineForm:
    """``kind: machine``."""

    name: str
    description: str
    enum: EnumRef | None = None
    states: dict[StateName, StateForm | None] | None = None
    initial: StateName | None = None
    global_tools: tuple[BaseTool, ...] = ()
    final_states: tuple[StateName, ...] = ()
    agent: AgentForm | None = None


@attrs.frozen
class CallForm:
    """A tool call of a script step."""

    name: str
    arguments: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class StepForm:
    """A script step: exactly one of ``answer``, ``call``, ``calls``."""

    answer: str | None = None
    call: CallForm | None = None
    calls: tuple[CallForm, ...] | None = None


class Script(tuple[Any, ...]):
    """ScriptedModel steps: a list in the document, or the path of a script file."""


@attrs.frozen
class RunContext:
    """``context:`` of a document: a factory by import path (called for every run, so
    runs never share state), or inline data."""

    value: Callable[[], Any] | Mapping[str, Any]


class ToolsFrom(tuple[str, ...]):
    """Tools files (one path or a list); their tools become schema-only tools."""


class MCPServers(dict[str, Any]):
    """``mcp_servers:`` of a document: server name -> ``statetools.mcp.MCPServer``."""


FacadeItem = NewType("FacadeItem", object)
"""An item of a facade's ``tools:``: a tool (:class:`BaseTool`), or a playbook or state
machine of the design named by its name (built, see :mod:`statetools.spec.nesting`)."""


@attrs.frozen
class FacadeForm:
    """``kind: facade`` (or a facade written inline where a tool goes).

    ``tools`` are the inner tools (names, import paths, inline facades) and playbooks
    and machines of the design, by name (:data:`FacadeItem`). With
    ``categories`` (category -> names of some of those tools) it is a by-category
    facade; tools in no category open with every category. With ``search``
    (``{max_results: 5}``) it is a search facade (``UnfoldingTool.searchable``).
    """

    name: str
    description: str
    tools: tuple[FacadeItem, ...] = ()
    categories: dict[str, tuple[str, ...]] | None = None
    category_parameter: str | None = None
    usage_notes: str | None = None
    exclusive: bool = False
    search: SearchOptions | None = None
    mcp: str | None = None
    """The ``mcp_servers:`` entry whose tools the facade opens (``tools`` picks some)."""
    by: str | None = None
    """With ``mcp``: ``annotations`` makes categories read/write from the annotations."""


FACADE_MARKERS = ("tools", "categories", "usage_notes", "exclusive", "kind", "search", "mcp")
"""Keys that make a mapping in a playbook's or state's tool list an inline facade
(an entry with a condition or transitions has ``tool`` instead)."""


Definition = PlaybookTool | StateMachineTool[Any] | UnfoldingTool
"""What a document defines."""


@attrs.frozen
class DocumentForm:
    """A whole file: definitions plus what ``statetools run`` needs.

    ``mcp_servers`` and ``tools_from`` come first: cattrs structures fields in order, so
    the servers are listed and the tools files read before the definitions that name
    their tools.
    """

    mcp_servers: MCPServers = attrs.field(factory=MCPServers)
    tools_from: ToolsFrom = attrs.field(factory=ToolsFrom)
    tools: tuple[BaseTool, ...] = ()
    """Tools named here (by import path) are known by their names in the whole file."""
    definitions: tuple[Definition, ...] = ()
    script: Script | None = None
    prompt: str | None = None
    system_prompt: str | None = None
    context: RunContext | None = None


STATE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
"""What a state name may look like (a Python identifier without leading underscore)."""


class _StateEnumType(enum.EnumType):
    """Enum classes compared by name and members, not identity."""

    def _signature(cls) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """Name and members, worked out once (an enum's members never change)."""
        signature: tuple[str, tuple[tuple[str, Any], ...]] | None = cls.__dict__.get(
            "_state_signature"
        )
        if signature is None:
            members = tuple((member.name, member.value) for member in cls)  # type: ignore[var-annotated]
            signature = (cls.__name__, members)
            type.__setattr__(cls, "_state_signature", signature)
        return signature

    def __eq__(cls, other: object) -> bool:
        if cls is other:
            return True
        if isinstance(other, _StateEnumType):
            return cls._signature() == other._signature()
        return NotImplemented

    def __hash__(cls) -> int:
        cached: int | None = cls.__dict__.get("_state_hash")
        if cached is None:  # worked out once: hashing every member each time is slow
            cached = hash(cls._signature())
            type.__setattr__(cls, "_state_hash", cached)
        return cached


class StateEnum(enum.Enum, metaclass=_StateEnumType):
    """Base of the state enums made for YAML machines (each member's value is its name)."""


def enum_name(machine: str) -> str:
    """The class name of a machine's state enum: ``order_flow`` -> ``OrderFlowState``.

    >>> enum_name("order-flow")
    'OrderFlowState'
    """
    words = re.split(r"[^A-Za-z0-9]+", machine)
    name = "".join(word[:1].upper() + word[1:] for word in words if word) or "Machine"
    if not name[0].isalpha():
        name = f"M{name}"
    return f"{name}State"


def state_enum(machine: str, states: Sequence[str]) -> type[enum.Enum]:
    """A new state enum for ``machine`` with these members (values equal names)."""
    functional: Any = StateEnum  # the functional API: StateEnum(name, members)
    made = functional(enum_name(machine), [(name, name) for name in states], module=__name__)
    return cast(type[enum.Enum], made)


def is_yaml_enum(states: type[enum.Enum]) -> bool:
    """Whether ``states`` was made by :func:`state_enum` (rather than written in Python)."""
    return isinstance(states, _StateEnumType) and states is not StateEnum
