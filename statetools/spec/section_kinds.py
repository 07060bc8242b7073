"""``kind: sections`` and ``kind: skills`` in YAML designs: read from YAML, and written
as YAML for :func:`~statetools.dump_playbook`.

Sections are written as ``kind: sections`` with nested ``children:``; a body read from
a file (``body_file:``) names that file again while the file still holds the body,
else the body is written inline. Skills loaded from a folder are written as
``kind: skills`` with the folder's ``path:`` and the tools their ``allowed-tools``
name.

>>> design = load_design('''
... definitions:
...   - kind: sections
...     sections:
...       - {key: a, title: A, body: Text of A., summary: About A.}
... ''')
>>> design.definitions[0].keys()
['a']
>>> from statetools import Section, Sections
>>> data = sections_data(Sections(Section("a", "A", "Text of A.", summary="About A.")),
...                      _Names(None))
>>> data["sections"]
[{'key': 'a', 'title': 'A', 'body': 'Text of A.', 'summary': 'About A.'}]
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from statetools.errors import DefinitionError, SpecError
from statetools.sections import Section, Sections, load_skills
from statetools.spec.problems import Invalid
from statetools.spec.problems import Path as ErrorPath
from statetools.spec.resolve import current, resolve_tool
from statetools.tools.tool import BaseTool

SECTION_KEYS = ("key", "title", "body", "body_file", "summary", "visibility", "tools", "children")


def _text(value: Any, name: str, at: ErrorPath, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise Invalid(f"'{name}' must be text", hint=f"write {name}: ...", at=(*at, name))
    return value


def _unknown(value: Mapping[str, Any], allowed: tuple[str, ...], at: ErrorPath) -> None:
    for key in value:
        if key not in allowed:
            raise Invalid(
                f"unknown key '{key}'", hint=f"use: {', '.join(allowed)}", at=(*at, str(key))
            )


def _section(value: Any, at: ErrorPath) -> Section:
    if not isinstance(value, Mapping):
        raise Invalid("a section is a mapping", hint="write key:, title:, body:", at=at)
    _unknown(value, SECTION_KEYS, at)
    key = _text(value.get("key"), "key", at)
    title = _text(value.get("title", key), "title", at)
    if "body" in value and "body_file" in value:
        raise Invalid("give body or body_file, not both", at=(*at, "body_file"))
    path: Path | None = None
    if "body_file" in value:
        name = _text(value["body_file"], "body_file", at)
        path = current().base_dir / str(name)
        try:
            body = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise Invalid(
                f"cannot read body_file {path} ({type(exc).__name__})",
                hint="a path relative to the YAML file, of a UTF-8 text file",
                at=(*at, "body_file"),
            ) from exc
    else:
        body = str(_text(value.get("body", ""), "body", at))
    tools = value.get("tools", [])
    children = value.get("children", [])
    for name, items in (("tools", tools), ("children", children)):
        if not isinstance(items, list):
            raise Invalid(f"'{name}' must be a list", at=(*at, name))
    try:
        return Section(
            str(key),
            str(title),
            str(body).strip(),
            summary=_text(value.get("summary"), "summary", at, optional=True),
            visibility=value.get("visibility", "summary"),
            tools=[resolve_tool(tool) for tool in tools],
            children=[_section(child, (*at, "children", i)) for i, child in enumerate(children)],
            body_file=path,
        )
    except DefinitionError as exc:
        raise Invalid(exc.message, hint=exc.hint, at=at) from exc


def structure_sections(value: Mapping[str, Any]) -> Sections:
    """``kind: sections``: ``sections:`` (nested with ``children:``), ``tool_name:``."""
    _unknown(value, ("kind", "sections", "tool_name"), ())
    items = value.get("sections")
    if not isinstance(items, list) or not items:
        raise Invalid("'sections' must be a list of sections", at=("sections",))
    tool_name = _text(value.get("tool_name", "read_section"), "tool_name", ())
    roots = [_section(item, ("sections", i)) for i, item in enumerate(items)]
    try:
        return Sections(*roots, tool_name=str(tool_name), strict=False)  # check: ST017
    except DefinitionError as exc:
        raise Invalid(exc.message, hint=exc.hint, at=("sections",)) from exc


def structure_skills(value: Mapping[str, Any]) -> Sections:
    """``kind: skills``: ``path:`` (relative to the YAML), ``tool_name:``, ``tools:``."""
    _unknown(value, ("kind", "path", "tool_name", "tools"), ())
    folder = _text(value.get("path"), "path", ())
    tool_name = _text(value.get("tool_name", "load_skill"), "tool_name", ())
    tools = value.get("tools", [])
    if not isinstance(tools, list):
        raise Invalid("'tools' must be a list", at=("tools",))
    resolved = [resolve_tool(tool) for tool in tools]
    try:
        return load_skills(
            current().base_dir / Path(str(folder)), tool_name=str(tool_name), tools=resolved
        )
    except SpecError as exc:
        raise Invalid(f"{exc.path}: {exc.message}", hint=exc.hint, at=("path",)) from exc


EXTRA_KINDS = {"sections": structure_sections, "skills": structure_skills}
"""Definition kinds built by these hooks rather than cattrs' tagged union."""


