"""Hooks that resolve references while structuring: tools, import paths, states, conditions.

A bad reference raises :class:`~statetools.spec.problems.Invalid` inside cattrs, so it
is reported at its own path together with every other problem of the file. What the
hooks need to know about the file being read (the registry, tools from
``tools_from``, the machine being read) is a :class:`ReadContext`, set with
:func:`reading` for the duration of one load.

Conditions are a tool name (``search``), a list of names (``[search, fetch]``), or a
mapping with one key: ``after``, ``all_of``, ``any_of``, ``on_artifact``,
``on_blackboard``, ``in_state``, ``when``.
"""

from __future__ import annotations

import contextlib
import difflib
import enum
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, cast

import attrs

from statetools.definitions.conditions import (
    After,
    AllOf,
    AnyOf,
    Condition,
    InState,
    OnArtifact,
    OnBlackboard,
    When,
)
from statetools.definitions.items import as_tool
from statetools.definitions.machine import StateMachineTool
from statetools.definitions.playbook import PlaybookTool
from statetools.definitions.unfolding import UnfoldingTool
from statetools.errors import StatetoolsError
from statetools.spec.forms import (
    CONDITION_KEYS,
    STATE_NAME,
    AfterForm,
    CallableRef,
    ConditionForm,
    EnumRef,
    InStateForm,
    Names,
    TypeRef,
    WhenForm,
)
from statetools.spec.problems import QUOTE_LIMIT, UNREAD, Invalid, Several, shorten
from statetools.spec.references import import_object, is_import_path
from statetools.spec.values import converter, describe_value, text_value
from statetools.tools.tool import TOOL_NAME_PATTERN, BaseTool


@attrs.define
class Nesting:
    """The playbooks and machines under ``definitions:`` that facades may name, and
    where each one went (see :mod:`~statetools.spec.nesting`)."""

    base: tuple[str | int, ...] = ()
    """The path of the definitions list (``("definitions",)``, or ``()`` for a list)."""
    raw: list[Any] = attrs.field(factory=list)
    """The definitions list as written."""
    names: dict[str, tuple[int, str]] = attrs.field(factory=dict)
    """Name of a playbook or machine -> (its index in the list, its kind)."""
    built: dict[int, Any] = attrs.field(factory=dict)
    """Index -> the definition built from it (None: it has problems)."""
    placed: dict[str, str] = attrs.field(factory=dict)
    """Name of a definition inside a facade -> that facade's name."""
    building: list[str] = attrs.field(factory=list)
    """The definitions being built, outermost first (a name met again is a cycle)."""
    facades: list[str] = attrs.field(factory=list)
    """The facades being read, outermost first."""
    problems: list[Any] = attrs.field(factory=list)
    """Problems of the definitions built here, at their own paths (``RawProblem``)."""
    preflight: Any = None
    """The design's check, given to every definition placed in a facade."""
    located: list[tuple[tuple[str | int, ...], Any]] = attrs.field(factory=list)
    """(path, definition) of every definition built from the list, in file order."""


@attrs.define
class ReadContext:
    """What the hooks know about the file being read."""

    base_dir: Path
    registry: Mapping[str, BaseTool] = attrs.field(factory=dict)
    catalogue: dict[str, BaseTool] = attrs.field(factory=dict)
    catalogue_complete: bool = True
    machines: dict[str, frozenset[str] | None] = attrs.field(factory=dict)
    """Machines defined in the file -> their state names (None: unknown)."""
    states: list[frozenset[str] | None] = attrs.field(factory=list)
    """The states of the machine being read (a stack; None: unknown)."""
    imported: dict[str, Any] = attrs.field(factory=dict)
    named: dict[str, BaseTool] = attrs.field(factory=dict)
    """Tools named once by import path (or in the top-level ``tools:``), by tool name:
    the rest of the file may name them by that name."""
    made: dict[str, BaseTool] = attrs.field(factory=dict)
    """The tool made from each import path (one tool, however often it is named)."""
    clashes: dict[str, list[str]] = attrs.field(factory=dict)
    """Names that two different tools of the file have -> their import paths."""
    pending: list[str] = attrs.field(factory=list)
    """Import paths in tool positions of the file, not yet imported (found by the
    pre-scan, so a name may come before the import path that defines it)."""
    mcp_servers: dict[str, Any] = attrs.field(factory=dict)
    """``mcp_servers:`` of the file: name -> ``statetools.mcp.MCPServer``."""
    nesting: Nesting = attrs.field(factory=Nesting)
    """The file's playbooks and machines that facades may hold."""


_CONTEXT: ContextVar[ReadContext] = ContextVar("statetools_spec_read_context")


@contextlib.contextmanager
def reading(context: ReadContext) -> Iterator[ReadContext]:
    """Make ``context`` the one the hooks use while the block runs."""
    token = _CONTEXT.set(context)
    try:
        yield context
    finally:
        _CONTEXT.reset(token)


