"""The index of a search facade: how it searches (:class:`SearchOptions`), its
arguments (:func:`search_schema`), where each tool below it sits (:func:`facade_paths`)
and :class:`SearchIndex`, which ranks the tools with the facade's ranker (BM25 by
default; see :mod:`statetools.search`) over what a model would match of each tool.

The ranker's index is built on the first query and kept with the facade definition,
never rebuilt per turn.

>>> index = SearchIndex([Tool.create("create_issue", "Open an issue", lambda: 1)])
>>> [tool.name for tool, _ in index.rank("new issue")]
['create_issue']
"""

from __future__ import annotations

import difflib
import json
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from statetools.errors import DefinitionError, SpecError
from statetools.search.choice import ranker_for
from statetools.search.documents import Document, documents_for, shared_openings
from statetools.search.ranker import Ranker
from statetools.tools.descriptions import first_sentence, words
from statetools.tools.schema import InputSchema, JsonSchema, Parameter
from statetools.tools.tool import BaseTool

__all__ = ["Keywords", "SearchIndex", "SearchOptions", "facade_paths", "search_schema"]

_CLOSEST = 3
_CLOSE_ENOUGH = 0.6


def _positive(_instance: object, _attribute: object, value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise DefinitionError(
            f"max_results must be a whole number of at least 1, got {value!r}",
            hint="write search: {max_results: 5}",
        )


Keywords = tuple[tuple[str, tuple[str, ...]], ...]
"""Other words per tool name: ``((name, (word, ...)), ...)``."""


def _texts_per_tool(value: Any, what: str, example: str) -> Keywords:
    if not value:
        return ()
    pairs = value.items() if isinstance(value, Mapping) else value
    result: list[tuple[str, tuple[str, ...]]] = []
    for name, extra in pairs:
        if isinstance(extra, str) or not all(isinstance(text, str) for text in extra):
            raise DefinitionError(
                f"{what} of {name} must be a list of {example}, got {extra!r}",
                path="search",
                hint=f"write {what}={{{name!r}: [{example}]}}",
            )
        result.append((str(name), tuple(extra)))
    return tuple(result)


def _keywords(value: Any) -> Keywords:
    return _texts_per_tool(value, "keywords", "words")


def _example_requests(value: Any) -> Keywords | str:
    if isinstance(value, str | os.PathLike):
        return os.fspath(value)  # a JSON file, read when the index is made
    return _texts_per_tool(value, "example_requests", "sentences")


def _requests_file(path: str) -> Keywords:
    """The example requests in the JSON file at ``path`` (tool name -> sentences), as
    ``statetools examples --out`` writes it."""
    where = "search.example_requests"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise DefinitionError(
            f"cannot read {path}: {exc.strerror or exc}",
            path=where,
            hint="write it with `statetools examples DESIGN --model MODEL --out FILE`",
        ) from exc
    except ValueError as exc:
        raise DefinitionError(
            f"{path} is not JSON: {exc}",
            path=where,
            hint='the file maps tool names to lists of sentences: {"cd": ["Go home."]}',
        ) from exc
    if not isinstance(data, Mapping):
        raise DefinitionError(
            f"{path} holds a {type(data).__name__}, not a mapping",
            path=where,
            hint='the file maps tool names to lists of sentences: {"cd": ["Go home."]}',
        )
    return _texts_per_tool(data, "example_requests", "sentences")


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
    ``keywords``, other words the model may use for some tools (tool name -> words),
    ``vectors``, a file keeping the tools' embeddings (embeddings and hybrid rankers: see
    :class:`~statetools.search.SavedVectors`), and ``example_requests``, what a user
    would ask when a tool is needed (tool name -> sentences; embeddings and hybrid
    rankers match each on its own, see :func:`~statetools.search.example_requests`; or
    the path of a JSON file holding them, as ``statetools examples --out`` writes it).

    >>> SearchOptions().max_results, SearchOptions().ranker
    (5, 'bm25')
    """

    max_results: int = attrs.field(default=5, validator=_positive)
    ranker: Any = attrs.field(default="bm25", validator=_ranker)
    keywords: Any = attrs.field(default=(), converter=_keywords)
    vectors: str | None = attrs.field(default=None, validator=_vectors)
    example_requests: Any = attrs.field(default=(), converter=_example_requests)

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
        if isinstance(self.example_requests, str):
            data["example_requests"] = self.example_requests
        elif self.example_requests:
            data["example_requests"] = {name: list(asked) for name, asked in self.example_requests}
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


def _sentence_start(split: Sequence[str], shared: int) -> int:
    """Where the description of words ``split`` starts its own words: after the last
    sentence (or ``Label:``) that ends within its first ``shared`` words, the opening it
    shares with other tools; a shared opening that ends inside a sentence ("Create a
    new" of "Create a new file" and "Create a new folder") is the tools' own words.

    >>> _sentence_start("Part of the shop. Tool description: Create a new file.".split(), 7)
    6
    """
    for position in range(shared, 0, -1):
        if split[position - 1].endswith((".", ":", "!", "?")):
            return position
    return 0


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
        example_requests: Keywords | str = (),
    ) -> None:
        self.tools = tuple(tools)
        self._by_name = {tool.name: tool for tool in self.tools}
        self.ranker = ranker_for(ranker, where="search", vectors=vectors)
        self._paths = dict(paths or {})
        self._keywords = dict(keywords)
        if isinstance(example_requests, str):  # one file may serve several facades
            path, example_requests = example_requests, _requests_file(example_requests)
            kept = tuple(pair for pair in example_requests if pair[0] in self._by_name)
            if example_requests and not kept:
                raise DefinitionError(
                    f"{path} has requests for none of the tools below this facade",
                    path="search.example_requests",
                    hint="write it for this design with `statetools examples DESIGN ...`",
                )
            example_requests = kept
        self._asked = dict(example_requests)
        for what, given in (("keywords", self._keywords), ("example_requests", self._asked)):
            unknown = [name for name in given if name not in self._by_name]
            if unknown:
                raise DefinitionError(
                    f"{what} for tools it does not hold: {', '.join(unknown)}",
                    path="search",
                    hint=f"give {what} only for tools below the search facade",
                )
        self._retriever: Ranker | None = None
        self._lock = threading.Lock()
        self._summaries: dict[str, str] | None = None

    def tool(self, name: str) -> BaseTool | None:
        """The tool called ``name``, if it is in the index."""
        return self._by_name.get(name)

    def path_of(self, name: str) -> tuple[str, ...]:
        """The groups below the facade that ``name`` sits in, outermost first."""
        return tuple(self._paths.get(name, ()))

    def summary(self, name: str) -> str:
        """What a search's answer says of tool ``name``: the first sentence of its
        description after the opening it shares with other tools of the index (a
        catalogue's boilerplate such as "This tool belongs to ..."), so that each line
        tells the tools apart; computed for every tool once. The opening ends with a
        sentence: words two tools share inside one are their own.

        >>> index = SearchIndex(
        ...     [Tool.create(n, f"This tool belongs to the demo file system. {d}", lambda: 1)
        ...      for n, d in (("ls", "List the files."), ("cd", "Change the folder."))])
        >>> index.summary("cd")
        'Change the folder.'
        """
        summaries = self._summaries
        if summaries is None:
            descriptions = [tool.description.strip() for tool in self.tools]
            summaries = {}
            for tool, description, shared in zip(
                self.tools, descriptions, shared_openings(descriptions), strict=True
            ):
                split = description.split()
                opening = _sentence_start(split, shared)
                own = " ".join(split[opening:]) if opening else description
                summaries[tool.name] = first_sentence(own)
            self._summaries = summaries
        return summaries.get(name, "")

    def documents(self) -> list[Document]:
        """What the ranker indexes: one document per tool, in definition order."""
        return documents_for(
            self.tools, paths=self._paths, keywords=self._keywords, example_requests=self._asked
        )

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
