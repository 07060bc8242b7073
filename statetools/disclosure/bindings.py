"""A run's bound objects: chained instances and discovered entities.

The scheduler asks :meth:`Bindings.observe` about every result value and applies the
:class:`Plan` objects it returns (tools to add, replace or remove).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from statetools.disclosure.chaining import ChainedTool, unbound_message
from statetools.disclosure.discovery import (
    NoId,
    entity_id,
    provider_tools,
    providers_in,
    template_name,
)
from statetools.tools.classes import provider_spec
from statetools.tools.decorators import marked_methods
from statetools.tools.tool import BaseTool, Tool

if TYPE_CHECKING:
    from statetools.disclosure.graph import DisclosureGraph

_PLAIN = (str, bytes, int, float, bool, dict, set, frozenset)


@attrs.frozen
class Plan:
    """Tool changes from one result: remove ``remove``, then add (or replace) ``add``.

    ``over_limit`` lists tools not added because the run's limit was reached.
    """

    source: str
    add: tuple[BaseTool, ...] = ()
    remove: tuple[str, ...] = ()
    over_limit: tuple[str, ...] = ()
    no_id: tuple[tuple[str, str], ...] = ()
    """(tool name template, reason) of tools whose object has no id."""


class Bindings:
    """Chained instances (last wins) and discovered entities of one run."""

    def __init__(self, graph: DisclosureGraph, limit: int) -> None:
        self.graph = graph
        self.limit = limit
        self.instances: dict[str, Any] = {}
        """The newest bound instance per chained type key."""
        self._bound: dict[str, tuple[Any, BaseTool]] = {}
        self._any_names: tuple[str, ...] = ()
        self._entities: dict[tuple[str, str], tuple[str, ...]] = {}
        self._discovered = 0
        self._has_methods: dict[type, bool] = {}

    def tool(self, name: str) -> BaseTool | None:
        """The tool to run for chained tool ``name``: bound to the newest instance."""
        declared = self.graph.entries[name].tool
        if not isinstance(declared, ChainedTool):
            return declared
        instance = self.instances.get(self.graph.chained[name])
        if instance is None:
            return None
        cached = self._bound.get(name)
        if cached is not None and cached[0] is instance:
            return cached[1]
        tool = declared.bind(instance)
        self._bound[name] = (instance, tool)
        return tool

    def reason(self, name: str) -> str | None:
        """Why chained tool ``name`` cannot run yet (None when it can, or is not chained)."""
        entry = self.graph.entries.get(name)
        if entry is None or not isinstance(entry.tool, ChainedTool) or self.tool(name):
            return None
        producers = self.graph.producers(self.graph.chained[name])
        return unbound_message(name, entry.tool.source, producers)

    def observe(self, value: Any) -> list[Plan]:
        """Bind what ``value`` offers; the tool changes to make."""
        if value is None or isinstance(value, _PLAIN):
            return []
        plans: list[Plan] = []
        found = providers_in(value)
        if found:
            plans.append(self._discover(found))
        bound = False
        for key, rule in self.graph.chains.items():
            if rule.accepts(value):
                self.instances[key] = value
                bound = True
        any_rule = self.graph.chain_any
        if (
            any_rule is not None
            and not (bound or found)
            and self._offers_tools(value)
            and any_rule.accepts(value)
        ):
            plans.append(self._rebind_any(value))
        return plans

    def _offers_tools(self, value: Any) -> bool:
        kind = type(value)
        if kind not in self._has_methods:
            self._has_methods[kind] = (
                not isinstance(value, list | tuple)
                and provider_spec(kind) is None
                and next(marked_methods(kind), None) is not None
            )
        return self._has_methods[kind]

    def _rebind_any(self, value: Any) -> Plan:
        previous = self._any_names
        tools = method_tools(value)
        self._any_names = tuple(tool.name for tool in tools)
        return Plan("chaining", tuple(tools), previous)

    def _discover(self, found: list[tuple[Any, Any]]) -> Plan:
        added: list[BaseTool] = []
        over: list[str] = []
        no_id: list[tuple[str, str]] = []
        for obj, spec in found:
            identifier = entity_id(obj, spec)
            if isinstance(identifier, NoId):
                for attribute, method in marked_methods(type(obj)):
                    template = template_name(spec, method.name or attribute)
                    no_id.append((template, identifier.reason))
                continue
            tools = provider_tools(obj, spec, identifier)
            key = (spec.prefix, identifier)
            if key in self._entities:  # the same entity again: rebind its tools
                added.extend(tools)
                continue
            if self._discovered + len(tools) > self.limit:
                over.extend(tool.name for tool in tools)
                continue
            self._entities[key] = tuple(tool.name for tool in tools)
            self._discovered += len(tools)
            added.extend(tools)
        return Plan("discovery", tuple(added), (), tuple(over), tuple(no_id))


def method_tools(value: Any) -> list[BaseTool]:
    """The ``@llm_tool`` methods of ``value`` as tools bound to it (never a facade)."""
    return [
        Tool.from_function(getattr(value, attribute))
        for attribute, _ in marked_methods(type(value))
    ]
