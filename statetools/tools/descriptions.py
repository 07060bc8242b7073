"""Tool descriptions: read out of docstrings, and shortened to the first sentence and
the words a search sees.

>>> first_sentence("Create an issue. Needs write access.")
'Create an issue.'
>>> words("listPullRequests in a repo_name")
['list', 'pull', 'request', 'repo', 'name']

Tool and parameter descriptions are read out of docstrings.

Google, NumPy, reST and Epydoc styles are understood (via ``docstring_parser``)::

    def search(q: str, n: int = 5) -> str:
        '''Search the catalogue.

        Args:
            q: Words to look for.
            n: How many hits to return.
        '''

Here the tool description is ``"Search the catalogue."`` and the parameters are
described as ``"Words to look for."`` and ``"How many hits to return."``.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Collection

import docstring_parser


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _own_doc(obj: object) -> str | None:
    """The docstring written on ``obj`` itself (not inherited, not generated)."""
    while isinstance(obj, functools.partial):
        obj = obj.func
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return None
    if isinstance(obj, type) and doc.startswith(f"{obj.__name__}("):
        return None  # the signature a dataclass puts there when it has no docstring
    return doc


@functools.lru_cache(maxsize=4096)
def first_paragraph(doc: str | None) -> str | None:
    """The first paragraph of a docstring, on one line; ``None`` when there is none.

    A parameter section (``Args:``, ``:param x:``, ...) is never part of it.

    >>> first_paragraph('''Search the web
    ...     for pages.
    ...
    ...     Slow; use sparingly.''')
    'Search the web for pages.'
    """
    if not doc or not doc.strip():
        return None
    parsed = docstring_parser.parse(inspect.cleandoc(doc))
    short = parsed.short_description or ""
    if not parsed.blank_after_short_description and parsed.long_description:
        short = f"{short}\n{parsed.long_description.split(chr(10) * 2, 1)[0]}"
    text = _one_line(short)
    return text or None


def description_of(obj: object) -> str | None:
    """The first paragraph of ``obj``'s own docstring.

    >>> def f():
    ...     '''Add two numbers.
    ...
    ...     Details nobody needs.'''
    >>> description_of(f)
    'Add two numbers.'
    """
    return first_paragraph(_own_doc(obj))


def parameter_descriptions(obj: object, names: Collection[str] | None = None) -> dict[str, str]:
    """Parameter (or attribute) descriptions from ``obj``'s docstring, by name.

    With ``names``, only those are looked for: a docstring that mentions none of them
    is not parsed at all (parsing is most of the cost of making a tool).

    >>> def f(q):
    ...     '''Search.
    ...
    ...     Args:
    ...         q: The query,
    ...             in plain words.
    ...     '''
    >>> parameter_descriptions(f)
    {'q': 'The query, in plain words.'}
    >>> parameter_descriptions(f, ["limit"])
    {}
    """
    doc = _own_doc(obj)
    if doc is None:
        return {}
    if names is not None and not any(name in doc for name in names):
        return {}  # a description names its parameter
    found = _described(inspect.cleandoc(doc))
    if names is None:
        return dict(found)
    return {name: text for name, text in found if name in names}


@functools.lru_cache(maxsize=4096)
def _described(doc: str) -> tuple[tuple[str, str], ...]:
    """The parameters ``doc`` describes, parsed once per distinct docstring (the
    methods of every object a provider makes share theirs)."""
    found: dict[str, str] = {}
    for param in docstring_parser.parse(doc).params:
        text = _one_line(param.description or "")
        name = param.arg_name.lstrip("*")
        if text and name:
            found[name] = text
    return tuple(found.items())


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'`])")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[A-Za-z0-9]+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
        "you",
        "your",
    ]
)


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (its first paragraph when it has no full stop).

    >>> first_sentence("List files\\n\\nLong help.")
    'List files'
    """
    paragraph = text.strip().split("\n\n", 1)[0]
    one_line = " ".join(paragraph.split())
    return _SENTENCE_END.split(one_line, 1)[0]


def words(text: str) -> list[str]:
    """The search words of ``text``: camelCase and snake_case split, lower case, common
    English words left out, a plural ``s`` dropped (so "issues" finds "issue").

    >>> words("The GitHub issues of a repository")
    ['git', 'hub', 'issue', 'repository']
    """
    result: list[str] = []
    for token in _WORD.findall(text):
        for part in _CAMEL.split(token):
            word = part.lower()
            if not word or word in _STOPWORDS:
                continue
            if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
                word = word[:-1]
            result.append(word)
    return result
