"""``kind: code_mode`` in YAML designs: ``st.CodeMode`` over the items written under it,
read from YAML and written as YAML for :func:`~statetools.dump_playbook`.

``items`` lists what the script tool reaches, as anywhere else: tool names or import
paths, facades written inline, and definitions with their ``kind`` (playbooks,
machines, facades, sections, skills) or by import path. ``name`` is the script tool's
name (``run_code`` by default), ``limits`` what one script may use (``seconds``,
``memory``, ``calls``, ``depth``, ``output``; see ``st.CodeMode``). A code mode is
written with its ``name`` and ``limits`` when they are not the defaults, and its
``items`` (definitions with their ``kind``, tools by import path or name, facades
inline).

>>> find = Tool.create("find", "Find an order.", lambda order: "found")
>>> design = load_design('''
... definitions:
...   - kind: code_mode
...     limits: {seconds: 2, calls: 10}
...     items:
...       - kind: playbook
...         name: desk
...         description: Handle an order
...         tools: [find]
... ''', tools=[find])
>>> mode = design.definitions[0]
>>> mode.tool.name, mode.tool.limits.calls, [item.name for item in mode.code_mode_items]
('run_code', 10, ['desk'])
>>> from statetools.code import CodeMode
>>> from statetools.spec.dump import to_data
>>> ping = Tool.create("ping", "Ping.", lambda: "pong")
>>> to_data(CodeMode(ping, calls=10))
{'kind': 'code_mode', 'limits': {'calls': 10}, 'items': ['ping']}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import attrs

from statetools.code.mode import CodeMode
from statetools.code.sandbox import LIMIT_HINTS, Limits, limit_problem
from statetools.definitions.chaining import Chaining
from statetools.definitions.items import as_tool
from statetools.definitions.machine import StateMachineTool
from statetools.definitions.playbook import PlaybookTool
from statetools.errors import SpecError, StatetoolsError
from statetools.sections import Sections
from statetools.spec.forms import Definition
from statetools.spec.problems import Invalid, Several
from statetools.spec.references import is_import_path
from statetools.spec.resolve import import_cached, resolve_tool
from statetools.spec.values import converter, describe_value, fields_of
from statetools.tools.tool import BaseTool

__all__ = [
    "CODE_KEYS",
    "CodeItem",
    "CodeModeForm",
    "LimitsForm",
    "structure_code_mode",
    "code_mode_data",
]


_DEFAULT = Limits()
_DEFINITION: Any = Definition  # a union: cattrs' hook for it is registered by the converter

CODE_KEYS = ("kind", "name", "limits", "items")
"""The keys of ``kind: code_mode``."""


class CodeItem:
    """One item of a code mode (a tool, a facade or a definition), as read."""


@attrs.frozen
class LimitsForm:
    """``limits:`` of a code mode: any of the five, the others keep their defaults
    (checked here, so each wrong one is a problem at its own key)."""

    seconds: Any = _DEFAULT.seconds
    memory: Any = _DEFAULT.memory
    calls: Any = _DEFAULT.calls
    depth: Any = _DEFAULT.depth
    output: Any = _DEFAULT.output


@attrs.frozen
class CodeModeForm:
    """``kind: code_mode``: ``items`` (required), ``name``, ``limits``."""

    items: tuple[CodeItem, ...]
    name: str = "run_code"
    limits: LimitsForm | None = None


def structure_item(value: Any, _: Any = None) -> Any:
    """An item: a definition (a mapping with ``kind``, or an import path naming one),
    a tool (a name or import path) or a facade written inline."""
    if isinstance(value, Mapping) and "kind" in value:
        if value["kind"] == "code_mode":
            raise Invalid(
                "a code_mode cannot hold another code_mode",
                hint="list the other code_mode's items here, or define it beside this one",
                at=("kind",),
            )
        return converter.structure(value, _DEFINITION)
    if isinstance(value, str) and is_import_path(value):
        found = import_cached(value)
        if not callable(found) or hasattr(found, "code_mode_items"):
            return converter.structure(value, _DEFINITION)  # says what it is not
    if isinstance(value, str | Mapping):
        return resolve_tool(value)
    raise Invalid(
        f"expected a tool or a definition, got {describe_value(value)}",
        hint="write a tool's name, 'module:attribute', or a definition with 'kind:'",
    )


def _limits(form: LimitsForm | None) -> dict[str, Any]:
    if form is None:
        return {}
    values = attrs.asdict(form)
    problems = [
        Invalid(problem, hint=LIMIT_HINTS[limit], at=("limits", limit))
        for limit, value in values.items()
        if (problem := limit_problem(limit, value)) is not None
    ]
    if problems:
        raise Several(problems)
    return values


def structure_code_mode(value: Mapping[str, Any]) -> CodeMode:
    """``kind: code_mode``, built with ``st.CodeMode``."""
    form: CodeModeForm = fields_of(CodeModeForm)(
        {key: item for key, item in value.items() if key != "kind"}, CodeModeForm
    )
    if not form.items:
        raise Invalid(
            "a code_mode needs items",
            hint="list the tools and definitions its scripts call under 'items:'",
            at=("items",),
        )
    limits = _limits(form.limits)
    try:
        return CodeMode(*form.items, name=form.name, **limits)
    except StatetoolsError as exc:
        raise Invalid(exc.message, hint=exc.hint) from exc


converter.register_structure_hook(CodeItem, structure_item)

CODE_KINDS = {"code_mode": structure_code_mode}
"""The definition kind built here (beside :data:`~statetools.spec.section_kinds.EXTRA_KINDS`)."""


class DefinitionWriter(Protocol):
    """What the dumper offers: definitions and tools as YAML data."""

    def definition(self, definition: Any) -> dict[str, Any]:
        """A definition, with its ``kind``."""
        ...

    def tool(self, tool: BaseTool) -> Any:
        """How ``tool`` is named in the YAML (a facade inline)."""
        ...


def _item(item: Any, writer: DefinitionWriter, where: str) -> Any:
    if isinstance(item, PlaybookTool | StateMachineTool | Sections | CodeMode):
        return writer.definition(item)
    if isinstance(item, Chaining):
        raise SpecError(
            "a chaining rule cannot be written to YAML",
            path=where,
            hint="add the rule in Python (ToolLoop(...).with_tool_chaining_from(...))",
        )
    try:
        tool = as_tool(item)
    except StatetoolsError as exc:
        raise SpecError(exc.message, path=where, hint=exc.hint) from exc
    return writer.tool(tool)


def code_mode_data(mode: CodeMode, writer: DefinitionWriter) -> dict[str, Any]:
    """``kind: code_mode`` for ``mode``."""
    name = mode.tool.name
    data: dict[str, Any] = {"kind": "code_mode"}
    if name != "run_code":
        data["name"] = name
    limits = {
        limit: value
        for limit, value in attrs.asdict(mode.tool.limits).items()
        if value != getattr(Limits(), limit)
    }
    if limits:
        data["limits"] = limits
    data["items"] = [
        _item(item, writer, f"code mode '{name}', item {index}")
        for index, item in enumerate(mode.code_mode_items)
    ]
    return data
