"""A definition's text: reading a path, YAML/JSON text, or plain data, with the line of
every path; and how written definitions look as YAML.

The YAML text is composed into a node tree once; the data is constructed from that
tree, and the node marks give the line of every mapping key and list item, so a
problem at ``$.states.DRAFT.tools[2]`` can say which line that is.

>>> source = read_source("kind: playbook\\nname: p\\n")
>>> source.data["name"], source.lines[("name",)]
('p', 2)

Written definitions are YAML in block style, lists indented under their key,
multi-line text as ``|`` blocks, no anchors or aliases.

>>> print(yaml_text(plain({"name": "p", "tools": ("search",), "notes": "one\\ntwo"})), end="")
name: p
tools:
  - search
notes: |-
  one
  two
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from statetools.safeyaml import MAX_SOURCE_BYTES, RefusedYaml, check_size, compose, load_yaml_keys
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
            check_size(path.stat().st_size)
            text = path.read_text(encoding="utf-8")
        except RefusedYaml as exc:
            raise spec_error([RawProblem((), exc.message, exc.hint)], source=str(path)) from exc
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
    """Parse YAML (or JSON) text, keeping the line of every mapping key and list item.

    The text is checked against the limits of :mod:`statetools.safeyaml` (size,
    depth, expanded size) before anything is built. Lines are found only when a
    problem needs them (by composing the text again).
    """
    try:
        size = len(text.encode("utf-8")) if len(text) * 4 > MAX_SOURCE_BYTES else len(text)
        check_size(size, "text" if name is None else "file")
        data, text_keys = load_yaml_keys(text)
    except RefusedYaml as exc:
        raise spec_error(
            [RawProblem((), exc.message, exc.hint)],
            {(): exc.line} if exc.line else None,
            source=name,
        ) from exc
    except yaml.MarkedYAMLError as exc:
        json_data = _as_json(text)
        if json_data is not None:  # JSON that YAML refuses (tabs): no lines, but it loads
            return Source(data=json_data, name=name, base_dir=base_dir)
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = exc.problem or exc.context or "invalid YAML"
        if "expected a single document" in str(exc.context or ""):
            what = "the file holds several YAML documents (---)"
            hint = "put several definitions in one document under 'definitions:'"
        elif mark is not None and _tab_at(text, mark.line, mark.column):
            what = f"a tab breaks the indentation ({what})"
            hint = "YAML indents with spaces only: replace the tabs with spaces"
        else:
            hint = "fix the YAML syntax (indentation, quotes, colons)"
        raise spec_error(
            [RawProblem((), f"invalid YAML: {shorten(what)}", hint)],
            {(): line} if line else None,
            source=name,
        ) from exc
    except UnicodeEncodeError as exc:  # a lone surrogate: libyaml cannot take the text
        raise spec_error(
            [
                RawProblem(
                    (), "the text is not valid Unicode (a lone surrogate)", "save it as UTF-8"
                )
            ],
            source=name,
        ) from exc
    except yaml.YAMLError as exc:
        raise spec_error(
            [RawProblem((), f"invalid YAML: {shorten(str(exc))}", "remove control characters")],
            source=name,
        ) from exc
    except RecursionError as exc:
        raise spec_error([RawProblem((), "the YAML is nested too deeply")], source=name) from exc
    if data is None and not _has_content(text):
        raise spec_error([RawProblem((), "the file is empty")], source=name)
    lines = _Lines(text)
    if _has_other_keys(data) if text_keys is None else not text_keys:
        problems = lines.key_problems()
        if problems:
            raise spec_error(problems, lines, source=name)
    return Source(data=data, name=name, base_dir=base_dir, lines=lines)


def _has_content(text: str) -> bool:
    """Whether YAML text holds a document (``null`` or ``~`` alone is one)."""
    return any(
        line.strip() and not line.lstrip().startswith(("#", "---", "..."))
        for line in text.splitlines()
    )


def _as_json(text: str) -> Any:
    """``text`` parsed as JSON when it is JSON (None when it is not, or is null)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


class _Lines(Mapping[SpecPath, int]):
    """The line of every path of a document, found when first asked for."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._lines: dict[SpecPath, int] | None = None
        self._problems: list[RawProblem] = []

    def _found(self) -> dict[SpecPath, int]:
        if self._lines is None:
            self._lines = {}
            node = compose(self._text)
            if node is not None:
                with contextlib.suppress(RecursionError):  # keep the lines found so far
                    _collect_lines(node, (), self._lines, set(), self._problems)
        return self._lines

    def key_problems(self) -> list[RawProblem]:
        """Mapping keys that YAML reads as something other than text, with their paths."""
        self._found()
        return self._problems

    def __getitem__(self, path: SpecPath) -> int:
        return self._found()[path]

    def __iter__(self) -> Iterator[SpecPath]:
        return iter(self._found())

    def __len__(self) -> int:
        return len(self._found())


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


def _has_other_keys(data: Any) -> bool:
    """Whether parsed YAML holds a mapping key that is not a string (a quick walk)."""
    seen: set[int] = set()
    pending = [data]
    while pending:
        value = pending.pop()
        kind = type(value)
        if kind is dict:
            if id(value) in seen:
                continue
            seen.add(id(value))
            if any(type(key) is not str for key in value):
                return True
            pending.extend(value.values())
        elif kind is list:
            if id(value) in seen:
                continue
            seen.add(id(value))
            pending.extend(value)
    return False


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


def _tab_at(text: str, line: int, column: int) -> bool:
    """Whether the YAML error at ``line``/``column`` (from 0) sits on a tab of the
    line's indentation, or the line's indentation holds one."""
    lines = text.splitlines()
    if line >= len(lines):
        return False
    here = lines[line]
    indentation = here[: len(here) - len(here.lstrip(" \t"))]
    return "\t" in indentation or here[column : column + 1] == "\t"


def plain(value: Any) -> Any:
    """JSON-like data without tuples or enum members, for the safe YAML dumper.

    >>> plain({"states": ("A", "B"), 1: {"n": 2}})
    {'states': ['A', 'B'], '1': {'n': 2}}
    """
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, enum.Enum):
        return plain(value.value)
    return value


class _Dumper(yaml.SafeDumper):
    """Block style, lists indented under their key, multi-line text as ``|`` blocks."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def yaml_text(data: Any) -> str:
    """``data`` (plain data, see :func:`plain`) as YAML text in this style.

    >>> print(yaml_text({"tools": ["search"]}), end="")
    tools:
      - search
    """
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=88)
