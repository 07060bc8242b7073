"""Chaining and discovery: what tools return, and the objects a run binds.

Compiling reads return annotations (:func:`return_links`: the tools producing a chained
type, the tools discovery will add). A run asks :meth:`Bindings.observe` about every
result value and applies the :class:`Plan` objects it returns (tools to add or remove).
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from statetools.definitions.chaining import ANY_KEY, ChainedTool, Chaining, unbound_message
from statetools.definitions.conditions import type_key
from statetools.definitions.discovery import (
    NoId,
    entity_id,
    object_id,
    provider_tools,
    providers_in,
    template_name,
)
from statetools.engine.code_view import ScriptMember
from statetools.tools.decorators import marked_methods, provider_spec
from statetools.tools.tool import BaseTool, Tool
from statetools.tools.wrappers import unwrap

if TYPE_CHECKING:
    from statetools.engine.graph import DisclosureGraph

_PLAIN = (str, bytes, int, float, bool, dict, set, frozenset)
_CHAINED = "its tools work in this run, but a resumed run cannot find it again"


def _returned_classes(tool: BaseTool | Callable[..., Any], *, inside: bool = True) -> set[type]:
    """The classes a tool's handler (or a function) says it returns, from its return
    annotation, looking inside ``list[X]``, ``X | None`` and the like. With
    ``inside=False`` only the classes the value itself may be (``X``, ``X | None``,
    ``Annotated[X, ...]``): what chaining can bind; a ``list[X]`` never binds.

    >>> class Order: ...
    >>> def find() -> list[Order] | None: ...
    >>> _returned_classes(Tool.create("find", "Find", find)) == {Order}
    True
    >>> _returned_classes(find, inside=False)
    set()
    """
    target: Any = tool
    if isinstance(tool, BaseTool):
        target = getattr(unwrap(tool), "handler", None)
    if target is None:
        return set()
    while isinstance(target, functools.partial):
        target = target.func
    if not inspect.isroutine(target):
        target = type(target).__call__
    try:
        hints = typing.get_type_hints(target)
    except Exception:
        return set()
    return _classes(hints.get("return"), inside)


def _classes(annotation: Any, inside: bool = True) -> set[type]:
    arguments = typing.get_args(annotation)
    if arguments:
        origin = typing.get_origin(annotation)
        if not inside and origin is typing.Annotated:
            return _classes(arguments[0], inside)
        if not inside and origin not in (typing.Union, types.UnionType):
            return set()  # a container of values: the value itself is none of them
        found: set[type] = set()
        for argument in arguments:
            found |= _classes(argument, inside)
        return found
    if isinstance(annotation, type) and annotation.__module__ not in ("builtins", "typing"):
        return {annotation}
    return set()


@attrs.frozen
class ReturnLinks:
    """``producers``: chained type key -> tools returning it (as the value itself, so
    that it binds; not inside a list); ``templates``: nodes of
    tools discovery would add; ``edges``: ``chains_from`` pairs (source, target)."""

    producers: dict[str, list[str]]
    templates: list[tuple[str, dict[str, Any]]]
    edges: list[tuple[str, str]]


def return_links(
    tools: Mapping[str, BaseTool],
    chains: Mapping[str, Chaining],
    chained: Mapping[str, str],
    node_of: Callable[[str], str],
) -> ReturnLinks:
    """Follow the return annotations of ``tools`` (name -> tool)."""
    makers: dict[type, list[str]] = defaultdict(list)
    binders: dict[type, list[str]] = defaultdict(list)
    for name, tool in tools.items():
        for cls in _returned_classes(tool):
            makers[cls].append(name)
        if chains:
            for cls in _returned_classes(tool, inside=False):
                binders[cls].append(name)
    producers: dict[str, list[str]] = {}
    for key, rule in chains.items():
        source = rule.source
        assert source is not None
        names = [n for cls, ns in binders.items() if issubclass(cls, source) for n in ns]
        producers[key] = list(dict.fromkeys(names))
    edges = [(node_of(name), node_of(p)) for name, key in chained.items() for p in producers[key]]
    made_by = {cls: [node_of(n) for n in ns] for cls, ns in makers.items()}
    templates: list[tuple[str, dict[str, Any]]] = []
    provided: list[tuple[str, type]] = []
    queue = [cls for cls in makers if provider_spec(cls) is not None]
    seen: set[type] = set()
    while queue:
        cls = queue.pop(0)
        spec = provider_spec(cls)
        if cls in seen or spec is None:
            continue
        seen.add(cls)
        for attribute, method in marked_methods(cls):
            label = template_name(spec, method.name or attribute)
            node = f"tool:{label}"
            templates.append((node, {"label": label, "template": True, "provider": cls.__name__}))
            provided.append((node, cls))
            for made in _returned_classes(getattr(cls, attribute)):
                made_by.setdefault(made, []).append(node)
                queue.append(made)
    edges += [(node, producer) for node, cls in provided for producer in made_by.get(cls, [])]
    return ReturnLinks(producers, templates, edges)


@attrs.frozen
class Plan:
    """Tool changes from one result: remove ``remove``, then add (or replace) ``add``.

    ``over_limit`` lists tools not added because the run's limit was reached.
    """

    source: str
    add: tuple[BaseTool, ...] = ()
    remove: tuple[str, ...] = ()
    over_limit: tuple[str, ...] = ()
    not_added: tuple[tuple[str, str], ...] = ()
    """(name, reason) of tools left out: a provider object without an id (the name is
    a template), a chaining predicate that failed."""
    usable: tuple[str, ...] = ()
    """Chained tools (declared from the start) that the first bound object made usable."""


DISCOVERY_DEPTH = 5
"""How deeply discovered tools may nest: objects returned by a tool of the design are
found at depth 1, objects returned by their tools at depth 2, and so on. Past this,
objects are not discovered (an ``InjectionSkipped`` event says why for each tool)."""


class Bindings:
    """Chained instances (last wins) and discovered entities of one run."""

    def __init__(self, graph: DisclosureGraph, limit: int, depth: int = DISCOVERY_DEPTH) -> None:
        self.graph = graph
        self.limit = limit
        self.depth = depth
        self._depths: dict[str, int] = {}
        """The depth at which each discovered tool's object was found."""
        self.instances: dict[str, Any] = {}
        """The newest bound instance per chained type key."""
        self._bound: dict[str, tuple[Any, BaseTool]] = {}
        self._any_names: tuple[str, ...] = ()
        self._any_object: Any = None
        self._entities: dict[tuple[str, str], tuple[str, ...]] = {}
        self._entity_objects: dict[tuple[str, str], Any] = {}
        self._discovered = 0
        self._has_methods: dict[type, bool] = {}
        self._through: dict[str, str] = {}
        """Tools added at run time -> the script tool they are reached through (code
        mode: their object came from a call made in a script)."""

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

    def observe(self, value: Any, source: str | None = None) -> list[Plan]:
        """Bind what ``value`` (returned by tool ``source``) offers; the tool changes to make."""
        if value is None or isinstance(value, _PLAIN):
            return []
        plans: list[Plan] = []
        found = providers_in(value)
        if found:
            plans.append(self._discover(found, self._depths.get(source or "", 0) + 1))
        bound = False
        failed: list[tuple[str, str]] = []
        for key, rule in self.graph.chains.items():
            verdict = rule.verdict(value)
            if verdict is True:
                if key not in self.instances:
                    usable = tuple(n for n, k in self.graph.chained.items() if k == key)
                    plans.append(Plan("chaining", usable=usable))
                self.instances[key] = value
                object_id(value, rule.id_attribute, _CHAINED)  # warn now if it has no id
                bound = True
            elif verdict:  # the predicate failed: say so for each tool it would bind
                names = [n for n, k in self.graph.chained.items() if k == key]
                failed.extend((name, verdict) for name in names)
        any_rule = self.graph.chain_any
        if any_rule is not None and not (bound or found) and self._offers_tools(value):
            verdict = any_rule.verdict(value)
            if verdict is True:
                plans.append(self._rebind_any(value))
            elif verdict:
                names = [spec.name or attribute for attribute, spec in marked_methods(type(value))]
                failed.extend((name, verdict) for name in names)
        if failed:
            plans.append(Plan("chaining", not_added=tuple(failed)))
        script = self.script_of(source)
        if script is not None:  # code mode: what a script's call added, scripts call
            plans = [self._through_script(plan, script) for plan in plans]
        return plans

    def script_of(self, source: str | None) -> str | None:
        """The script tool through which tool ``source`` is called (code mode), if any:
        the tools its results add are reached through the same script tool."""
        if source is None:
            return None
        return self.graph.code_member_of.get(source) or self._through.get(source)

    def _through_script(self, plan: Plan, script: str) -> Plan:
        if not plan.add:
            return plan
        return attrs.evolve(plan, add=tuple(self._reached(plan.add, script)))

    def _reached(self, tools: Iterable[BaseTool], script: str) -> list[BaseTool]:
        """``tools`` as tools reached through script tool ``script`` (all of them when
        ``script`` is empty)."""
        if not script:
            return list(tools)
        reached: list[BaseTool] = [ScriptMember.around(tool, script=script) for tool in tools]
        self._through.update(dict.fromkeys((tool.name for tool in reached), script))
        return reached

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
        self._any_object = value
        any_rule = self.graph.chain_any
        if any_rule is not None:
            object_id(value, any_rule.id_attribute, _CHAINED)  # warn now if it has no id
        tools = _method_tools(value)
        self._any_names = tuple(tool.name for tool in tools)
        return Plan("chaining", tuple(tools), previous)

    def _discover(self, found: list[tuple[Any, Any]], depth: int) -> Plan:
        added: list[BaseTool] = []
        over: list[str] = []
        no_id: list[tuple[str, str]] = []
        too_deep = (
            f"found at depth {depth} of nested tool providers, past the limit of {self.depth}"
        )
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
                self._entity_objects[key] = obj
                added.extend(tools)
                continue
            if depth > self.depth:
                no_id.extend((tool.name, too_deep) for tool in tools)
                continue
            self._entity_objects[key] = obj
            if self._discovered + len(tools) > self.limit:
                over.extend(tool.name for tool in tools)
                continue
            self._entities[key] = tuple(tool.name for tool in tools)
            self._discovered += len(tools)
            self._depths.update(dict.fromkeys(self._entities[key], depth))
            added.extend(tools)
        return Plan("discovery", tuple(added), (), tuple(over), tuple(no_id))

    # resuming ---------------------------------------------------------------------

    def snapshot(self) -> tuple[tuple[str, str, str], ...]:
        """The bound objects by reference, ``(role, type key, id)``: role is the chained
        type key, ``*`` for the object of ``Chaining.any()``, or ``discovery`` (these two
        with ``@run_code`` when a code-mode script tool reaches their tools). Objects
        without an id are left out (a resumed run cannot find them)."""
        refs: list[tuple[str, str, str]] = []
        for key, obj in self.instances.items():
            refs.extend(_ref(key, obj, self.graph.chains[key].id_attribute))
        any_rule = self.graph.chain_any
        if self._any_object is not None and any_rule is not None:
            role = self._role(ANY_KEY, self._any_names)
            refs.extend(_ref(role, self._any_object, any_rule.id_attribute))
        for entity, obj in self._entity_objects.items():
            role = self._role("discovery", self._entities.get(entity, ()))
            refs.append((role, type_key(type(obj)), entity[1]))
        return tuple(refs)

    def _role(self, role: str, names: tuple[str, ...]) -> str:
        """``role``, with ``@script`` when the tools are reached through a script tool
        (code mode), so a resumed run reaches them the same way."""
        script = self._through.get(names[0]) if names else None
        return f"{role}@{script}" if script is not None else role

    def unbound_names(self) -> list[str]:
        """Chained tools with no instance bound (what a lost object leaves unusable)."""
        return [name for name, key in self.graph.chained.items() if key not in self.instances]

    def restore(
        self, refs: Iterable[tuple[str, str, str]], resolve: Resolver | None
    ) -> tuple[dict[str, BaseTool], list[tuple[str, str]]]:
        """Find the saved objects again with ``resolve(type key, id)``: the tools they
        give (by name), and the references not found as ``(role, "Repo 'r1'")``."""
        tools: dict[str, BaseTool] = {}
        missing: list[tuple[str, str]] = []
        for saved_role, kind, identifier in refs:
            role, _, script = saved_role.partition("@")
            label = f"{kind.rpartition('.')[2]} '{identifier}'"
            try:
                obj = resolve(kind, identifier) if resolve is not None else None
            except Exception as exc:  # the resolver failed: the object is not found
                obj, label = None, f"{label} ({type(exc).__name__}: {exc})"
            spec = provider_spec(type(obj)) if role == "discovery" else None
            if obj is None or (role == "discovery" and spec is None):
                missing.append((role, label))
            elif spec is not None:
                found = provider_tools(obj, spec, identifier)
                names = tuple(tool.name for tool in found)
                self._entity_objects[(spec.prefix, identifier)] = obj
                if (spec.prefix, identifier) not in self._entities:
                    self._discovered += len(names)
                self._entities[(spec.prefix, identifier)] = names
                tools.update((tool.name, tool) for tool in self._reached(found, script))
            elif role == ANY_KEY:
                found = _method_tools(obj)
                self._any_object = obj
                self._any_names = tuple(tool.name for tool in found)
                tools.update((tool.name, tool) for tool in self._reached(found, script))
            elif role in self.graph.chains:
                self.instances[role] = obj
        return tools, missing


Resolver = Callable[[str, str], Any]
"""Finds a bound object again when a run resumes: ``(type key, id) -> object`` (None
when it is gone). The type key is ``module.QualName`` of the object's class."""


def _ref(role: str, obj: Any, attribute: str) -> list[tuple[str, str, str]]:
    identifier = object_id(obj, attribute, None)  # warned when it was bound
    if isinstance(identifier, NoId):
        return []
    return [(role, type_key(type(obj)), identifier)]


def _method_tools(value: Any) -> list[BaseTool]:
    """The ``@llm_tool`` methods of ``value`` as tools bound to it (never a facade)."""
    return [
        Tool.from_function(getattr(value, attribute))
        for attribute, _ in marked_methods(type(value))
    ]
