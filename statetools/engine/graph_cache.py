"""Compiled graphs kept by the identity of the items they were compiled from.

A program that passes the same ``tools=[...]`` to every run should not pay for
compiling them every time. Definitions are frozen, so the same objects always compile
to the same graph, and a compiled graph is only read by runs: the graph of the last
few item lists is kept and handed out again when every item is the very same object
(``is``), in the same order.

The very same list given again (the usual way: one ``tools=[...]`` built once and
passed to every run) is found without walking its items one by one in Python: its
contents are compared with a copy taken when it was compiled, at C speed, so a run
costs no more than one given the compiled graph. Python compares list items by
identity first and by equality only where they differ, so an item replaced by an
equal one (frozen values are equal when every field is) keeps the graph too.

Only items that cannot change are looked up: tools, definitions (playbooks, state
machines, facades), chaining rules and plain functions. A list with anything else
(an object whose tools are read from its attributes, say) is compiled every time.

>>> search = Tool.create("search", "Search", lambda: "found")
>>> compiled([search]) is compiled([search]), compiled([search]) is disclosure_graph(search)
(True, False)
"""

from __future__ import annotations

import operator
import threading
import types
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import attrs

from statetools.definitions.chaining import Chaining
from statetools.definitions.shared_definition import Definition
from statetools.engine.graph import DisclosureGraph, disclosure_graph
from statetools.tools.tool import BaseTool

KEPT = 16
"""How many compiled graphs are kept (the least recently used goes first)."""

_graphs: OrderedDict[tuple[int, ...], tuple[tuple[Any, ...], DisclosureGraph]] = OrderedDict()
_by_list: OrderedDict[int, tuple[Sequence[Any], Sequence[Any], DisclosureGraph]] = OrderedDict()
"""id of a list (or tuple) compiled -> (that list, a copy of its items then, graph)."""
_lock = threading.Lock()


def _leaves(items: Iterable[Any]) -> Iterator[Any]:
    for item in items:
        if isinstance(item, list | tuple):
            yield from _leaves(item)
        else:
            yield item


@attrs.frozen
class _Probe:
    """A frozen attrs class, to tell frozen classes by their ``__setattr__``."""


_FROZEN_SETATTR = _Probe.__setattr__


def _frozen(item: Any) -> bool:
    """Whether ``item`` cannot change (so its graph can be kept)."""
    if isinstance(item, types.FunctionType):
        return True
    if isinstance(item, BaseTool | Definition | Chaining):
        return type(item).__setattr__ is _FROZEN_SETATTR
    return False


def _key(items: Sequence[Any]) -> tuple[tuple[Any, ...], tuple[int, ...]]:
    """The items to compare and their ids: the items themselves when none is a list
    (the common case: checked at C speed), else every leaf of the lists."""
    top = tuple(items)
    if not _flat(top):
        top = tuple(_leaves(top))
    return top, tuple(map(id, top))


def _flat(items: Sequence[Any]) -> bool:
    """Whether no item is a list or tuple."""
    return not any(issubclass(kind, list | tuple) for kind in set(map(type, items)))


def kept(items: Sequence[Any]) -> DisclosureGraph | None:
    """The graph kept for these very items, or None.

    >>> ping = Tool.create("ping", "Ping", lambda: "pong")
    >>> kept([ping]) is None, kept([ping]) is compiled([ping])
    (True, False)
    """
    same = _same_list(items)
    if same is not None:
        return same
    leaves, key = _key(items)
    with _lock:
        found = _graphs.get(key)
        if found is None or not all(map(operator.is_, found[0], leaves)):
            return None
        _graphs.move_to_end(key)
        _remember_list(items, leaves, found[1])
        return found[1]


def compiled(items: Sequence[Any]) -> DisclosureGraph:
    """The graph of ``items`` (as :func:`disclosure_graph` compiles it), the same
    object again when the same items were compiled recently."""
    graph = kept(items)
    if graph is not None:
        return graph
    leaves, key = _key(items)
    graph = disclosure_graph(*items)
    if all(_frozen(item) for item in _leaves(leaves)):
        with _lock:
            _graphs[key] = (leaves, graph)  # the leaves stay alive, so their ids stay theirs
            _graphs.move_to_end(key)
            while len(_graphs) > KEPT:
                _graphs.popitem(last=False)
            _remember_list(items, leaves, graph)
    return graph


def _remember_list(items: Sequence[Any], leaves: tuple[Any, ...], graph: DisclosureGraph) -> None:
    """Keep ``graph`` for this very list (or tuple), when it is flat (a list inside it
    could change without it changing). Called with the lock held."""
    if type(items) is list:
        copy: Sequence[Any] = items.copy()
    elif type(items) is tuple:
        copy = items  # its own copy
    else:
        return
    if len(leaves) != len(copy) or not _flat(copy):
        return
    _by_list[id(items)] = (items, copy, graph)  # the list stays alive, so its id stays its
    _by_list.move_to_end(id(items))
    while len(_by_list) > KEPT:
        _by_list.popitem(last=False)


def _same_list(items: Sequence[Any]) -> DisclosureGraph | None:
    """The graph kept for this very list (or tuple), when it holds what it held then."""
    if type(items) is not list and type(items) is not tuple:
        return None
    found = _by_list.get(id(items))
    if found is None or found[0] is not items:
        return None
    try:
        same = bool(found[1] == items)  # identity first, item by item, in C
    except Exception:  # an item whose == refuses: compared the long way
        return None
    if not same:
        return None
    with _lock:
        if id(items) in _by_list:
            _by_list.move_to_end(id(items))
    return found[2]
