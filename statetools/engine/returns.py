"""What tools return, read from their annotations: the tools that produce a chained
type, and the tools entity discovery will add (shown as templates in the graph)."""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from statetools.definitions.chaining import Chaining
from statetools.definitions.discovery import template_name
from statetools.tools.decorators import marked_methods, provider_spec
from statetools.tools.tool import BaseTool
from statetools.tools.wrappers import unwrap


def returned_classes(tool: BaseTool | Callable[..., Any], *, inside: bool = True) -> set[type]:
    """The classes a tool's handler (or a function) says it returns, from its return
    annotation, looking inside ``list[X]``, ``X | None`` and the like. With
    ``inside=False`` only the classes the value itself may be (``X``, ``X | None``,
    ``Annotated[X, ...]``): what chaining can bind; a ``list[X]`` never binds.

    >>> class Order: ...
    >>> def find() -> list[Order] | None: ...
    >>> returned_classes(Tool.create("find", "Find", find)) == {Order}
    True
    >>> returned_classes(find, inside=False)
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
        for cls in returned_classes(tool):
            makers[cls].append(name)
        if chains:
            for cls in returned_classes(tool, inside=False):
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
            for made in returned_classes(getattr(cls, attribute)):
                made_by.setdefault(made, []).append(node)
                queue.append(made)
    edges += [(node, producer) for node, cls in provided for producer in made_by.get(cls, [])]
    return ReturnLinks(producers, templates, edges)
