"""Short forms of tool descriptions: the first sentence, and the words a search sees.

>>> first_sentence("Create an issue. Needs write access.")
'Create an issue.'
>>> words("listPullRequests in a repo_name")
['list', 'pull', 'request', 'repo', 'name']
"""

from __future__ import annotations

import re

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
