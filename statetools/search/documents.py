"""What a search indexes of each tool: the words a model would use to ask for it.

:func:`document_text` joins a tool's name split into words, its description, its
parameters' names and descriptions, its category, the facades it sits in, the values
its schema gives as examples (enum, examples, default) and any keywords given for it.
:func:`documents_for` makes the documents of a whole catalogue, each with its
:attr:`Document.focus`: the tool's own words, without the opening its description
shares with other tools (a catalogue's boilerplate such as "This tool belongs to ..."),
and its :attr:`Document.example_requests`, requests a user would make when the tool is needed.

>>> from statetools import Tool
>>> tool = Tool.create("createIssue", "Open an issue.", lambda title: title)
>>> document_text(tool, path=("github",), keywords=("bug",))
'create issue. Open an issue. title. in github. bug'
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from statetools.tools.descriptions import words
from statetools.tools.tool import BaseTool

__all__ = ["Document", "document_for", "document_text", "documents_for", "shared_openings"]

_SHARED_WORDS = 6
"""An opening of at least this many words that another tool's description also has is
boilerplate of the catalogue, left out of :attr:`Document.focus`."""


def _texts(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class Document:
    """One thing a ranker ranks: a ``name`` (what :meth:`Ranker.rank` returns), the
    ``text`` it is found by, and ``terms``, the shorter text a word-matching ranker
    reads (name, description, parameter names, category, path and keywords: parameter
    descriptions and example values repeat the same words across many tools), and
    ``focus``, the tool's own words (name, description without the opening it shares
    with other tools, parameters) that a meaning ranker matches too (empty: none), and
    ``example_requests``, requests a user would make when the tool is needed ("go to my
    Documents folder" for ``cd``), each of which a meaning ranker matches on its own.

    >>> Document("create_issue", "create issue. Open an issue").terms
    'create issue. Open an issue'
    """

    name: str
    text: str
    terms: str = attrs.field()
    focus: str = ""
    example_requests: tuple[str, ...] = attrs.field(default=(), converter=_texts)

    @terms.default
    def _terms(self) -> str:
        return self.text


def _parameters(schema: Mapping[str, Any], described: bool = True) -> list[str]:
    properties = schema.get("properties") or {}
    parts: list[str] = []
    for name, spec in properties.items():
        parts.append(" ".join(words(name)) or name)
        if described and isinstance(spec, Mapping) and isinstance(spec.get("description"), str):
            parts.append(spec["description"])
    return parts


def _example_values(schema: Mapping[str, Any]) -> list[str]:
    """The example values the schema itself gives (``enum``, ``examples``, ``default``):
    the tool author's words. Values made up from a parameter's name alone would be the
    same for every tool with that parameter, so they are left out."""
    values: list[Any] = []
    for spec in (schema.get("properties") or {}).values():
        if isinstance(spec, Mapping):
            values.extend(spec.get("enum") or ())
            values.extend(spec.get("examples") or ())
            values.append(spec.get("default"))
            items = spec.get("items")
            if isinstance(items, Mapping):
                values.extend(items.get("enum") or ())
    return list(dict.fromkeys(v for v in _strings(values) if v.strip() and not v.isdigit()))


def _strings(values: Iterable[Any]) -> Iterable[str]:
    for value in values:
        if isinstance(value, str):
            yield value
        elif isinstance(value, Mapping):
            yield from _strings(value.values())
        elif isinstance(value, list | tuple):
            yield from _strings(value)


def document_text(
    tool: BaseTool,
    *,
    path: Sequence[str] = (),
    keywords: Sequence[str] = (),
    full: bool = True,
) -> str:
    """The text a search finds ``tool`` by (``path``: the facades it sits in, outermost
    first; ``keywords``: other words for it; ``full=False``: without parameter
    descriptions and example values, as :attr:`Document.terms`).

    >>> from statetools import Tool
    >>> document_text(Tool.create("ls", "List files.", lambda path="/home": path))
    'ls. List files. path. /home'
    """
    schema = tool.input_schema or {}
    parts = [" ".join(words(tool.name)) or tool.name, tool.description.strip()]
    parts.extend(_parameters(schema, described=full))
    if tool.metadata.category:
        parts.append(tool.metadata.category)
    if path:
        parts.append("in " + " ".join(" ".join(words(step)) or step for step in path))
    if full:
        parts.extend(_example_values(schema))
    parts.extend(keywords)
    return ". ".join(part.rstrip(". ") for part in parts if part.strip())


def document_for(
    tool: BaseTool, *, path: Sequence[str] = (), keywords: Sequence[str] = ()
) -> Document:
    """The :class:`Document` of ``tool``: its full text and its terms.

    >>> from statetools import Tool
    >>> document_for(Tool.create("ls", "List files.", lambda path="/home": path)).terms
    'ls. List files. path'
    """
    return Document(
        tool.name,
        document_text(tool, path=path, keywords=keywords),
        document_text(tool, path=path, keywords=keywords, full=False),
    )


def shared_openings(descriptions: Sequence[str]) -> list[int]:
    """For each description, how many of its first words another description begins
    with too, when that is at least six (a catalogue's boilerplate); 0 otherwise.

    >>> shared_openings(["This tool belongs to the file system. List files.",
    ...                  "This tool belongs to the file system. Move a file.",
    ...                  "Get the weather."])
    [7, 7, 0]
    """
    split = [description.split() for description in descriptions]
    shared = [0] * len(split)
    order = sorted(range(len(split)), key=lambda i: split[i])
    for a, b in itertools.pairwise(order):  # the longest is with a neighbour
        common = 0
        for left, right in zip(split[a], split[b], strict=False):
            if left != right:
                break
            common += 1
        shared[a], shared[b] = max(shared[a], common), max(shared[b], common)
    return [n if _SHARED_WORDS <= n < len(split[i]) else 0 for i, n in enumerate(shared)]


def documents_for(
    tools: Sequence[BaseTool],
    *,
    paths: Mapping[str, Sequence[str]] | None = None,
    keywords: Mapping[str, Sequence[str]] | None = None,
    example_requests: Mapping[str, Sequence[str]] | None = None,
) -> list[Document]:
    """The documents of a catalogue (``paths``, ``keywords`` and ``example_requests`` by tool
    name), each with its :attr:`Document.focus`: name, description without the opening
    it shares with other tools, parameters' names and descriptions.

    >>> from statetools import Tool
    >>> tools = [Tool.create(n, f"Part of the demo shop of this example. {d}", lambda: 1)
    ...          for n, d in (("buy", "Buy an item."), ("refund", "Give money back."))]
    >>> [doc.focus for doc in documents_for(tools)]
    ['buy. Buy an item', 'refund. Give money back']
    """
    paths, keywords, asked = paths or {}, keywords or {}, example_requests or {}
    openings = shared_openings([tool.description.strip() for tool in tools])
    documents = []
    for tool, opening in zip(tools, openings, strict=True):
        document = document_for(
            tool, path=paths.get(tool.name, ()), keywords=keywords.get(tool.name, ())
        )
        own = " ".join(tool.description.split()[opening:])
        parts = [" ".join(words(tool.name)) or tool.name, own]
        parts.extend(_parameters(tool.input_schema or {}))
        focus = ". ".join(part.rstrip(". ") for part in parts if part.strip())
        documents.append(
            attrs.evolve(document, focus=focus, example_requests=tuple(asked.get(tool.name, ())))
        )
    return documents
