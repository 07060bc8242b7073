"""Several rankings fused into one by reciprocal rank fusion.

>>> class Fixed:
...     def __init__(self, names): self.names = names
...     def index(self, docs): pass
...     def rank(self, query, k): return [(n, 1.0) for n in self.names[:k]]
>>> hybrid = HybridRanker(Fixed(["a", "b", "c"]), Fixed(["c", "a"]))
>>> hybrid.index([])
>>> [name for name, _ in hybrid.rank("q", 2)]
['a', 'c']
>>> HybridRanker(Fixed(["a"]), Fixed([]), weights=[1, 2]).rank("q", 2)  # mostly nothing
[]
"""

from __future__ import annotations

from collections.abc import Sequence

from statetools.errors import DefinitionError
from statetools.search.documents import Document
from statetools.search.ranker import Ranker

__all__ = ["HybridRanker"]


class HybridRanker:
    """Fuses the rankings of ``rankers``: each document scores the sum over rankers of
    ``weight / (constant + its rank)`` (reciprocal rank fusion; each ranker lists its
    ``depth`` best). A document that one ranker finds and the others miss still counts.
    A query finds nothing when the rankers that found nothing for it hold more than half
    of the weight (an embedding ranker below its ``threshold``, say, outweighing a
    word ranker that matched a common word), so the facade shows what there is instead.

    >>> HybridRanker().rankers
    Traceback (most recent call last):
    ...
    statetools.errors.DefinitionError: HybridRanker: needs at least one ranker ...
    """

    def __init__(
        self,
        *rankers: Ranker,
        weights: Sequence[float] | None = None,
        depth: int = 50,
        constant: int = 60,
    ) -> None:
        if not rankers:
            raise DefinitionError(
                "needs at least one ranker",
                path="HybridRanker",
                hint="HybridRanker(BM25Ranker(), EmbeddingRanker(embed))",
            )
        if weights is not None and len(weights) != len(rankers):
            raise DefinitionError(
                f"{len(weights)} weights for {len(rankers)} rankers",
                path="HybridRanker",
                hint="give one weight per ranker, or none",
            )
        self.rankers = rankers
        self.weights = tuple(weights) if weights is not None else (1.0,) * len(rankers)
        self.depth = depth
        self.constant = constant

    def index(self, docs: Sequence[Document]) -> None:
        """Index ``docs`` in every ranker."""
        for ranker in self.rankers:
            ranker.index(docs)

    def rank(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best documents of the fused ranking (ties: first ranker's order)."""
        scores: dict[str, float] = {}
        silent = 0.0
        for ranker, weight in zip(self.rankers, self.weights, strict=True):
            found = ranker.rank(query, max(k, self.depth))
            silent += 0.0 if found else weight
            for place, (name, _score) in enumerate(found):
                scores[name] = scores.get(name, 0.0) + weight / (self.constant + place + 1)
        if silent > sum(self.weights) / 2:
            return []
        order = {name: position for position, name in enumerate(scores)}
        ranked = sorted(scores, key=lambda name: (-scores[name], order[name]))
        return [(name, scores[name]) for name in ranked[:k]]
