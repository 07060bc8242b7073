"""Writing facades as YAML data (for :func:`~statetools.dump_playbook`), and the
playbooks and machines they hold.

A playbook or state machine inside a facade (a search facade's in-loop members, or a
definition with a model that runs as an agentic tool) is written under
``definitions:`` beside the facade, and the facade's ``tools:`` names it: that is how
a design file holds it (see :mod:`statetools.spec.nesting`).

>>> brake = Tool.create("press_brake", "Press the brake", lambda: "pressed")
>>> car = PlaybookTool.of("car", "Drive", [brake])
>>> print(dump_playbook(Facade.searchable("find", "Find", [car])), end="")
definitions:
  - kind: facade
    name: find
    description: Find
    search:
      max_results: 5
    tools:
      - car
  - kind: playbook
    name: car
    description: Drive
    tools:
      - press_brake
"""

from __future__ import annotations

from typing import Any, Protocol, cast

import attrs

from statetools.definitions.agentic import AgenticTool
from statetools.definitions.shared_definition import Definition
from statetools.definitions.unfolding import UnfoldingTool
from statetools.errors import SpecError
from statetools.tools.tool import BaseTool


class FacadeWriter(Protocol):
    """What :func:`facade_data` needs of the dump's writer."""

    held: list[dict[str, Any]]
    """The definitions facades hold, written so far (they go under ``definitions:``)."""

    def tool(self, tool: BaseTool) -> Any:
        """A tool reference."""

    def definition(self, definition: Any) -> dict[str, Any]:
        """A definition's data."""


def facade_data(facade: UnfoldingTool, writer: FacadeWriter, *, inline: bool) -> dict[str, Any]:
    """A facade; by-category facades list, per category, the tools that are not in
    every category (those open with every category anyway). The playbooks and machines
    it holds are named in its ``tools`` and written to ``writer.held``."""
    if facade.selector is not None:
        raise SpecError(
            "a selectable facade cannot be written to YAML (its selector is Python)",
            path=f"facade '{facade.name}'",
            hint="name the facade by import path where a tool goes",
        )
    data: dict[str, Any] = {} if inline else {"kind": "facade"}
    data.update(name=facade.name, description=facade.description)
    if facade.usage_notes is not None:
        data["usage_notes"] = facade.usage_notes
    if facade.exclusive:
        data["exclusive"] = True
    if facade.search is not None:
        data["search"] = facade.search.to_data(f"facade '{facade.name}'")
    tools = [_item(tool, writer) for tool in facade.inner]
    data["tools"] = tools + [_held(member, writer) for member in facade.members]
    if facade.category_parameter is not None:
        members = [set(names) for _, names in facade.categories]
        everywhere = set.intersection(*members) if members else set()
        data["categories"] = {
            category: [name for name in names if name not in everywhere]
            for category, names in facade.categories
        }
        if facade.category_parameter != "category":
            data["category_parameter"] = facade.category_parameter
    return data


def _item(tool: BaseTool, writer: FacadeWriter) -> Any:
    """An inner tool's reference: the name of the definition an agentic tool runs (the
    definition is written beside the facade), else the tool as anywhere."""
    definition = _definition_of(tool)
    return writer.tool(tool) if definition is None else _held(definition, writer)


def _definition_of(tool: BaseTool) -> Any:
    """The playbook or machine (with its model) an agentic tool made from one runs."""
    if not isinstance(tool, AgenticTool) or len(tool.items) != 1:
        return None
    inner = tool.items[0]
    if not isinstance(inner, Definition) or not tool.end_on_final_state:
        return None
    if (inner.name, inner.description) != (tool.name, tool.description):
        return None
    return attrs.evolve(cast(Any, inner), agent=tool.agent)


def _held(definition: Any, writer: FacadeWriter) -> str:
    """Write ``definition`` to ``writer.held`` (before what it holds) and name it."""
    slot = len(writer.held)
    writer.held.append({})
    writer.held[slot] = writer.definition(definition)
    return str(definition.name)


def with_held(written: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``written`` definitions, refused when two have one name (a definition a facade
    holds is named by its name, so names must differ)."""
    seen: set[str] = set()
    for data in written:
        name = str(data.get("name", ""))
        if name in seen and data.get("kind") in ("playbook", "machine"):
            raise SpecError(
                f"two definitions would be named '{name}'",
                path=f"{data['kind']} '{name}'",
                hint="a facade names the playbooks and machines it holds: give each its own name",
            )
        seen.add(name)
    return written
