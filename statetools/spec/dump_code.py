"""Writing a code mode as YAML for :func:`~statetools.dump_playbook`: ``kind: code_mode``
with its ``name`` and ``limits`` when they are not the defaults, and its ``items``
(definitions with their ``kind``, tools by import path or name, facades inline).

>>> from statetools.code import CodeMode
>>> from statetools.spec.dump import to_data
>>> ping = Tool.create("ping", "Ping.", lambda: "pong")
>>> to_data(CodeMode(ping, calls=10))
{'kind': 'code_mode', 'limits': {'calls': 10}, 'items': ['ping']}
"""

from __future__ import annotations

from typing import Any, Protocol

import attrs

from statetools.code.mode import CodeMode
from statetools.code.sandbox import Limits
from statetools.definitions.chaining import Chaining
from statetools.definitions.items import as_tool
from statetools.definitions.machine import StateMachineTool
from statetools.definitions.playbook import PlaybookTool
from statetools.errors import SpecError, StatetoolsError
from statetools.sections import Sections
from statetools.tools.tool import BaseTool

__all__ = ["code_mode_data"]


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
