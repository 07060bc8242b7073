"""UnfoldingTool: one short tool that stands for a group of tools until the model calls it.

Calling the facade replaces it by its inner tools (the result lists them, followed by
the usage notes). Facades nest to any depth and unfold one level at a time. Variants:
by category (the model picks a category), selectable (a selector picks or builds the
tools from the arguments) and exclusive (after unfolding only the inner tools remain).

>>> facade = UnfoldingTool.of("math", "Open the math tools", [add, mul])  # doctest: +SKIP
>>> facade.call().text  # doctest: +SKIP
'Tools now available: add, mul.'
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeGuard

import attrs

from statetools.definitions.facade_contents import (
    Categories,
    categories_of,
    grouped,
    inner_tool,
    member_tools,
    object_tools,
    settled,
    unfolding_class,
    with_added,
)
from statetools.definitions.search import run_search, select_names
from statetools.definitions.search_index import SearchIndex, SearchOptions
from statetools.definitions.shared_definition import Definition
from statetools.definitions.unfold_call import DirectCall, Unfolded, listing, open_facade, select
from statetools.tools.calling import Arguments, Context, ToolResult
from statetools.tools.tool import BaseTool
from statetools.tools.validation import make_validator

__all__ = ["DirectCall", "Facade", "Selector", "Unfolded", "UnfoldingTool", "listing"]

Selector = Callable[[dict[str, Any]], Iterable[Any]]
"""Picks a selectable facade's tools from the call's arguments: returns tools, functions
or names of the facade's inner tools."""


def _inner(item: Any) -> BaseTool:
    return inner_tool(item, UnfoldingTool.from_instance)


def _tuple(items: Iterable[Any]) -> tuple[BaseTool, ...]:
    return tuple(_inner(item) for item in items)


