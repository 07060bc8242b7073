"""``kind: sections`` and ``kind: skills`` in YAML designs.

>>> design = load_design('''
... definitions:
...   - kind: sections
...     sections:
...       - {key: a, title: A, body: Text of A., summary: About A.}
... ''')
>>> design.definitions[0].keys()
['a']
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from statetools.errors import DefinitionError, SpecError
from statetools.sections import Section, Sections, load_skills
from statetools.spec.problems import Invalid
from statetools.spec.problems import Path as ErrorPath
from statetools.spec.resolve import current, resolve_tool

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
