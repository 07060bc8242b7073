"""Section: one part of a prompt, shown in full or as a summary, with tools attached."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import attrs

from statetools.definitions.items import as_tool
from statetools.errors import DefinitionError
from statetools.tools.tool import BaseTool

Visibility = Literal["summary", "full"]

_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]*$")


def _tools(items: Iterable[Any]) -> tuple[BaseTool, ...]:
    return tuple(as_tool(item) for item in items)


def _children(items: Iterable[Section]) -> tuple[Section, ...]:
    children = tuple(items)
    for child in children:
        if not isinstance(child, Section):
            raise DefinitionError(
                f"a section's children are sections, got {type(child).__name__}",
                hint="write children=[Section(...), ...]",
            )
    return children


@attrs.frozen(init=False)
class Section:
    """A part of the system prompt. A ``"full"`` section shows its body; a ``"summary"``
    section shows its title and summary until the model reads it (``read_section``),
    which returns the body and opens the section's tools and its descendants' tools.

    ``key`` names it among its siblings; a child's path is ``parent.child``.
    ``body_file`` records the file the body was read from (YAML's ``body_file:``), so
    that :func:`~statetools.dump_playbook` names the file again; it takes no part in
    equality.

    >>> billing = Section("billing", "Billing", "Invoices are due in 30 days.",
    ...                   summary="Invoices and payments.", tools=[])
    >>> billing.visibility, billing.summary
    ('summary', 'Invoices and payments.')
    """

    key: str
    title: str
    body: str
    summary: str | None
    visibility: Visibility
    tools: tuple[BaseTool, ...]
    children: tuple[Section, ...]
    body_file: Path | None = attrs.field(eq=False, repr=False)

    def __init__(
        self,
        key: str,
        title: str,
        body: str,
        *,
        summary: str | None = None,
        visibility: Visibility = "summary",
        tools: Iterable[Any] = (),
        children: Iterable[Section] = (),
        body_file: str | os.PathLike[str] | None = None,
    ) -> None:
        where = f"section '{key}'"
        if not isinstance(key, str) or not _KEY.match(key):
            raise DefinitionError(
                f"invalid section key {key!r}",
                path=where,
                hint="use letters, digits, '_' and '-' (a child's path is parent.child)",
            )
        if visibility not in ("summary", "full"):
            raise DefinitionError(
                f"unknown visibility {visibility!r}", path=where, hint="use 'summary' or 'full'"
            )
        for name, value in (("title", title), ("body", body)):
            if not isinstance(value, str):
                raise DefinitionError(f"the {name} must be text", path=where)
        if summary is not None and not isinstance(summary, str):
            raise DefinitionError("the summary must be text", path=where)
        self.__attrs_init__(
            key,
            title,
            body,
            summary,
            visibility,
            _tools(tools),
            _children(children),
            None if body_file is None else Path(body_file),
        )

    def with_children(self, *children: Section) -> Section:
        """The same section with more children.

        >>> Section("a", "A", "x").with_children(Section("b", "B", "y")).children[0].key
        'b'
        """
        return attrs.evolve(self, children=(*self.children, *children))

    def with_tools(self, *tools: Any) -> Section:
        """The same section with more tools attached.

        >>> Section("a", "A", "x").with_tools(Tool.create("t", "T", lambda: 1)).tools[0].name
        't'
        """
        return attrs.evolve(self, tools=(*self.tools, *tools))
