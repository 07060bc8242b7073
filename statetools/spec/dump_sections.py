"""Writing sections and skills as YAML for :func:`~statetools.dump_playbook`.

Sections are written as ``kind: sections`` with nested ``children:``; a body read from
a file (``body_file:``) names that file again while the file still holds the body,
else the body is written inline. Skills loaded from a folder are written as
``kind: skills`` with the folder's ``path:`` and the tools their ``allowed-tools``
name.

>>> from statetools import Section, Sections
>>> data = sections_data(Sections(Section("a", "A", "Text of A.", summary="About A.")),
...                      _Names(None))
>>> data["sections"]
[{'key': 'a', 'title': 'A', 'body': 'Text of A.', 'summary': 'About A.'}]
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Protocol

from statetools.errors import SpecError
from statetools.sections import Section, Sections
from statetools.tools.tool import BaseTool


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
