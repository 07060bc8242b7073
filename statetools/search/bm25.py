"""BM25 over the words of each tool's text (``bm25s``, imported when first indexing).

>>> ranker = BM25Ranker()
>>> ranker.index([Document("get_weather", "get weather. Today's forecast for a city")])
>>> ranker.rank("weather in Paris", 3)
[('get_weather', 0.16...)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from statetools.search.documents import Document
from statetools.tools.descriptions import words

__all__ = ["BM25Ranker"]


class BM25Ranker:
    """Ranks by BM25 over words (camelCase and snake_case split, common English words
    left out, plural ``s`` dropped): a query finds the tools that share its words.

    >>> ranker = BM25Ranker()
    >>> ranker.index([Document("a", "alpha beta"), Document("b", "gamma")])
    >>> [name for name, _ in ranker.rank("gamma ray", 5)]
    ['b']
    """

    def __init__(self) -> None:
        self._names: list[str] = []
        self._retriever: Any = None

    def index(self, docs: Sequence[Document]) -> None:
        """Build the BM25 index of ``docs``."""
        import bm25s  # type: ignore[import-untyped]  # lazily: keeps `import statetools` fast

        self._names = [doc.name for doc in docs]
        retriever = bm25s.BM25()
        if docs:
            corpus = [words(f"{doc.name} {doc.terms}") or ["_"] for doc in docs]
            retriever.index(corpus, show_progress=False)
        self._retriever = retriever

    def rank(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best documents sharing words with ``query`` (ties in index order)."""
        terms = words(query)
        if not terms or not self._names:
            return []
        if self._retriever is None:
            raise RuntimeError("BM25Ranker.rank before index")
        scores = self._retriever.get_scores(terms)
        ranked = sorted(
            (-float(score), position) for position, score in enumerate(scores) if score > 0
        )
        return [(self._names[position], -score) for score, position in ranked[:k]]
