"""Sections: a prompt made of sections, some summarized, read on demand with their
tools; and the ``read_section`` tool, a facade whose categories are section paths."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import attrs

from statetools.definitions.items import as_tool
from statetools.definitions.unfolding import Unfolded, UnfoldingTool
from statetools.engine.prompt_sections import Outline
from statetools.errors import DefinitionError
from statetools.sections.section import Section
from statetools.sections.tree import SectionTree, check_tree
from statetools.tools.calling import Arguments, Context, ToolResult, parse_arguments
from statetools.tools.schema import InputSchema, Parameter
from statetools.tools.tool import BaseTool
from statetools.tools.validation import make_validator

KEY = "key"


@attrs.frozen(kw_only=True)
class ReadSectionTool(UnfoldingTool):
    """``read_section(key)``: returns a section's text and opens its tools (and those of
    the sections below it). It stays visible; reading a section again returns its text
    again and opens nothing new. Build it with :class:`~statetools.Sections`.

    >>> tool = Sections(Section("a", "A", "Body of A.", summary="About A.")).facade
    >>> print(tool.call({"key": "a"}).text)
    ## A
    <BLANKLINE>
    Body of A.
    """

    keeps_shown: ClassVar[bool] = True

    tree: SectionTree = attrs.field(eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        schema = InputSchema.of(Parameter.string(KEY, "The key of the section to read"))
        object.__setattr__(self, "input_schema", schema)
        object.__setattr__(self, "validator", make_validator(schema))

    @classmethod
    def for_tree(
        cls, tree: SectionTree, name: str, common: Sequence[BaseTool] = ()
    ) -> ReadSectionTool:
        """The tool for ``tree``; ``common`` tools open with any section.

        >>> from statetools.sections.tree import SectionTree
        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> tree = SectionTree([Section("a", "A", "Body.", summary="About A.")])
        >>> ReadSectionTool.for_tree(tree, "read_section", [ping]).categories
        (('a', ('ping',)),)
        """
        inner: dict[str, BaseTool] = {}
        categories: list[tuple[str, tuple[str, ...]]] = []
        for path in tree.nodes:
            tools = [*tree.gated_tools(path), *common]
            for tool in tools:
                inner.setdefault(tool.name, tool)
            if tools:  # a section that opens nothing is no category (check's ST008)
                categories.append((path, tuple(tool.name for tool in tools)))
        return cls(
            name=name,
            description="Read a section of your instructions by its key; "
            "its tools become available.",
            inner=tuple(inner.values()),
            category_parameter=KEY if categories else None,
            categories=categories,
            tree=tree,
        )

    def outline(self) -> Outline:
        """The sections as the disclosure graph sees them (``section`` nodes).

        >>> tool = Sections(Section("a", "A", "Body of A.", summary="About A.")).facade
        >>> [(s.path, s.visibility) for s in tool.outline().sections]
        [('a', 'summary')]
        """
        return self.tree.outline(dict(self.categories))

    def prompt_text(self, unfolds: Sequence[Mapping[str, Any]]) -> str:
        """The sections as the system prompt shows them after ``unfolds`` (the
        arguments of the reads so far).

        >>> refund = Tool.create("refund", "Refund an order", lambda order: f"refunded {order}")
        >>> tool = Sections(Section("billing", "Billing", "Refunds within 30 days.",
        ...                         summary="Refunds.", tools=[refund])).facade
        >>> print(tool.prompt_text([{"key": "billing"}]))
        ## Billing
        <BLANKLINE>
        Refunds within 30 days.
        """
        read = [u[KEY] for u in unfolds if isinstance(u.get(KEY), str)]
        return self.tree.prompt(p for p in read if p in self.tree.nodes)

    def expansion_keys(self) -> list[str]:
        """The keys whose reading shows more text or opens tools (for analysis): every
        section that is, or sits below, a summary section, and every section that opens
        tools. Reading a full section at the top with nothing to open changes nothing.

        >>> Sections(Section("a", "A", "x", visibility="full"), Section("b", "B", "y")
        ...          ).facade.expansion_keys()
        ['b']
        """
        opens = dict(self.categories)
        return [p for p in self.tree.nodes if self.tree.gate_of(p) is not None or p in opens]

    def expansion_arguments(self, key: str) -> dict[str, Any]:
        """The arguments of the call that reads ``key``: ``{"key": key}``.

        >>> Sections(Section("a", "A", "x")).facade.expansion_arguments("a")
        {'key': 'a'}
        """
        return {KEY: key}

    def expansion_texts(self, key: str) -> tuple[str | None, str]:
        """The section's own text as a summary (None for a full section) and in full,
        without its children (for the per-section token table).

        >>> summary, full = Sections(
        ...     Section("a", "A", "Body.", summary="About A.")
        ... ).facade.expansion_texts("a")
        >>> print(summary)
        ## A
        <BLANKLINE>
        About A.
        (Summary only: call read_section with key "a" to read it in full.)
        >>> print(full)
        ## A
        <BLANKLINE>
        Body.
        """
        return self.tree.own_texts(key)

    def select(self, arguments: Mapping[str, Any]) -> Unfolded | str:
        """The tools reading ``arguments["key"]`` opens (replayed on resume).

        >>> refund = Tool.create("refund", "Refund an order", lambda order: f"refunded {order}")
        >>> tool = Sections(Section("billing", "Billing", "Refunds within 30 days.",
        ...                         summary="Refunds.", tools=[refund])).facade
        >>> [t.name for t in tool.select({"key": "billing"}).tools]
        ['refund']
        >>> tool.select({"key": "bill"})
        "No section has the key 'bill'. Keys, closest first: billing."
        """
        key = arguments.get(KEY)
        if not isinstance(key, str) or key not in self.tree.nodes:
            return self.tree.unknown_key(str(key))
        members = dict(self.categories).get(key, ())
        tools = tuple(tool for tool in self.inner if tool.name in members)
        return Unfolded(self.name, tools, {KEY: key}, listed=False)

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Read a section: its text (value: the :class:`Unfolded` tools it opens).

        >>> import asyncio
        >>> refund = Tool.create("refund", "Refund an order", lambda order: f"refunded {order}")
        >>> tool = Sections(Section("billing", "Billing", "Refunds within 30 days.",
        ...                         summary="Refunds.", tools=[refund])).facade
        >>> result = asyncio.run(tool.acall({"key": "billing"}))
        >>> result.text, [t.name for t in result.value.tools]
        ('## Billing\\n\\nRefunds within 30 days.', ['refund'])
        """
        parsed = parse_arguments(self.name, arguments)
        if isinstance(parsed, str):
            return ToolResult.error(parsed)
        key = parsed.get(KEY)
        if not isinstance(key, str) or set(parsed) != {KEY}:
            return ToolResult.error(
                f"Invalid arguments for tool '{self.name}': give only \"{KEY}\", the key of "
                f"a section (one of: {', '.join(self.tree.nodes)})."
            )
        unfolded = self.select(parsed)
        if isinstance(unfolded, str):
            return ToolResult.error(unfolded)
        text = self.tree.render_full(key, frozenset())
        return ToolResult(content=text, value=unfolded)

    async def open(
        self,
        arguments: Arguments = None,
        context: Context = None,
        current: Sequence[BaseTool] | None = None,
    ) -> ToolResult:
        """Read a section (the same as calling the tool).

        >>> import asyncio
        >>> tool = Sections(Section("a", "A", "Body of A.", summary="About A.")).facade
        >>> asyncio.run(tool.open({"key": "a"})).text
        '## A\\n\\nBody of A.'
        """
        return await self.acall(arguments, context)


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
