"""Tools used together: what recorded runs teach a search about the tools a task needs.

A request rarely names every tool it needs ("move the report into temp" needs ``cd``
before ``mv``). :class:`CoUsageRanker` learns from recorded calls which tools are used
together, and moves those of the best matches up.

>>> class Fixed:
...     def index(self, docs): pass
...     def rank(self, query, k): return [("mv", 1.0), ("cp", 0.5), ("rm", 0.2)][:k]
>>> ranker = CoUsageRanker(Fixed(), [["cd", "mv"], ["cd", "mv"], ["cp"]], weight=1.0)
>>> ranker.index([Document(name, name) for name in ("cd", "mv", "cp", "rm")])
>>> [name for name, _ in ranker.rank("move the file", 3)]
['mv', 'cd', 'cp']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from statetools.errors import DefinitionError
from statetools.search.choice import ranker_for
from statetools.search.documents import Document

__all__ = ["CoUsageRanker", "calls_of"]


def calls_of(result: Any) -> list[list[str]]:
    """The tools each model response of a run called (a :class:`~statetools.LoopResult`
    or its messages): the traces :class:`CoUsageRanker` learns from.

    >>> from statetools.messages import AssistantMessage, ToolCall
    >>> calls = [ToolCall("1", "cd", {}), ToolCall("2", "mv", {})]
    >>> calls_of([AssistantMessage("", tool_calls=calls)])
    [['cd', 'mv']]
    """
    messages = getattr(result, "messages", result)
    return [
        [call.name for call in message.tool_calls]
        for message in messages
        if message.role == "assistant" and message.tool_calls
    ]


class CoUsageRanker:
    """Wraps a ranker (or "bm25", "embeddings", "hybrid"): each of the ``top`` best
    matches lends ``weight`` times its score to the tools used with it, in the share
    of the recorded ``traces`` (lists of tool names used together, one per turn or per
    model response) where it was. Tools seen fewer than ``min_count`` times lend
    nothing.

    >>> CoUsageRanker("bm25", [], weight=-1)
    Traceback (most recent call last):
    ...
    statetools.errors.DefinitionError: CoUsageRanker: weight must be positive, got -1 ...
    """

    def __init__(
        self,
        ranker: Any,
        traces: Iterable[Iterable[str]],
        *,
        weight: float = 0.5,
        top: int = 5,
        min_count: int = 2,
        depth: int = 50,
        constant: int = 60,
    ) -> None:
        if weight <= 0:
            raise DefinitionError(
                f"weight must be positive, got {weight}",
                path="CoUsageRanker",
                hint="a weight of 0.5 lets a match lend half its score",
            )
        self.ranker = ranker_for(ranker, where="CoUsageRanker")
        self.weight, self.top, self.depth, self.constant = weight, top, depth, constant
        seen: Counter[str] = Counter()
        pairs: dict[str, Counter[str]] = {}
        for trace in traces:
            names = list(dict.fromkeys(trace))
            seen.update(names)
            for name in names:
                pairs.setdefault(name, Counter()).update(n for n in names if n != name)
        self.used_with = {
            name: {other: count / seen[name] for other, count in pairs[name].items()}
            for name in pairs
            if seen[name] >= min_count
        }
        self._names: set[str] = set()

    def index(self, docs: Sequence[Document]) -> None:
        """Index ``docs`` in the wrapped ranker."""
        self._names = {doc.name for doc in docs}
        self.ranker.index(docs)

    def rank(self, query: str, k: int) -> list[tuple[str, float]]:
        """The wrapped ranking, with the tools used with its best matches moved up."""
        base = [name for name, _ in self.ranker.rank(query, max(k, self.depth))]
        scores = {name: 1 / (self.constant + place + 1) for place, name in enumerate(base)}
        lent = dict(scores)
        for name in base[: self.top]:
            for other, share in self.used_with.get(name, {}).items():
                if other in self._names:
                    lent[other] = lent.get(other, 0.0) + self.weight * scores[name] * share
        order = {name: place for place, name in enumerate(lent)}
        ranked = sorted(lent, key=lambda name: (-lent[name], order[name]))
        return [(name, lent[name]) for name in ranked[:k]]
