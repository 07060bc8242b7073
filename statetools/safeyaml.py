"""YAML text to data within limits: file size, nesting depth and expanded size.

Aliases let a few bytes of YAML stand for gigabytes (an anchor repeated through
aliases of aliases, or a long string repeated through many aliases). One pass over
the parser's events (libyaml's when PyYAML has it) measures what the document
expands to (the characters of every value, counting what each alias repeats, plus
one per value) and how deep it nests, and refuses it past :data:`MAX_EXPANDED_SIZE`
or :data:`MAX_DEPTH` before any data is handed out. The same pass builds the data
of plain documents (an alias is the very object its anchor built, so nothing is
repeated in memory); what it does not build (other tags, merge keys) PyYAML's
constructor builds after it. Both run with the garbage collector paused (building
a few million small objects otherwise spends most of its time in collections that
free nothing).

>>> load_yaml("a: &x [1, 2]\\nb: *x\\n")
{'a': [1, 2], 'b': [1, 2]}
>>> try:
...     load_yaml("a: &x [" + ", ".join(["y" * 1000] * 1000) + "]\\n" + "b: [" + ", ".join(["*x"] * 100) + "]")
... except RefusedYaml as exc:
...     print(exc.message)
the YAML expands to more than 20,000,000 characters (aliases repeat what their anchors hold)
"""  # noqa: E501

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import yaml

MAX_SOURCE_BYTES = 8_000_000
"""The largest definition file (or text) read; larger ones are refused before parsing."""

MAX_EXPANDED_SIZE = 20_000_000
"""How many characters (plus one per value) a document may expand to through aliases."""

MAX_DEPTH = 256
"""How deeply lists and mappings may nest."""

Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (much faster), else PyYAML's own."""


