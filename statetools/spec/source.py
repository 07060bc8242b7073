"""Reading a definition: a path, YAML/JSON text, or plain data; with the line of every path.

The YAML text is composed into a node tree once; the data is constructed from that
tree, and the node marks give the line of every mapping key and list item, so a
problem at ``$.states.DRAFT.tools[2]`` can say which line that is.

>>> source = read_source("kind: playbook\\nname: p\\n")
>>> source.data["name"], source.lines[("name",)]
('p', 2)
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from statetools.spec.problems import Path as SpecPath
from statetools.spec.problems import RawProblem, shorten, spec_error

SourceLike = str | os.PathLike[str] | Mapping[str, Any] | Sequence[Any]
"""What the loaders accept: a path, YAML/JSON text, or already-parsed data."""

_SUFFIXES = (".yaml", ".yml", ".json")


@attrs.frozen
class Source:
    """Parsed input: the data, where it came from, and the line of each path."""

    data: Any
    name: str | None = None
    """The file path, or None for text and data."""
    base_dir: Path = attrs.field(factory=Path.cwd)
    """Relative paths in the definition (``tools_from``, ``script``) start here."""
    lines: Mapping[SpecPath, int] = attrs.field(factory=dict)


def looks_like_path(value: str) -> bool:
    """Whether a string argument names a file rather than holding YAML text."""
    if "\n" in value or not value.strip():
        return False
    return value.endswith(_SUFFIXES) or os.path.isfile(value)


def read_source(source: SourceLike, *, base_dir: str | os.PathLike[str] | None = None) -> Source:
    """Parse ``source`` (a path, YAML/JSON text, or data) into a :class:`Source`.

    Raises :class:`~statetools.SpecError` for unreadable files and YAML syntax
    errors (with the line and column).
    """
    if isinstance(source, os.PathLike) or (isinstance(source, str) and looks_like_path(source)):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise spec_error(
                [
                    RawProblem(
                        (),
                        f"cannot read the file: {reason}",
                        "check the path; relative paths start in the current directory",
                    )
                ],
                source=str(path),
            ) from exc
        folder = Path(base_dir) if base_dir is not None else path.resolve().parent
        return parse_yaml(text, name=str(path), base_dir=folder)
    folder = Path(base_dir) if base_dir is not None else Path.cwd()
    if isinstance(source, str):
        return parse_yaml(source, name=None, base_dir=folder)
    if isinstance(source, Mapping | list | tuple):
        problems = _data_key_problems(source)
        if problems:
            raise spec_error(problems)
        return Source(data=source, name=None, base_dir=folder)
    raise spec_error(
        [
            RawProblem(
                (),
                f"cannot read a definition from {type(source).__name__}",
                "pass a file path, YAML text, or a dict",
            )
        ]
    )


def parse_yaml(text: str, *, name: str | None, base_dir: Path) -> Source:
    """Parse YAML (or JSON) text, keeping the line of every mapping key and list item."""
    try:
        loader = yaml.SafeLoader(text)
    except yaml.YAMLError as exc:  # a character YAML does not allow
        raise spec_error(
            [RawProblem((), f"invalid YAML: {exc}", "remove control characters")], source=name
        ) from exc
    try:
        node = loader.get_single_node()
        if node is None:
            raise spec_error([RawProblem((), "the file is empty")], source=name)
        _check_expansion(node, name)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        data = _as_json(text)
        if data is not None:  # JSON that YAML refuses (tabs): no lines, but it loads
            return Source(data=data, name=name, base_dir=base_dir)
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = exc.problem or exc.context or "invalid YAML"
        if "expected a single document" in str(exc.context or ""):
            what = "the file holds several YAML documents (---)"
            hint = "put several definitions in one document under 'definitions:'"
        else:
            hint = "fix the YAML syntax (indentation, quotes, colons)"
        raise spec_error(
            [RawProblem((), f"invalid YAML: {what}", hint)],
            {(): line} if line else None,
            source=name,
        ) from exc
    except yaml.YAMLError as exc:
        raise spec_error([RawProblem((), f"invalid YAML: {exc}")], source=name) from exc
    except RecursionError as exc:
        raise spec_error([RawProblem((), "the YAML is nested too deeply")], source=name) from exc
    finally:
        loader.dispose()
    lines: dict[SpecPath, int] = {}
    problems: list[RawProblem] = []
    try:
        _collect_lines(node, (), lines, set(), problems)
    except RecursionError as exc:
        raise spec_error([RawProblem((), "the YAML is nested too deeply")], source=name) from exc
    if problems:
        raise spec_error(problems, lines, source=name)
    return Source(data=data, name=name, base_dir=base_dir, lines=lines)


def _as_json(text: str) -> Any:
    """``text`` parsed as JSON when it is JSON (None when it is not, or is null)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


