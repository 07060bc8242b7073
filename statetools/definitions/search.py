"""Search facades: the model searches a large group of tools and only the matches open.

A search facade (``UnfoldingTool.searchable``) takes ``query`` (words) and/or ``names``
(exact tool names). It ranks every tool below it with its ranker (BM25 by default; see
:mod:`statetools.search`) over what a model would match of each tool (its name split
into words, description, parameters, category, the facades it sits in, example values
and keywords), lists the best matches and opens only those, after the tools already
shown. The facade itself stays visible,
so the model can search again. Inside a run the scheduler passes a ``locked`` function:
matches that a condition, a state or an enclosing facade keeps locked are listed with
what to do first, and not opened.

The ranker's index is built on the first query and kept with the facade definition,
never rebuilt per turn.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, cast

import attrs

from statetools.definitions.facade_arguments import fitting, ignored_note, taken
from statetools.definitions.search_groups import groups_line
from statetools.definitions.unfold_call import Facade, Unfolded
from statetools.errors import DefinitionError, SpecError
from statetools.search.choice import ranker_for
from statetools.search.documents import Document, documents_for
from statetools.search.ranker import Ranker
from statetools.tools.calling import (
    Arguments,
    Context,
    ToolResult,
    invalid_arguments,
    parse_arguments,
)
from statetools.tools.descriptions import first_sentence, words
from statetools.tools.schema import InputSchema, JsonSchema, Parameter
from statetools.tools.tool import BaseTool
from statetools.tools.validation import argument_problems
from statetools.tools.wrappers import WrapperTool

__all__ = [
    "Keywords",
    "Locked",
    "SearchCall",
    "SearchIndex",
    "SearchOptions",
    "run_search",
    "search_schema",
]

Locked = Callable[[str], str | None]
"""Why a tool found by a search may not open now (None when it may)."""

_CLOSEST = 3
_CLOSE_ENOUGH = 0.6
_MAX_QUERY = 200


def _positive(_instance: object, _attribute: object, value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise DefinitionError(
            f"max_results must be a whole number of at least 1, got {value!r}",
            hint="write search: {max_results: 5}",
        )


Keywords = tuple[tuple[str, tuple[str, ...]], ...]
"""Other words per tool name: ``((name, (word, ...)), ...)``."""


def _keywords(value: Any) -> Keywords:
    if not value:
        return ()
    pairs = value.items() if isinstance(value, Mapping) else value
    result: list[tuple[str, tuple[str, ...]]] = []
    for name, extra in pairs:
        if isinstance(extra, str) or not all(isinstance(word, str) for word in extra):
            raise DefinitionError(
                f"keywords of {name} must be a list of words, got {extra!r}",
                path="search",
                hint='write keywords={"create_issue": ["bug", "ticket"]}',
            )
        result.append((str(name), tuple(extra)))
    return tuple(result)


def _ranker(_instance: object, _attribute: object, value: Any) -> None:
    ranker_for(value, where="search")  # raises when it names no ranker, or one not installed


def _vectors(instance: Any, _attribute: object, value: str | None) -> None:
    if value is not None and instance.ranker not in ("embeddings", "hybrid"):
        raise DefinitionError(
            "saved vectors need the embeddings or hybrid ranker",
            path="search",
            hint="add ranker: hybrid (or embeddings), or remove vectors",
        )


@attrs.frozen
class SearchOptions:
    """How a search facade searches: ``max_results`` matches at most per query, the
    ``ranker`` ("bm25", "embeddings", "hybrid" or a :class:`~statetools.search.Ranker`)
    ``keywords``, other words the model may use for some tools (tool name -> words), and
    ``vectors``, a file keeping the tools' embeddings (embeddings and hybrid rankers: see
    :class:`~statetools.search.SavedVectors`).

    >>> SearchOptions().max_results, SearchOptions().ranker
    (5, 'bm25')
    """

    max_results: int = attrs.field(default=5, validator=_positive)
    ranker: Any = attrs.field(default="bm25", validator=_ranker)
    keywords: Any = attrs.field(default=(), converter=_keywords)
    vectors: str | None = attrs.field(default=None, validator=_vectors)

    def to_data(self, where: str) -> dict[str, Any]:
        """The options as a design's ``search:`` mapping (a Ranker object has none).

        >>> SearchOptions(3, "hybrid", {"a": ["b"]}).to_data("facade 'f'")
        {'max_results': 3, 'ranker': 'hybrid', 'keywords': {'a': ['b']}}
        """
        if not isinstance(self.ranker, str):
            raise SpecError(
                "a search facade with a Ranker object cannot be written to YAML",
                path=where,
                hint="name the ranker (bm25, embeddings, hybrid) to write the design",
            )
        data: dict[str, Any] = {"max_results": self.max_results}
        if self.ranker != "bm25":
            data["ranker"] = self.ranker
        if self.keywords:
            data["keywords"] = {name: list(extra) for name, extra in self.keywords}
        if self.vectors is not None:
            data["vectors"] = self.vectors
        return data


def search_schema() -> JsonSchema:
    """The arguments of every search facade: ``query`` and ``names``, both optional.

    >>> sorted(search_schema()["properties"])
    ['names', 'query']
    """
    return InputSchema.of(
        Parameter.string("query", "Words describing the tools you need", required=False),
        Parameter.array("names", "Exact names of tools to open", str, required=False),
    )


def facade_paths(facade: Any, is_facade: Callable[[BaseTool], bool]) -> dict[str, tuple[str, ...]]:
    """The facades (and in-loop playbooks and machines) each tool below ``facade`` sits
    in, outermost first, ``facade`` itself left out.

    >>> inner = UnfoldingTool.of("issues", "Issue tools", [Tool.create("a", "A", lambda: 1)])
    >>> facade_paths(UnfoldingTool.of("f", "F", [inner]), lambda t: isinstance(t, UnfoldingTool))
    {'issues': (), 'a': ('issues',)}
    """
    paths: dict[str, tuple[str, ...]] = {}

    def walk(node: Any, path: tuple[str, ...]) -> None:
        groups = [(path, node.inner)]
        groups += [((*path, member.name), member.tools) for member in getattr(node, "members", ())]
        for where, tools in groups:
            for tool in tools:
                paths.setdefault(tool.name, where)
                if is_facade(tool):
                    walk(tool, (*where, tool.name))

    walk(facade, ())
    return paths


class SearchIndex:
    """The ranking of a search facade's tools; the ranker indexes them on the first
    query, once.

    >>> index = SearchIndex([Tool.create("create_issue", "Open an issue", lambda: 1),
    ...                      Tool.create("list_commits", "Commits of a branch", lambda: 1)])
    >>> [tool.name for tool, _ in index.rank("new issue")]
    ['create_issue']
    """

    def __init__(
        self,
        tools: Sequence[BaseTool],
        ranker: str | Ranker = "bm25",
        *,
        paths: Mapping[str, Sequence[str]] | None = None,
        keywords: Keywords = (),
        vectors: str | None = None,
    ) -> None:
        self.tools = tuple(tools)
        self._by_name = {tool.name: tool for tool in self.tools}
        self.ranker = ranker_for(ranker, where="search", vectors=vectors)
        self._paths = dict(paths or {})
        self._keywords = dict(keywords)
        unknown = [name for name in self._keywords if name not in self._by_name]
        if unknown:
            raise DefinitionError(
                f"keywords for tools it does not hold: {', '.join(unknown)}",
                path="search",
                hint="give keywords only for tools below the search facade",
            )
        self._retriever: Ranker | None = None
        self._lock = threading.Lock()

    def tool(self, name: str) -> BaseTool | None:
        """The tool called ``name``, if it is in the index."""
        return self._by_name.get(name)

    def path_of(self, name: str) -> tuple[str, ...]:
        """The groups below the facade that ``name`` sits in, outermost first."""
        return tuple(self._paths.get(name, ()))

    def documents(self) -> list[Document]:
        """What the ranker indexes: one document per tool, in definition order."""
        return documents_for(self.tools, paths=self._paths, keywords=self._keywords)

    def _built(self) -> Ranker:
        if self._retriever is None:
            with self._lock:
                if self._retriever is None:
                    self.ranker.index(self.documents())
                    self._retriever = self.ranker
        return self._retriever

    @property
    def built(self) -> bool:
        """Whether the ranker has indexed the tools yet."""
        return self._retriever is not None

    def rank(self, query: str, k: int | None = None) -> list[tuple[BaseTool, float]]:
        """The ``k`` (default: all) tools best matching ``query``, best first."""
        if not query.strip() or not self.tools:
            return []
        ranked = self._built().rank(query, k if k is not None else len(self.tools))
        return [(self._by_name[name], score) for name, score in ranked if name in self._by_name]

    def closest(self, text: str, *, by_word: bool = True) -> list[str]:
        """Up to three tool names that look like ``text`` (a name, or with ``by_word`` a
        query whose words may each look like a word of a name)."""
        wanted = text.strip().lower()
        query_words = words(text) if by_word else []

        def likeness(name: str) -> float:
            whole = difflib.SequenceMatcher(None, wanted, name.lower()).ratio()
            parts = [
                difflib.SequenceMatcher(None, q, n).ratio()
                for q in query_words
                for n in words(name)
            ]
            return max([whole, *parts])

        scored = sorted((-likeness(name), index) for index, name in enumerate(self._by_name))
        names = list(self._by_name)
        return [names[index] for score, index in scored[:_CLOSEST] if -score >= _CLOSE_ENOUGH]


class SearchFacade(Facade, Protocol):
    """What a search reads of its facade (an :class:`~statetools.UnfoldingTool` made
    with ``searchable``)."""

    @property
    def search(self) -> SearchOptions | None: ...

    @property
    def search_index(self) -> SearchIndex: ...


def _invalid(facade: SearchFacade, problems: Sequence[str]) -> str:
    return invalid_arguments(facade.name, problems)


def _words_of(arguments: Mapping[str, Any]) -> str:
    """A query from arguments meant for some tool: their names and text values."""
    parts = [str(key) for key in arguments]
    parts += [value for value in arguments.values() if isinstance(value, str)]
    return " ".join(" ".join(parts).split())[:_MAX_QUERY]


def select_names(facade: SearchFacade, arguments: Mapping[str, Any]) -> Unfolded | str:
    """The tools ``names`` asks for, opened without a search (a resumed run replays
    the names a search opened); the text of what is wrong otherwise."""
    index = facade.search_index
    names = arguments.get("names") or []
    tools = [index.tool(name) for name in names]
    missing = [name for name, tool in zip(names, tools, strict=True) if tool is None]
    if missing or not isinstance(names, list):
        return f"Tool '{facade.name}' has no tools named {', '.join(map(str, missing))}."
    return Unfolded(facade.name, tuple(t for t in tools if t is not None), {"names": names})


def nothing_found(index: SearchIndex, query: str) -> str:
    """What a search that found nothing says: the closest names, and the groups below
    the facade (or the categories of its tools), so the next request can find it."""
    closest = index.closest(query)
    hint = f" Closest names: {', '.join(closest)}." if closest else ""
    groups = groups_line(index)
    if groups.startswith("Groups:"):
        return (
            f'No tool matches "{query}".{hint} {groups} '
            "Try other words, or names for a group or tool."
        )
    groups = f" {groups}" if groups else ""
    return f'No tool matches "{query}".{hint}{groups} Try other words.'


def _line(tool: BaseTool, reason: str | None) -> str:
    summary = first_sentence(tool.description)
    if reason is None:
        return f"- {tool.name}: {summary}"
    prefix = f"Tool '{tool.name}' is locked. "
    guidance = reason[len(prefix) :] if reason.startswith(prefix) else reason
    stop = "" if summary.endswith((".", "!", "?")) else "."
    return f"- {tool.name} (locked): {summary}{stop} {guidance}"


def _unknown(index: SearchIndex, name: str) -> str:
    closest = index.closest(name, by_word=False)
    hint = f" Closest names: {', '.join(closest)}." if closest else ""
    return f"- {name}: no tool has this name.{hint}"


def _header(query: str, names: Sequence[str]) -> str:
    parts = []
    if names:
        parts.append("asked for by name")
    if query:
        parts.append(f'matching "{query}", best first')
    return f"Tools {', then tools '.join(parts)}:"


async def run_search(
    facade: SearchFacade, arguments: Arguments = None, locked: Locked | None = None
) -> ToolResult:
    """Search ``facade``: list the matches and open those ``locked`` lets open (all of
    them without ``locked``, as when the facade is called outside a run)."""
    parsed = parse_arguments(facade.name, arguments)
    if isinstance(parsed, str):
        return ToolResult.error(parsed)
    own = taken(facade.input_schema)
    ignored = {k: v for k, v in parsed.items() if k not in own}
    kept = {k: v for k, v in parsed.items() if k in own}
    problems = argument_problems(facade.validator, kept)
    if problems:
        return ToolResult.error(_invalid(facade, argument_problems(facade.validator, parsed)))
    assert facade.search is not None
    index = facade.search_index
    query = str(kept.get("query") or "").strip()
    names: list[str] = list(dict.fromkeys(kept.get("names") or []))
    note = None
    if ignored:
        fits = fitting(index.tools, ignored)
        fit = fits[0] if len(fits) == 1 else None
        if not query and not names:  # search with what the model sent instead
            names, query = ([fit.name], "") if fit else ([], _words_of(ignored))
        note = ignored_note(facade.name, facade.input_schema, ignored, fit)
        if fit is None and query and not kept:
            note = f'{note} Searched for "{query}" instead.'
    if not query and not names:
        return ToolResult.error(
            f"Tool '{facade.name}' needs a query (words describing the tools you need) "
            "or names (exact tool names)."
        )
    found: list[BaseTool | str] = [index.tool(name) or name for name in names]
    if query:
        wanted = facade.search.max_results + len(found)
        ranked = [tool for tool, _ in index.rank(query, wanted) if tool not in found]
        if not ranked and not names:
            text = nothing_found(index, query)
            return ToolResult.text(f"{note}\n{text}" if note else text)
        found.extend(ranked[: facade.search.max_results])
    lines: list[str] = []
    opened: list[BaseTool] = []
    for item in found:
        if isinstance(item, str):
            lines.append(_unknown(index, item))
            continue
        reason = locked(item.name) if locked is not None else None
        lines.append(_line(item, reason))
        if reason is None:
            opened.append(item)
    if note:
        lines.append(note)
    if not opened:
        return ToolResult.text("\n".join([_header(query, names), *lines, "No tool was opened."]))
    footer = f"Tools now available: {', '.join(tool.name for tool in opened)}."
    if facade.usage_notes:
        footer = f"{footer}\n\n{facade.usage_notes}"
    value = Unfolded(facade.name, tuple(opened), {"names": [t.name for t in opened]})
    return ToolResult(content="\n".join([_header(query, names), *lines, footer]), value=value)


@attrs.frozen(kw_only=True)
class SearchCall(WrapperTool):
    """A search facade as a run calls it: ``locked`` (from the run's scheduler) keeps
    locked matches closed.

    >>> facade = UnfoldingTool.searchable("find", "Find tools", [Tool.create("a", "A", lambda: 1)])
    >>> print(SearchCall.around(facade, locked=lambda name: None).call({"names": ["a"]}).text)
    Tools asked for by name:
    - a: A
    Tools now available: a.
    """

    locked: Locked = attrs.field(eq=False)

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Search the wrapped facade."""
        facade = cast(SearchFacade, self.delegate)  # SearchCall.around wraps a search facade
        return await run_search(facade, arguments, self.locked)