class RefusedYaml(ValueError):
    """A document past a limit, or with a value YAML cannot build (a date that does not
    exist, an integer too long): what is wrong, what to do, and the line when known."""

    def __init__(self, message: str, hint: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.line = line


def check_size(size: int, what: str = "file", unit: str = "bytes") -> None:
    """Refuse a source of ``size`` past :data:`MAX_SOURCE_BYTES`, saying both.

    >>> check_size(9_000_000)
    Traceback (most recent call last):
    ...
    statetools.safeyaml.RefusedYaml: the file is 9,000,000 bytes, more than the limit of 8,000,000
    """
    if size > MAX_SOURCE_BYTES:
        raise RefusedYaml(
            f"the {what} is {size:,} {unit}, more than the limit of {MAX_SOURCE_BYTES:,}",
            "split the design into several files (tool schemas can go in a tools_from file)",
        )


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (if it runs) while a document is built."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def measure(text: str) -> None:
    """Refuse ``text`` when it nests past MAX_DEPTH, refers to itself or expands too much.

    YAML syntax errors pass through as :class:`yaml.YAMLError`. The depth limit and its
    message hold whichever parser runs: libyaml (in PyYAML 6.0.4 and later) refuses
    nesting past 1,000 levels itself, while scanning ahead of the events counted here;
    that refusal is reported as this limit, at the place the pure-Python parser finds.

    >>> try:
    ...     measure("k: " + "[" * 5000 + "]" * 5000)
    ... except RefusedYaml as exc:
    ...     print(exc.message, exc.line)
    the YAML is nested more than 256 levels deep 1
    """
    _read(text, build=False)


def _read(text: str, *, build: bool) -> tuple[Any, bool]:
    """:func:`measure` ``text``; with ``build``, its data as well (or :data:`_UNBUILT`),
    and whether every mapping key built was text."""
    try:
        return _walk(text, Loader, build)
    except yaml.MarkedYAMLError as exc:
        if exc.problem != "exceeded maximum nesting depth":
            raise
        _walk(text, yaml.SafeLoader, False)  # raises at the first value past MAX_DEPTH
        raise _too_deep(None if exc.problem_mark is None else exc.problem_mark.line + 1) from exc


def _too_deep(line: int | None) -> RefusedYaml:
    """The refusal of a document nested past MAX_DEPTH, at ``line`` when known."""
    return RefusedYaml(
        f"the YAML is nested more than {MAX_DEPTH} levels deep", "flatten the data", line
    )


_UNBUILT: Any = object()
"""What :func:`_walk` returns when it leaves the building to PyYAML's constructor."""
_NO_KEY: Any = object()
_STR = "tag:yaml.org,2002:str"
_SCALARS = frozenset(
    f"tag:yaml.org,2002:{kind}" for kind in ("null", "bool", "int", "float", "binary", "timestamp")
)
_LISTS = frozenset((None, "!", "tag:yaml.org,2002:seq"))
_DICTS = frozenset((None, "!", "tag:yaml.org,2002:map"))


def _walk(text: str, loader: type[yaml.SafeLoader], build: bool) -> tuple[Any, bool]:
    """One pass over the events of ``text`` as ``loader`` parses it, within the limits.

    With ``build``, the same pass builds the data, as PyYAML's safe constructor would,
    when it is made of what most documents hold: text, numbers, booleans, nulls, dates,
    lists and mappings, anchors and aliases (an alias is the object its anchor built).
    Anything else (other tags, merge keys, a list as a key, a value its tag cannot
    build, a duplicate anchor, several documents) stops the building, the measuring
    goes on, and :data:`_UNBUILT` is returned so that PyYAML builds it (and reports
    what it refuses in its own words). Also returned: whether every mapping key built
    was text.
    """
    parser: Any = loader(text)
    try:
        return _walk_events(iter(parser.get_event, None), build)
    finally:
        parser.dispose()


def _walk_events(events: Iterator[Any], build: bool) -> tuple[Any, bool]:
    """:func:`_walk` over the parser's ``events``."""
    stack: list[list[Any]] = []  # per open collection: [size, anchor, list or dict, key]
    anchors: dict[str, int] = {}
    open_anchors: set[str] = set()
    built: dict[str, Any] = {}  # anchor -> the value it stands for
    helper: Any = Loader("")  # resolves plain scalars' tags and builds non-text scalars
    resolvers = helper.yaml_implicit_resolvers  # first character -> [(tag, pattern), ...]
    quick = not helper.yaml_path_resolvers and None not in resolvers
    constructors = helper.yaml_constructors
    root: Any = None
    documents = 0
    text_keys = True
    for event in events:
        kind = type(event)
        value: Any = None
        if kind is yaml.ScalarEvent:
            size = len(event.value) + 1
            if event.anchor:
                anchors[event.anchor] = size
            if build:
                tag = event.tag
                value = event.value
                if tag is None or tag == "!":
                    if quick:  # what helper.resolve() does, without a call per scalar
                        tag = _STR
                        if event.implicit[0]:  # plain: the resolvers of its first character
                            for claimed, pattern in resolvers.get(value[:1], ()):
                                if pattern.match(value):
                                    tag = claimed
                                    break
                    else:
                        tag = helper.resolve(yaml.ScalarNode, value, event.implicit)
                if tag != _STR:
                    if tag in _SCALARS:
                        node = yaml.ScalarNode(tag, value, event.start_mark, event.end_mark)
                        try:
                            value = constructors[tag](helper, node)
                        except Exception:  # PyYAML reports it, with its line
                            build = False
                    else:
                        build = False
                if event.anchor:
                    build = build and event.anchor not in built
                    built[event.anchor] = value
        elif kind is yaml.AliasEvent:
            if event.anchor in open_anchors:
                raise RefusedYaml(
                    "the YAML refers to itself (an alias inside its own anchor)",
                    f"remove the alias *{event.anchor} from inside &{event.anchor}",
                    _line(event),
                )
            size = anchors.get(event.anchor or "", 1)
            if build:
                build = event.anchor in built
                value = built.get(event.anchor or "")
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            if len(stack) >= MAX_DEPTH:
                raise _too_deep(_line(event))
            if event.anchor:
                open_anchors.add(event.anchor)
            if build:
                if kind is yaml.MappingStartEvent:
                    build = event.tag in _DICTS
                    value = {}
                else:
                    build = event.tag in _LISTS
                    value = []
                if event.anchor:
                    build = build and event.anchor not in built
                    built[event.anchor] = value
            stack.append([1, event.anchor, value, _NO_KEY])
            continue
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            size, anchor, value, _ = stack.pop()
            if anchor:
                anchors[anchor] = size
                open_anchors.discard(anchor)
        else:
            if kind is yaml.DocumentStartEvent:
                documents += 1
                build = build and documents == 1
            continue
        if stack:
            top = stack[-1]
            top[0] += size
            if top[0] > MAX_EXPANDED_SIZE:
                raise RefusedYaml(
                    f"the YAML expands to more than {MAX_EXPANDED_SIZE:,} characters "
                    "(aliases repeat what their anchors hold)",
                    "repeat less through aliases",
                    _line(event),
                )
            if build:
                into = top[2]
                if type(into) is list:
                    into.append(value)
                elif top[3] is _NO_KEY:
                    build = type(value) is not list and type(value) is not dict  # hashable
                    text_keys = text_keys and type(value) is str
                    top[3] = value
                else:
                    into[top[3]] = value
                    top[3] = _NO_KEY
        else:
            root = value
    return (root if build else _UNBUILT), text_keys


def _line(event: yaml.Event) -> int | None:
    return None if event.start_mark is None else event.start_mark.line + 1


def compose(text: str) -> yaml.Node | None:
    """The node tree of the single document in ``text`` (None when it is empty)."""
    measure(text)
    loader = Loader(text)
    try:
        with gc_paused():
            return loader.get_single_node()
    finally:
        loader.dispose()


def load_yaml(text: str) -> Any:
    """The data of the single document in ``text``, within the limits above.

    Raises :class:`RefusedYaml` past a limit and :class:`yaml.YAMLError` for syntax.
    The pass that measures the document builds it too (see :func:`_walk`); PyYAML's
    constructor builds what that pass leaves to it.
    """
    return load_yaml_keys(text)[0]


def load_yaml_keys(text: str) -> tuple[Any, bool | None]:
    """:func:`load_yaml`, and whether every mapping key in the data is text (None when
    PyYAML built the data: not known without a walk over it).

    >>> load_yaml_keys("a: 1\\nb: {c: d}"), load_yaml_keys("1: one")
    (({'a': 1, 'b': {'c': 'd'}}, True), ({1: 'one'}, False))
    """
    with gc_paused():
        data, text_keys = _read(text, build=True)
    if data is not _UNBUILT:
        return data, text_keys
    return _constructed(text), None


def _constructed(text: str) -> Any:
    """The data of ``text`` as PyYAML's constructor builds it (``text`` is measured)."""
    loader = Loader(text)
    try:
        with gc_paused():
            return loader.get_single_data()
    except (yaml.YAMLError, RecursionError):
        raise
    except Exception as exc:  # a scalar its tag cannot build (ValueError, AttributeError, ...)
        what = str(exc) if isinstance(exc, ValueError) else "the value does not fit its tag"
        if what.startswith("Exceeds the limit"):
            what = f"an integer is longer than {sys.get_int_max_str_digits()} digits"
        raise RefusedYaml(
            f"YAML cannot read a value: {what}",
            "quote the value if it is meant as text",
            _unbuildable_line(text),
        ) from exc
    finally:
        loader.dispose()


def _unbuildable_line(text: str) -> int | None:
    """The line of the first scalar whose tag cannot build its value."""
    root = compose(text)
    loader = Loader("")
    pending = [] if root is None else [root]
    seen: set[int] = set()
    try:
        while pending:
            node = pending.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, yaml.ScalarNode):
                try:
                    loader.construct_object(node)
                except Exception:
                    return None if node.start_mark is None else node.start_mark.line + 1
            elif isinstance(node, yaml.MappingNode):
                pending.extend(part for pair in reversed(node.value) for part in reversed(pair))
            elif isinstance(node, yaml.SequenceNode):
                pending.extend(reversed(node.value))
    finally:
        loader.dispose()
    return None