def current() -> ReadContext:
    """The context of the load in progress (a default one outside loads)."""
    try:
        return _CONTEXT.get()
    except LookupError:
        return ReadContext(base_dir=Path.cwd())


def import_cached(path: str) -> Any:
    """The object at an import path (each path is imported once per load)."""
    context = current()
    if path not in context.imported:
        context.imported[path] = import_object(path, context.base_dir)
    return context.imported[path]


def structure_type_ref(value: Any, _: Any) -> TypeRef:
    """A class by import path (``myapp.models:Order``)."""
    path = text_value(value)
    found = import_cached(path)
    if not isinstance(found, type):
        raise Invalid(f"{path!r} is not a class", hint="name a class, e.g. 'myapp.models:Order'")
    return TypeRef(path, found)


def structure_callable_ref(value: Any, _: Any) -> CallableRef:
    """A function by import path (``myapp.rules:is_admin``)."""
    path = text_value(value)
    found = import_cached(path)
    if not callable(found):
        raise Invalid(f"{path!r} is not a function", hint="name a module-level function")
    return CallableRef(path, found)


def structure_enum_ref(value: Any, _: Any) -> EnumRef:
    """An ``enum.Enum`` class with members, by import path (a machine's states)."""
    path = text_value(value)
    found = import_cached(path)
    if not (isinstance(found, type) and issubclass(found, enum.Enum)):
        raise Invalid(f"{path!r} is not an Enum class", hint="name a class MyStates(enum.Enum)")
    if not list(found):
        raise Invalid(f"enum {path!r} has no members", hint="a machine needs at least one state")
    return EnumRef(path, found)


def _unknown_tool(name: str, context: ReadContext, in_facade: bool) -> Invalid:
    definitions = context.nesting.names
    if name in definitions:  # a facade's tools take these before looking for a tool
        return Invalid(
            f"'{name}' is a {definitions[name][1]} of this design, not a tool",
            hint="a facade's tools may name it (it then sits inside the facade); "
            "a tool list elsewhere names tools",
        )
    known = [*context.registry, *context.catalogue, *context.named]
    if in_facade:
        known += list(definitions)
    close = difflib.get_close_matches(name, known, n=1) if len(name) <= QUOTE_LIMIT else []
    if close and close[0] in definitions:
        hint = f"did you mean '{close[0]}', the {definitions[close[0]][1]} of this design?"
    elif close:
        hint = (
            f"did you mean '{close[0]}'? A tool that is not passed in tools=[...] is "
            "named by import path ('module:attribute')"
        )
    else:
        hint = (
            "pass the tool in tools=[...], name it by import path ('module:attribute'), "
            "or import a tools file with tools_from"
        )
    return Invalid(f"unknown tool '{shorten(name)}'", hint=hint)


def _name(context: ReadContext, tool: BaseTool, path: str) -> None:
    """Make ``tool`` (read from ``path``) known by its name in the rest of the file."""
    known = context.named.setdefault(tool.name, tool)
    if known is not tool and known != tool:
        paths = context.clashes.setdefault(tool.name, [])
        paths.append(path)


def _named(context: ReadContext, name: str) -> BaseTool | None:
    """The tool of the file called ``name``: one already read by import path, or one
    of the import paths still pending (imported now, in file order)."""
    while name not in context.named and context.pending:
        path = context.pending.pop(0)
        if path in context.made:
            continue
        try:
            resolve_tool(path)  # makes it known by its name
        except Exception:  # reported where the path is written
            continue
    if name in context.clashes:
        paths = ", ".join(repr(p) for p in context.clashes[name])
        raise Invalid(
            f"two different tools of this file are named '{name}' ({paths} and another)",
            hint="write the import path of the one you mean",
        )
    return context.named.get(name)


def resolve_tool(value: Any, _: Any = None, *, in_facade: bool = False) -> BaseTool:
    """A tool from its reference: an import path, a name in the registry or tools files,
    or a facade written inline (a mapping). ``in_facade``: the reference is in a
    facade's tools, where a playbook or machine of the design may be named too (its
    name is then suggested for a misspelt one)."""
    if isinstance(value, Mapping):
        return cast(BaseTool, converter.structure(value, UnfoldingTool))  # an inline facade
    if not isinstance(value, str):
        raise Invalid(
            f"expected a tool (a name, 'module:attribute' or a facade), got {describe_value(value)}"
        )
    context = current()
    if is_import_path(value):
        if value in context.made:
            return context.made[value]
        found = import_cached(value)
        if isinstance(found, PlaybookTool | StateMachineTool):
            raise Invalid(
                f"{value!r} is a {type(found).__name__}, not a tool",
                hint="list definitions under 'definitions:' (an import path works there)",
            )
        try:
            tool = as_tool(found)
        except StatetoolsError as exc:
            raise Invalid(exc.message, hint=exc.hint) from exc
        context.made[value] = tool
        _name(context, tool, value)
        return tool
    if value in context.registry:
        return context.registry[value]
    if value in context.catalogue:
        return context.catalogue[value]
    named = _named(context, value)
    if named is not None:
        return named
    if not context.catalogue_complete:
        raise Invalid(f"unknown tool '{value}' {UNREAD}")
    raise _unknown_tool(value, context, in_facade)


