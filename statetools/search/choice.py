"""Which ranker a search facade's ``ranker=`` argument stands for.

>>> type(ranker_for("bm25")).__name__
'BM25Ranker'
"""

from __future__ import annotations

import os

from statetools.errors import DefinitionError
from statetools.search.bm25 import BM25Ranker
from statetools.search.embedding import Embed, EmbeddingRanker
from statetools.search.fusion import HybridRanker
from statetools.search.local import local_embedder
from statetools.search.ranker import Ranker

__all__ = ["RANKER_NAMES", "ranker_for"]

RANKER_NAMES = ("bm25", "embeddings", "hybrid")
"""The rankers a search facade names with a string."""

HYBRID_WEIGHTS = (1.0, 2.0)
HYBRID_CONSTANT = 10
"""``"hybrid"``: BM25 and embeddings fused with these weights and rank constant (chosen
on BFCL's development tasks, benchmarks/retrieval.py --dev)."""


def ranker_for(
    choice: str | Ranker,
    *,
    where: str = "search",
    vectors: str | os.PathLike[str] | None = None,
    embed: Embed | None = None,
) -> Ranker:
    """The ranker ``choice`` stands for: ``"bm25"`` (words), ``"embeddings"`` (meaning,
    with :func:`~statetools.search.local_embedder`), ``"hybrid"`` (both, fused) or a
    :class:`Ranker` of your own, used as it is. ``vectors``: a file keeping the tools'
    vectors (see :class:`~statetools.search.SavedVectors`; embedding rankers only).
    ``embed``: the embedding function of ``"embeddings"`` and ``"hybrid"`` instead of
    the local one.

    >>> ranker_for("bm25").__class__.__name__
    'BM25Ranker'
    >>> ranker_for("fuzzy")
    Traceback (most recent call last):
    ...
    statetools.errors.DefinitionError: search: unknown ranker 'fuzzy' ...
    """
    if vectors is not None and choice not in ("embeddings", "hybrid"):
        raise DefinitionError(
            "saved vectors need the embeddings or hybrid ranker",
            path=where,
            hint="name ranker: embeddings or hybrid, or pass EmbeddingRanker(embed, "
            "saved=path) in your own ranker",
        )
    if isinstance(choice, str):
        if choice == "bm25":
            return BM25Ranker()
        if choice == "embeddings":
            return EmbeddingRanker(embed or local_embedder(), saved=vectors)
        if choice == "hybrid":
            return HybridRanker(
                BM25Ranker(),
                EmbeddingRanker(embed or local_embedder(), saved=vectors),
                weights=HYBRID_WEIGHTS,
                constant=HYBRID_CONSTANT,
            )
        raise DefinitionError(
            f"unknown ranker {choice!r}",
            path=where,
            hint="ranker is one of bm25, embeddings, hybrid, or a Ranker object",
        )
    if isinstance(choice, Ranker):
        return choice
    raise DefinitionError(
        f"ranker must be a name or a Ranker, got {type(choice).__name__}",
        path=where,
        hint="pass 'bm25', 'embeddings', 'hybrid', or an object with index(docs) and "
        "rank(query, k)",
    )