MAX_NODES = 1_000_000
"""How many values a document may expand to (aliases repeat what their anchor holds)."""


def _check_expansion(root: yaml.Node, name: str | None) -> None:
    """Refuse documents whose aliases refer to themselves or multiply beyond MAX_NODES."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise spec_error(
                [RawProblem((), "the YAML refers to itself (an alias inside its own anchor)")],
                {(): node.start_mark.line + 1},
                source=name,
            )
        open_nodes.add(key)
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        total = 1 + sum(size(child) for child in children)
        open_nodes.discard(key)
        sizes[key] = min(total, MAX_NODES + 1)
        if total > MAX_NODES:
            raise spec_error(
                [RawProblem((), "the YAML expands to too much data (aliases repeat anchors)")],
                source=name,
            )
        return sizes[key]

    size(root)


_KEY_KINDS = {
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:bool": "true or false",
    "tag:yaml.org,2002:int": "an integer",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:timestamp": "a date",
}
_TEXT_KEY_TAGS = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:merge")


def _key_problem(key_node: yaml.ScalarNode, path: SpecPath) -> RawProblem | None:
    """A problem when YAML reads a mapping key as something other than text."""
    if key_node.tag in _TEXT_KEY_TAGS:
        return None
    kind = _KEY_KINDS.get(key_node.tag, key_node.tag)
    return RawProblem(
        (*path, key_node.value),
        f"the key {shorten(key_node.value)} is not text: YAML reads it as {kind}",
        f"put the key in quotes ('{shorten(key_node.value)}':) if it is meant as a name",
    )


def _collect_lines(
    node: yaml.Node,
    path: SpecPath,
    lines: dict[SpecPath, int],
    seen: set[int],
    problems: list[RawProblem],
) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if id(node) in seen:  # an alias: its lines are those of its anchor
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            key = key_node.value
            lines.setdefault((*path, key), key_node.start_mark.line + 1)
            problem = _key_problem(key_node, path)
            if problem is not None:
                problems.append(problem)
            _collect_lines(value_node, (*path, key), lines, seen, problems)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_lines(item, (*path, index), lines, seen, problems)


def _data_key_problems(data: Any) -> list[RawProblem]:
    """Mapping keys that are not strings, in data passed as dicts and lists."""
    problems: list[RawProblem] = []
    seen: set[int] = set()
    pending: list[tuple[SpecPath, Any]] = [((), data)]
    while pending:
        path, value = pending.pop()
        if id(value) in seen:
            continue
        if isinstance(value, Mapping):
            seen.add(id(value))
            for key, item in value.items():
                if isinstance(key, str):
                    pending.append(((*path, key), item))
                    continue
                shown = shorten(repr(key))
                problems.append(
                    RawProblem(
                        (*path, shown),
                        f"the key {shown} is not text ({type(key).__name__})",
                        "use strings as keys",
                    )
                )
        elif isinstance(value, list | tuple):
            seen.add(id(value))
            pending.extend(((*path, index), item) for index, item in enumerate(value))
    return problems