class ToolWriter(Protocol):
    """What the dumper offers these functions: tool references, and the folder the YAML
    will be saved in (paths are written relative to it)."""

    @property
    def relative_to(self) -> Path | None: ...

    def tool(self, tool: BaseTool) -> Any:
        """How ``tool`` is named in the YAML."""
        ...


class _Names:
    """A :class:`ToolWriter` naming tools by name (for the examples)."""

    def __init__(self, relative_to: Path | None) -> None:
        self.relative_to = relative_to

    def tool(self, tool: BaseTool) -> Any:
        return tool.name


def relative_path(path: Path, relative_to: Path | None) -> str:
    """``path`` as the YAML writes it: relative to ``relative_to`` when given, else as
    it is.

    >>> relative_path(Path("/designs/skills"), Path("/designs"))
    'skills'
    """
    if relative_to is None:
        return path.as_posix()
    try:
        return Path(os.path.relpath(path, relative_to)).as_posix()
    except ValueError:  # another drive on Windows
        return path.as_posix()


def _body_file_holds(section: Section) -> bool:
    """Whether ``section`` came from a file that still holds its body."""
    if section.body_file is None:
        return False
    try:
        text = section.body_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return text.strip() == section.body


def section_data(section: Section, writer: ToolWriter) -> dict[str, Any]:
    """One section (and its children) as YAML data."""
    data: dict[str, Any] = {"key": section.key, "title": section.title}
    if section.body_file is not None and _body_file_holds(section):
        data["body_file"] = relative_path(section.body_file, writer.relative_to)
    else:
        data["body"] = section.body
    if section.summary is not None:
        data["summary"] = section.summary
    if section.visibility != "summary":
        data["visibility"] = section.visibility
    if section.tools:
        data["tools"] = [writer.tool(tool) for tool in section.tools]
    if section.children:
        data["children"] = [section_data(child, writer) for child in section.children]
    return data


def skills_data(value: Sections, folder: Path, writer: ToolWriter) -> dict[str, Any]:
    """Skills loaded from ``folder``: its path and the tools the skills unlock."""
    data: dict[str, Any] = {"kind": "skills", "path": relative_path(folder, writer.relative_to)}
    if value.tool_name != "load_skill":
        data["tool_name"] = value.tool_name
    tools: dict[str, BaseTool] = {}
    for section in value.sections:
        for tool in section.tools:
            tools.setdefault(tool.name, tool)
    if tools:
        data["tools"] = [writer.tool(tool) for tool in tools.values()]
    return data


def sections_data(value: Sections, writer: ToolWriter) -> dict[str, Any]:
    """``kind: sections`` (or ``kind: skills`` for skills loaded from a folder)."""
    if value.folder is not None:
        return skills_data(value, value.folder, writer)
    if value.common_tools:
        raise SpecError(
            "sections with tools that open with every section cannot be written to YAML",
            path=value.tool_name,
            hint="attach the tools to the sections, or load skills with 'kind: skills'",
        )
    data: dict[str, Any] = {"kind": "sections"}
    if value.tool_name != "read_section":
        data["tool_name"] = value.tool_name
    data["sections"] = [section_data(section, writer) for section in value.sections]
    return data
