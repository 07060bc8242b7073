"""Sections: a prompt made of sections, some summarized, read on demand with their tools."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from statetools.definitions.items import as_tool
from statetools.errors import DefinitionError
from statetools.sections.reading import ReadSectionTool
from statetools.sections.section import Section
from statetools.sections.tree import SectionTree, check_tree
from statetools.tools.tool import BaseTool


@attrs.frozen(init=False)
class Sections:
    """An item for ``tools=[...]``: the sections render into the system prompt (full
    ones in full, summary ones as title, summary and how to read them) and
    ``read_section(key)`` returns a section and opens its tools and its descendants'.

    With a model whose tools cannot change within a conversation, reading a section
    that opens tools restarts the conversation with that section shown in full.

    Two sections with one key among their siblings raise
    :class:`~statetools.DefinitionError`; ``strict=False`` keeps them instead (the
    first one is read) for :func:`~statetools.check` to report (ST017), as YAML
    designs do, and a run refuses them.

    >>> from statetools.models import ScriptedModel
    >>> refund = Tool.create("refund", "Refund an order", lambda order: f"refunded {order}")
    >>> sections = Sections(
    ...     Section("style", "Style", "Answer briefly.", visibility="full"),
    ...     Section("billing", "Billing", "Refunds within 30 days.",
    ...             summary="Refund rules.", tools=[refund]),
    ... )
    >>> model = ScriptedModel([("read_section", {"key": "billing"}), "Done."])
    >>> result = ToolLoop(model).run("Refund order 7", tools=[sections])
    >>> model.requests[1].tool_names
    ['read_section', 'refund']
    """

    sections: tuple[Section, ...]
    tool_name: str
    common_tools: tuple[BaseTool, ...]
    tree: SectionTree = attrs.field(eq=False, repr=False)
    facade: ReadSectionTool = attrs.field(eq=False, repr=False)
    """The ``read_section`` tool."""
    folder: Path | None = attrs.field(eq=False, repr=False)
    """The folder :func:`~statetools.load_skills` read these skills from (None for
    sections written in Python or YAML); :func:`~statetools.dump_playbook` writes it."""

    def __init__(
        self,
        *sections: Section,
        tool_name: str = "read_section",
        common_tools: Iterable[Any] = (),
        folder: str | os.PathLike[str] | None = None,
        strict: bool = True,
    ) -> None:
        for section in sections:
            if not isinstance(section, Section):
                raise DefinitionError(
                    f"Sections takes Section objects, got {type(section).__name__}",
                    path=tool_name,
                    hint="write Sections(Section(key, title, body, ...), ...)",
                )
        if not sections:
            raise DefinitionError(
                "Sections needs at least one section",
                path=tool_name,
                hint="write Sections(Section(key, title, body), ...)",
            )
        common = tuple(as_tool(item) for item in common_tools)
        tree = SectionTree(sections, tool_name)
        check_tree(tree, tool_name, strict=strict)
        facade = ReadSectionTool.for_tree(tree, tool_name, common)
        where = None if folder is None else Path(folder)
        self.__attrs_init__(tuple(sections), tool_name, common, tree, facade, where)

    def disclosure_items(self) -> list[Any]:
        """What the design registers: ``read_section`` and the tools shown from the start.

        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> refund = Tool.create("refund", "Refund an order", lambda order: f"refunded {order}")
        >>> sections = Sections(
        ...     Section("style", "Style", "Answer briefly.", visibility="full", tools=[ping]),
        ...     Section("billing", "Billing", "Refunds within 30 days.", summary="Refunds.",
        ...             tools=[refund]),
        ... )
        >>> [tool.name for tool in sections.disclosure_items()]
        ['read_section', 'ping']
        """
        return [self.facade, *self.tree.open_tools()]

    def prompt(self, read: Iterable[str] = ()) -> str:
        """The system prompt text, with the sections at ``read`` shown in full.

        >>> print(Sections(Section("a", "A", "Body.", summary="About A.")).prompt())
        ## A
        <BLANKLINE>
        About A.
        (Summary only: call read_section with key "a" to read it in full.)
        """
        return self.tree.prompt(read)

    def keys(self) -> list[str]:
        """Every section's path, in document order.

        >>> Sections(Section("a", "A", "x", children=[Section("b", "B", "y")])).keys()
        ['a', 'a.b']
        """
        return list(self.tree.nodes)
