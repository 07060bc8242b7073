"""The :class:`Ranker` protocol: what a search facade asks of a ranker.

>>> from statetools.search import BM25Ranker
>>> isinstance(BM25Ranker(), Ranker)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from statetools.search.documents import Document

__all__ = ["Ranker"]


@runtime_checkable
class Ranker(Protocol):
    """Orders documents for a query. A search facade calls :meth:`index` once, with the
    text of every tool below it, before its first query; then :meth:`rank` per query.

    >>> class ByLength:
    ...     def index(self, docs): self.docs = list(docs)
    ...     def rank(self, query, k):
    ...         ranked = sorted(self.docs, key=lambda doc: len(doc.text))
    ...         return [(doc.name, 1.0) for doc in ranked[:k]]
    >>> isinstance(ByLength(), Ranker)
    True
    """

    def index(self, docs: Sequence[Document]) -> None:
        """Keep what ranking ``docs`` needs (called once per search facade)."""
        ...

    def rank(self, query: str, k: int) -> list[tuple[str, float]]:
        """The names of at most ``k`` documents that match ``query``, best first, each
        with its score (higher is better); none that do not match at all."""
        ...
