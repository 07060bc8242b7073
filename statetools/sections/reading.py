"""The ``read_section`` tool: a facade whose categories are section paths."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from statetools.definitions.unfolding import Unfolded, UnfoldingTool
from statetools.disclosure.outline import Outline
from statetools.sections.tree import SectionTree
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
