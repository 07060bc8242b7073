"""Ranking by meaning: any embedding function, cosine similarity (numpy).

``embed`` takes a list of texts and returns one vector per text (a list of lists, a
numpy array...): an OpenAI or Voyage embeddings client wrapped in a function,
sentence-transformers' ``model.encode``, fastembed, or :func:`local_embedder`.

>>> def embed(texts):  # a toy embedding: counts of a few letters
...     return [[text.count(c) + 0.1 for c in "aeiou"] for text in texts]
>>> ranker = EmbeddingRanker(embed)
>>> ranker.index([Document("aa", "aaaa"), Document("oo", "oooo")])
>>> ranker.rank("ooo", 1)
[('oo', 0.99...)]
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from statetools.errors import StatetoolsError
from statetools.search.documents import Document
from statetools.search.saved import SavedVectors

__all__ = ["Embed", "EmbeddingRanker", "meaning_of"]

_QUOTED = re.compile(r"""(?<!\w)(['"\u2018\u201c]).+?['"\u2019\u201d](?!\w)""")


def meaning_of(query: str) -> str:
    """The words of ``query`` an embedding should match: without the quoted values in it
    (file names, titles, messages: the arguments of a call, not what the tool does),
    unless nothing else is left.

    >>> meaning_of("Move 'final_report.pdf' to the 'temp' directory")
    'Move to the directory'
    >>> meaning_of("'budget'")
    "'budget'"
    """
    stripped = " ".join(_QUOTED.sub(" ", query).split())
    return stripped or query


Embed = Callable[[list[str]], Any]
"""An embedding function: a list of texts to one vector per text (same length)."""


class EmbeddingRanker:
    """Ranks by the cosine similarity of the query's vector (of :func:`meaning_of` the
    query) and each document's vectors: its text's, its
    :attr:`~statetools.search.Document.focus`'s and each of its
    :attr:`~statetools.search.Document.example_requests`', whichever is closest (the
    documents are embedded once, in :meth:`index`; each query once per call). Documents
    scoring ``min_score`` or less are left out. A query whose best document scores below
    ``threshold`` by its text and focus (without its quoted values, and then whole, when
    the first falls short; example requests do not count here: requests written in
    everyday words come close to any chatty question) finds nothing at all, so the
    search facade shows what there is instead (default: the ``threshold`` attribute of
    ``embed``, as :func:`~statetools.search.local_embedder` has; none otherwise). With ``saved`` (a
    file path or a :class:`~statetools.search.SavedVectors`) the documents' vectors are
    read from that file and only new or changed texts are embedded (then saved).

    >>> ranker = EmbeddingRanker(lambda texts: [[len(t), 1.0] for t in texts])
    >>> ranker.index([Document("short", "ab"), Document("long", "abcdefghij")])
    >>> [name for name, _ in ranker.rank("abcdefghi", 1)]
    ['long']
    """

    def __init__(
        self,
        embed: Embed,
        *,
        min_score: float = 0.0,
        threshold: float | None = None,
        saved: SavedVectors | str | os.PathLike[str] | None = None,
    ) -> None:
        self.embed = embed
        self.min_score = min_score
        default = getattr(embed, "threshold", None)
        self.threshold = threshold if threshold is not None else default
        self.saved = (
            saved if saved is None or isinstance(saved, SavedVectors) else SavedVectors(saved)
        )
        self._names: list[str] = []
        self._vectors: Any = None
        self._focus: Any = None
        self._asked: Any = None  # one row per example request
        self._asker: Any = None  # the document of each row

    def _vectors_of(self, texts: list[str], *, keep: bool = False) -> Any:
        import numpy as np

        try:
            embedded = (
                self.saved.vectors(self.embed, texts)
                if keep and self.saved is not None
                else self.embed(texts)
            )
            vectors = np.asarray(embedded, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise StatetoolsError(
                f"the embedding function did not return vectors: {exc}",
                path="EmbeddingRanker",
                hint="embed(texts) returns one list of numbers per text, all of one length",
            ) from exc
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise StatetoolsError(
                f"the embedding function returned shape {vectors.shape} for {len(texts)} texts",
                path="EmbeddingRanker",
                hint="embed(texts) returns one vector per text, all of one length",
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    def index(self, docs: Sequence[Document]) -> None:
        """Embed every document's text, focus and example requests (one call of
        ``embed``; with ``saved``, only the texts it does not hold)."""
        import numpy as np

        self._names = [doc.name for doc in docs]
        self._vectors = self._focus = self._asked = self._asker = None
        if not docs:
            return
        focus = [doc.focus for doc in docs]
        asked = [(place, text) for place, doc in enumerate(docs) for text in doc.example_requests]
        texts = [doc.text for doc in docs] + [f for f in focus if f] + [t for _, t in asked]
        texts = list(dict.fromkeys(texts))
        vectors = self._vectors_of(texts, keep=True)
        row = {text: position for position, text in enumerate(texts)}
        self._vectors = vectors[[row[doc.text] for doc in docs]]
        if any(f and f != doc.text for f, doc in zip(focus, docs, strict=True)):
            self._focus = vectors[[row[f or doc.text] for f, doc in zip(focus, docs, strict=True)]]
        if asked:
            self._asked = vectors[[row[text] for _, text in asked]]
            self._asker = np.array([place for place, _ in asked])

    def _scores(self, text: str) -> tuple[Any, Any]:
        """Each document's score for ``text``: by its own words (what ``threshold``
        judges) and by those or its example requests, whichever is closer (the order)."""
        import numpy as np

        wanted = self._vectors_of([text])[0]
        own = self._vectors @ wanted
        if self._focus is not None:
            own = np.maximum(own, self._focus @ wanted)
        if self._asked is None:
            return own, own
        scores = own.copy()
        np.maximum.at(scores, self._asker, self._asked @ wanted)
        return own, scores

    def best(self, query: str) -> float:
        """The cosine of the document closest to ``query`` as the threshold sees it: the
        closer of the query without its quoted values and the whole query (0.0 before
        :meth:`index`).

        >>> ranker = EmbeddingRanker(lambda texts: [[t.count("a"), 1.0] for t in texts])
        >>> ranker.index([Document("a", "aaa")])
        >>> round(ranker.best("find"), 2), round(ranker.best("find 'aaa'"), 2)
        (0.32, 1.0)
        """
        if not query.strip() or self._vectors is None:
            return 0.0
        texts = dict.fromkeys([meaning_of(query), query])
        return max(float(self._scores(text)[0].max()) for text in texts)

    def rank(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` documents closest to ``query`` in meaning (ties in index order)."""
        import numpy as np

        if not query.strip() or self._vectors is None:
            return []
        meaning, threshold = meaning_of(query), self.threshold
        own, scores = self._scores(meaning)
        if threshold is not None and float(own.max()) < threshold:
            if meaning == query:
                return []
            own, scores = self._scores(query)  # the quoted values may be what it is about
            if float(own.max()) < threshold:
                return []
        if k < len(scores):
            top = np.argpartition(-scores, k - 1)[:k]
        else:
            top = np.arange(len(scores))
        ranked = sorted(top.tolist(), key=lambda position: (-float(scores[position]), position))
        return [
            (self._names[position], float(scores[position]))
            for position in ranked
            if scores[position] > self.min_score
        ]
