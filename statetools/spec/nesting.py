"""Playbooks and state machines inside facades: a facade's ``tools:`` may name a
playbook or machine defined under ``definitions:`` of the same design.

The named definition then sits inside the facade, as
``Facade.searchable(..., [tool, playbook])`` puts it there in Python, and is no longer
a top-level item of the design. Definitions are built once each, in file order, or
earlier when a facade names one written further down; each one's problems are
reported at its own path. A definition sits in one facade, cannot hold the facade
that holds it, and its name must not also be a tool's.

>>> from statetools import Tool
>>> radio = Tool.create("radio", "Play the radio", lambda: "on")
>>> brake = Tool.create("press_brake", "Press the brake", lambda: "pressed")
>>> design = load_design('''
... definitions:
...   - {kind: facade, name: find, description: Find, search: {}, tools: [radio, car]}
...   - {kind: playbook, name: car, description: Drive, tools: [press_brake]}
... ''', tools=[radio, brake])
>>> [d.name for d in design.definitions], [m.name for m in design.definitions[0].members]
(['find'], ['car'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from statetools.definitions.shared_definition import Definition as PlaybookOrMachine
from statetools.spec.forms import Definition, FacadeItem
from statetools.spec.problems import Invalid, Several, problems_of
from statetools.spec.resolve import ReadContext, current, resolve_tool
from statetools.spec.values import converter, describe_value, list_hint

DEFINITION: Any = Definition  # a union: cattrs' hook for it is registered by the converter

NESTABLE = ("playbook", "machine")
"""The kinds a facade's ``tools:`` may name."""


def structure_definitions(value: Any, _: Any) -> tuple[Definition, ...]:
    """A design's definitions list: each definition built once (earlier when a facade
    names it), the problems of each kept at its path; those placed in a facade left
    out of the result."""
    if not isinstance(value, list | tuple):
        raise Invalid(f"expected a list, got {describe_value(value)}", hint=list_hint(value))
    nesting = current().nesting
    nesting.raw = list(value)
    for index, item in enumerate(value):
        if not isinstance(item, Mapping) or item.get("kind") not in NESTABLE:
            continue
        if isinstance(item.get("name"), str):
            nesting.names.setdefault(item["name"], (index, item["kind"]))
    built = [build_at(current(), index) for index in range(len(value))]
    inside = {nesting.names[name][0] for name in nesting.placed}
    nesting.located = [((*nesting.base, i), d) for i, d in enumerate(built) if d is not None]
    return tuple(d for i, d in enumerate(built) if d is not None and i not in inside)


def build_at(context: ReadContext, index: int) -> Any:
    """The definition at ``index`` of the list, built on first use (None when it has
    problems: they are kept in ``nesting.problems``)."""
    nesting = context.nesting
    if index in nesting.built:
        return nesting.built[index]
    raw = nesting.raw[index]
    name = raw.get("name") if isinstance(raw, Mapping) else None
    nesting.building.append(name if isinstance(name, str) else "")
    context.states.append(None)  # not inside the machine whose facade named it
    nesting.facades.append("")  # nor in the facade's tools
    try:
        definition: Any = converter.structure(raw, DEFINITION)
    except Exception as exc:  # every problem becomes part of one SpecError
        nesting.problems.extend(problems_of(exc, (*nesting.base, index)))
        definition = None
    finally:
        nesting.facades.pop()
        context.states.pop()
        nesting.building.pop()
    nesting.built[index] = definition
    return definition


def structure_facade_item(value: Any, _: Any) -> FacadeItem:
    """An item of a facade's ``tools:``: a playbook or machine of the design by its
    name, or else a tool (as anywhere a tool goes)."""
    context = current()
    if isinstance(value, str) and value in context.nesting.names:
        return FacadeItem(_place(context, value))
    return FacadeItem(resolve_tool(value, in_facade=True))


def _place(context: ReadContext, name: str) -> Any:
    nesting = context.nesting
    index, kind = nesting.names[name]
    facade = nesting.facades[-1]  # the facade whose tools are being read
    if _is_tool_name(name):
        raise Invalid(
            f"'{name}' is both a tool and a {kind} of this design",
            hint=f"rename the {kind} or the tool, so that '{name}' names one of them",
        )
    if name in nesting.building:
        through = nesting.building[nesting.building.index(name) + 1 :]
        path = "".join(f", through {nesting.names[n][1]} '{n}'" for n in through if n)
        raise Invalid(
            f"facade '{facade}' is inside {kind} '{name}'{path}, so it cannot hold it",
            hint=f"name '{name}' in a facade outside it",
        )
    if name in nesting.placed:
        raise Invalid(
            f"{kind} '{name}' is already inside facade '{nesting.placed[name]}'",
            hint=f"a {kind} sits in one facade: name it in one facade's tools only",
        )
    definition = build_at(context, index)
    if definition is None:
        raise Several([])  # its problems are reported where it is defined
    nesting.placed[name] = facade
    if nesting.preflight is not None:
        definition = attrs.evolve(definition, preflight=nesting.preflight)
    return definition


def _is_tool_name(name: str) -> bool:
    """Whether ``name`` is also the name of a tool of the file (passed, imported, listed)."""
    try:
        resolve_tool(name)
    except Invalid:
        return False
    return True


def held_definitions(items: Any) -> list[tuple[int, Any]]:
    """(index, definition) of the playbooks and machines among a facade's items."""
    return [(i, item) for i, item in enumerate(items) if _is_definition(item)]


def _is_definition(item: Any) -> bool:
    return isinstance(item, PlaybookOrMachine)