def _tool_name(value: Any) -> str:
    name = text_value(value)
    if is_import_path(name):
        raise Invalid(
            f"{name!r} is an import path; conditions name tools by their tool name",
            hint="write the name the tool has, e.g. 'search'",
        )
    if not TOOL_NAME_PATTERN.match(name):
        raise Invalid(f"{name!r} is not a valid tool name", hint="use a-z, A-Z, 0-9, '_', '-'")
    return name


def tool_names(value: Any, _: Any = None) -> Names:
    """One tool name or a list of them (as in ``after: search``)."""
    if isinstance(value, str):
        return Names((_tool_name(value),))
    if not isinstance(value, list | tuple):
        raise Invalid(f"expected a tool name or a list of them, got {describe_value(value)}")
    if not value:
        raise Invalid("the list of tool names is empty")
    names: list[str] = []
    problems: list[Invalid] = []
    for index, item in enumerate(value):
        try:
            names.append(_tool_name(item))
        except Invalid as exc:
            problems.append(Invalid(exc.message, hint=exc.hint, at=(index,)))
    if problems:
        raise Several(problems)
    return Names(names)


def state_name(value: Any, _: Any = None) -> str:
    """A state name, checked against the states of the machine being read."""
    name = text_value(value)
    if not STATE_NAME.match(name):
        raise Invalid(
            f"{shorten(name)!r} is not a valid state name",
            hint="start with a letter; use letters, digits and '_'",
        )
    stack = current().states
    known = stack[-1] if stack else None
    if known is not None and name not in known:
        close = difflib.get_close_matches(name, sorted(known), n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"states: {', '.join(sorted(known))}"
        raise Invalid(f"unknown state '{shorten(name)}'", hint=hint)
    return name


def structure_after(value: Any, _: Any) -> After:
    """``after:``: a tool name, a list of them, or ``{tools: [...], count: N}``."""
    if isinstance(value, Mapping):
        form = converter.structure(value, AfterForm)
        if form.count < 1:
            raise Invalid("count must be at least 1", at=("count",))
        return After(list(form.tools), form.count)
    return After(list(tool_names(value, Names)))


def structure_in_state(value: Any, _: Any) -> InState:
    """``in_state: {machine: M, state: S}``, the state checked against the machine's
    when the machine is known."""
    form = converter.structure(value, InStateForm)
    states = current().machines.get(form.machine)
    if states is not None and form.state not in states:
        raise Invalid(
            f"machine '{form.machine}' has no state '{form.state}'",
            hint=f"states: {', '.join(sorted(states))}",
            at=("state",),
        )
    return InState(form.machine, form.state)


def _label(predicate: Callable[..., Any]) -> str:
    return str(getattr(predicate, "__name__", "condition"))


def structure_when(value: Any, _: Any) -> When:
    """``when:``: a predicate's import path, or ``{predicate: PATH, label: TEXT}``."""
    if isinstance(value, str):
        ref = structure_callable_ref(value, CallableRef)
        return When(ref.value, _label(ref.value))
    form = converter.structure(value, WhenForm)
    label = form.label if form.label is not None else _label(form.predicate.value)
    return When(form.predicate.value, label)


def structure_condition(value: Any, _: Any = None) -> Condition:
    """A condition: a tool name, a list of tool names, or a mapping with one key."""
    if isinstance(value, str | list):
        return structure_after(value, After)
    if not isinstance(value, Mapping):
        raise Invalid(
            f"expected a condition, got {describe_value(value)}",
            hint="write a tool name, a list of names, or {after: ...}, {any_of: [...]}, ...",
        )
    known = [key for key in value if key in CONDITION_KEYS]
    if not value:
        raise Invalid("an empty condition", hint=f"use one of: {', '.join(CONDITION_KEYS)}")
    if len(known) > 1:
        raise Invalid(
            f"a condition has one key, found {', '.join(map(str, known))}",
            hint="combine conditions with all_of: [...] or any_of: [...]",
        )
    form = converter.structure(value, ConditionForm)
    if form.after is not None:
        return form.after
    if form.all_of is not None:
        return AllOf(*form.all_of)
    if form.any_of is not None:
        return AnyOf(*form.any_of)
    if form.on_artifact is not None:
        return OnArtifact(form.on_artifact.value)
    if form.on_blackboard is not None:
        return OnBlackboard(form.on_blackboard.value)
    if form.in_state is not None:
        return form.in_state
    if form.when is not None:
        return form.when
    raise Invalid("an empty condition", hint=f"use one of: {', '.join(CONDITION_KEYS)}")


def structure_optional_condition(value: Any, _: Any) -> Condition | None:
    """A condition, or None when the field is empty."""
    return None if value is None else structure_condition(value)