@attrs.frozen(kw_only=True)
class UnfoldingTool(BaseTool):
    """A facade: a tool that, when called, is replaced by its inner tools.

    Build it with :meth:`of`, :meth:`by_category`, :meth:`selectable`,
    :meth:`from_instance` or :meth:`from_tool_object`. It is a definition (immutable);
    the run's scheduler keeps which facades were unfolded.

    >>> def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> math = UnfoldingTool.of("math", "Open the math tools", [add], usage_notes="Integers only.")
    >>> print(math.call().text)
    Tools now available: add.
    <BLANKLINE>
    Integers only.
    >>> math.call({"add": {"a": 2, "b": 3}}).text
    '5'
    """

    swaps: ClassVar[bool] = False
    """Whether the tools it opens take the place of shown tools of the same name (the
    ``tool_detail`` of a layered catalogue); such a facade stays visible."""
    keeps_shown: ClassVar[bool] = False
    """Whether the facade stays visible after unfolding (``read_section``): every call
    with new arguments is kept in the unfold log, even one that opens no tool."""

    inner: tuple[BaseTool, ...] = attrs.field(default=(), converter=_tuple)
    """The tools (and nested facades) the facade opens."""
    usage_notes: str | None = None
    """Longer guidance shown after the listing when the facade unfolds."""
    exclusive: bool = False
    """After unfolding, only the inner tools remain until the run ends."""
    category_parameter: str | None = None
    """By-category facades: the argument that names the category (None otherwise)."""
    categories: Categories = attrs.field(default=(), converter=categories_of)
    """By-category facades: ``(category, inner tool names)`` pairs, in order."""
    selector: Selector | None = None
    """Selectable facades: picks or builds the tools from the arguments."""
    search: SearchOptions | None = None
    """Search facades: how they search (None for other facades)."""
    members: tuple[Any, ...] = ()
    """Search facades: in-loop playbooks and state machines whose tools are found by
    search and still obey their conditions and states."""
    search_index: SearchIndex = attrs.field(init=False, eq=False, repr=False, hash=False)
    """Search facades: the index of every tool below (built on the first query)."""
    validator: Any = attrs.field(init=False, eq=False, repr=False, hash=False)
    """The JSON-schema validator of the facade's arguments."""

    def __attrs_post_init__(self) -> None:
        schema, index = settled(self, _is_facade)
        if schema is not None:
            object.__setattr__(self, "input_schema", schema)
        object.__setattr__(self, "search_index", index)
        object.__setattr__(self, "validator", make_validator(self.input_schema))

    # building ---------------------------------------------------------------------

    @classmethod
    def of(
        cls,
        name: str,
        description: str,
        inner: Iterable[Any],
        *,
        usage_notes: str | None = None,
        exclusive: bool = False,
    ) -> UnfoldingTool:
        """A facade that opens all of ``inner`` (tools, functions, facades, agentic
        playbooks and machines) when called.

        >>> UnfoldingTool.of("t", "Open t", [UnfoldingTool.of("u", "Open u", [])]).inner[0].name
        'u'
        """
        return cls(
            name=name,
            description=description,
            inner=tuple(inner),
            usage_notes=usage_notes,
            exclusive=exclusive,
        )

    @classmethod
    def by_category(
        cls,
        name: str,
        description: str,
        categories: Mapping[str | None, Iterable[Any]],
        *,
        category_parameter: str = "category",
        usage_notes: str | None = None,
        exclusive: bool = False,
    ) -> UnfoldingTool:
        """A facade whose schema asks for a category; it opens that category's tools.

        Tools under the key ``None`` belong to every category.

        >>> f = UnfoldingTool.by_category("files", "Open file tools", {"read": [], "write": []})
        >>> f.input_schema["properties"]["category"]["enum"]
        ['read', 'write']
        """
        tools, pairs = grouped(name, categories, _inner)
        return cls(
            name=name,
            description=description,
            inner=tuple(tools),
            usage_notes=usage_notes,
            exclusive=exclusive,
            category_parameter=category_parameter,
            categories=pairs,
        )

    @classmethod
    def selectable(
        cls,
        name: str,
        description: str,
        inner: Iterable[Any],
        schema: Mapping[str, Any],
        selector: Selector,
        *,
        usage_notes: str | None = None,
        exclusive: bool = False,
    ) -> UnfoldingTool:
        """A facade with its own ``schema``; ``selector(arguments)`` returns the tools to
        open (inner tools by name or object, or new tools built from the arguments). It
        runs once per unfold.

        >>> shop = UnfoldingTool.selectable(
        ...     "shop", "Open a shop", [], InputSchema.of(Parameter.string("store", "Store")),
        ...     lambda args: [Tool.create("store_name", "Name", lambda: args["store"])])
        >>> shop.call({"store": "books"}).text
        'Tools now available: store_name.'
        """
        return cls(
            name=name,
            description=description,
            inner=tuple(inner),
            input_schema=schema,
            selector=selector,
            usage_notes=usage_notes,
            exclusive=exclusive,
        )

    @classmethod
    def searchable(
        cls,
        name: str,
        description: str,
        inner: Iterable[Any],
        *,
        max_results: int = 5,
        usage_notes: str | None = None,
        ranker: Any = "bm25",
        keywords: Mapping[str, Sequence[str]] | None = None,
        vectors: str | None = None,
        example_requests: Mapping[str, Sequence[str]] | str | os.PathLike[str] | None = None,
    ) -> UnfoldingTool:
        """A facade the model searches: its arguments are ``query`` (words) and/or
        ``names`` (exact tool names). A call lists the best ``max_results`` matches
        and opens only those, after the tools already shown; the facade stays visible.
        ``inner`` may hold tools, functions, facades (their tools are found too) and
        in-loop playbooks and state machines (their tools still obey their conditions
        and states). ``ranker`` orders the tools: ``"bm25"`` (words), ``"embeddings"``
        (meaning, with :func:`statetools.search.local_embedder`), ``"hybrid"`` (both) or
        any :class:`statetools.search.Ranker`; ``keywords`` gives other words for some
        tools (name -> words); ``vectors`` names a file that keeps the tools' embeddings
        (``"embeddings"`` and ``"hybrid"``: computed once, reloaded after);
        ``example_requests`` gives, per tool name, sentences a user would say when the
        tool is needed, each matched on its own by ``"embeddings"`` and ``"hybrid"``
        (write them yourself or with :func:`statetools.search.example_requests`), or the
        path of a JSON file holding them (``statetools examples --out``). See
        docs/search.md.

        >>> def create_issue(title: str) -> str:
        ...     '''Open a new issue.'''
        ...     return "#1"
        >>> def list_commits(branch: str) -> str:
        ...     '''Commits of a branch.'''
        ...     return "abc"
        >>> github = UnfoldingTool.searchable("github", "Find tools", [create_issue, list_commits])
        >>> print(github.call({"query": "new issue"}).text)
        Tools matching "new issue", best first:
        - create_issue: Open a new issue.
        Tools now available: create_issue.
        """
        tools: list[Any] = []
        members: list[Any] = []
        for item in inner:
            in_loop = isinstance(item, Definition) and item.agent.model is None
            (members if in_loop else tools).append(item)
        return cls(
            name=name,
            description=description,
            inner=tuple(tools),
            members=tuple(members),
            search=SearchOptions(max_results, ranker, keywords, vectors, example_requests),
            usage_notes=usage_notes,
        )

    @classmethod
    def from_instance(cls, obj: Any) -> UnfoldingTool:
        """The facade of an instance of an ``@unfolding_tools`` class.

        >>> @unfolding_tools("clock", "Open the clock tools")
        ... class Clock:
        ...     @llm_tool("The time")
        ...     def now(self) -> str:
        ...         return "12:00"
        >>> UnfoldingTool.from_instance(Clock()).call().text
        'Tools now available: now.'
        """
        spec = unfolding_class(obj)
        return cls._from_object(obj, spec.name, spec.description, spec.usage_notes, spec.exclusive)

    @classmethod
    def from_tool_object(
        cls,
        obj: Any,
        name: str,
        description: str,
        *,
        usage_notes: str | None = None,
        exclusive: bool = False,
    ) -> UnfoldingTool:
        """A facade over an object whose class you cannot decorate: its ``@llm_tool``
        methods or, when it has none, its public methods that have a docstring.

        >>> class Stack:
        ...     def __init__(self):
        ...         self.items = []
        ...     def push(self, item: str) -> int:
        ...         '''Push an item; returns the new size.'''
        ...         self.items.append(item)
        ...         return len(self.items)
        >>> UnfoldingTool.from_tool_object(Stack(), "stack", "Open the stack").call().text
        'Tools now available: push.'
        """
        return cls._from_object(obj, name, description, usage_notes, exclusive)

    @classmethod
    def _from_object(
        cls, obj: Any, name: str, description: str, notes: str | None, exclusive: bool
    ) -> UnfoldingTool:
        tools = object_tools(obj, lambda member: cls.from_instance(member))
        if not any(tool.metadata.category for tool in tools):
            return cls.of(name, description, tools, usage_notes=notes, exclusive=exclusive)
        grouped: dict[str | None, list[BaseTool]] = {}
        for tool in tools:
            grouped.setdefault(tool.metadata.category, []).append(tool)
        return cls.by_category(name, description, grouped, usage_notes=notes, exclusive=exclusive)

    def with_tools(self, *items: Any) -> UnfoldingTool:
        """The same facade with more inner tools (selector, schema and notes kept). In a
        by-category facade a tool joins the category of its ``metadata.category``
        (a new category if needed), or every category when it has none.

        >>> UnfoldingTool.of("t", "Open t", []).with_tools(Tool.create("a", "A", lambda: 1)).call().text
        'Tools now available: a.'
        """  # noqa: E501
        added = _tuple(items)
        if self.category_parameter is None:
            return attrs.evolve(self, inner=(*self.inner, *added))
        pairs = with_added(self.categories, added)
        return attrs.evolve(self, inner=(*self.inner, *added), categories=pairs.items())

    def with_usage_notes(self, usage_notes: str | None) -> UnfoldingTool:
        """The same facade with other usage notes.

        >>> UnfoldingTool.of("t", "Open t", []).with_usage_notes("Be careful.").usage_notes
        'Be careful.'
        """
        return attrs.evolve(self, usage_notes=usage_notes)

    # reading ----------------------------------------------------------------------

    @property
    def is_searchable(self) -> bool:
        """Whether the model searches this facade (see :meth:`searchable`)."""
        return self.search is not None

    def member_tools(self) -> list[BaseTool]:
        """The tools of the in-loop playbooks and machines of a search facade."""
        return [tool for member in self.members for tool in member_tools(member)]

    @property
    def is_selectable(self) -> bool:
        """Whether a selector picks the tools."""
        return self.selector is not None

    def category_of(self, tool: str) -> str | None:
        """The first category listing ``tool`` (None for facades without categories)."""
        return next((c for c, names in self.categories if tool in names), None)

    def inner_tool(self, name: str) -> BaseTool | None:
        """The inner tool named ``name``, if any."""
        return next((tool for tool in self.inner if tool.name == name), None)

    # calling ----------------------------------------------------------------------

    def select(self, arguments: Mapping[str, Any]) -> Unfolded | str:
        """The tools a call with ``arguments`` opens (no direct call), or the text of
        what is wrong with the arguments. The scheduler replays this on resume
        (a search facade opens the tools its ``names`` argument names)."""
        if self.search is not None:
            return select_names(self, arguments)
        return select(self, arguments)

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Unfold: the result lists the opened tools (value: :class:`Unfolded`). An
        argument named like an inner tool calls that tool directly with its value.
        A search facade searches instead (see :meth:`searchable`)."""
        if self.search is not None:
            return await run_search(self, arguments)
        return await open_facade(self, arguments, context)

    async def open(
        self,
        arguments: Arguments = None,
        context: Context = None,
        current: Sequence[BaseTool] | None = None,
    ) -> ToolResult:
        """Unfold, or with ``current`` (the tools opened earlier) list those again
        without running the selector; either way an inner tool may be called directly."""
        if self.search is not None:
            return await run_search(self, arguments)
        return await open_facade(self, arguments, context, current)


Facade = UnfoldingTool
"""The one name of a facade (``UnfoldingTool`` is the same class).

>>> inner = [Tool.create("add", "Add", lambda a, b: a + b)]
>>> Facade.of("math", "Arithmetic", inner) == UnfoldingTool.of("math", "Arithmetic", inner)
True
"""


def _is_facade(tool: BaseTool) -> TypeGuard[UnfoldingTool]:
    return isinstance(tool, UnfoldingTool)
