"""ConditionSummary: one condition's runs summed, with the Wilson interval of its
success rate.

>>> from statetools.evaluation.records import RunRecord
>>> summary = ConditionSummary.of("flat", [
...     RunRecord("flat", "t1", 0, success=True, requests=2, prompt_tokens=300),
...     RunRecord("flat", "t2", 0, success=False, requests=4, prompt_tokens=500)])
>>> summary.successes, summary.runs, round(summary.low, 3), round(summary.high, 3)
(1, 2, 0.095, 0.905)
>>> summary.prompt_tokens_per_run
400.0
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import attrs

from statetools.evaluation.records import RunRecord

__all__ = ["ConditionSummary", "wilson_interval"]

Z_95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


def wilson_interval(successes: int, runs: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a success rate (95% by default); (0, 1) for no runs.

    >>> [round(x, 3) for x in wilson_interval(8, 10)]
    [0.49, 0.943]
    """
    if runs == 0:
        return 0.0, 1.0
    rate = successes / runs
    denominator = 1 + z * z / runs
    centre = (rate + z * z / (2 * runs)) / denominator
    spread = z * math.sqrt(rate * (1 - rate) / runs + z * z / (4 * runs * runs)) / denominator
    return max(0.0, centre - spread), min(1.0, centre + spread)


@attrs.frozen
class ConditionSummary:
    """One condition's runs summed: success rate with its 95% Wilson interval, and
    per-run means of what they cost.

    >>> ConditionSummary.of("flat", []).rate
    0.0
    """

    name: str
    runs: int
    successes: int
    low: float
    high: float
    requests: int
    tool_tokens: int
    first_tool_tokens: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    usage_reported: int
    blocked: int
    unknown: int
    tool_errors: int
    searches: int
    search_misses: int
    never_found: int
    wall: float
    errors: Mapping[str, int]

    @classmethod
    def of(cls, name: str, records: list[RunRecord]) -> ConditionSummary:
        """The summary of ``records`` (all of one condition).

        >>> ConditionSummary.of("flat", [RunRecord("flat", "t", 0, success=True)]).successes
        1
        """
        successes = sum(record.success for record in records)
        low, high = wilson_interval(successes, len(records))

        def total(field: str) -> int:
            return sum(int(getattr(record, field)) for record in records)

        return cls(
            name=name,
            runs=len(records),
            successes=successes,
            low=low,
            high=high,
            requests=total("requests"),
            tool_tokens=total("tool_tokens"),
            first_tool_tokens=max((r.first_tool_tokens for r in records), default=0),
            prompt_tokens=total("prompt_tokens"),
            completion_tokens=total("completion_tokens"),
            cached_tokens=total("cached_tokens"),
            usage_reported=total("usage_reported"),
            blocked=total("blocked"),
            unknown=total("unknown"),
            tool_errors=total("tool_errors"),
            searches=total("searches"),
            search_misses=total("search_misses"),
            never_found=sum(len(record.never_found) for record in records),
            wall=round(sum(record.wall for record in records), 3),
            errors=dict(sorted(Counter(r.error for r in records if r.error).items())),
        )

    @property
    def rate(self) -> float:
        """Successes per run (0 for no runs).

        >>> ConditionSummary.of("flat", [RunRecord("flat", "t", 0, success=True)]).rate
        1.0
        """
        return self.successes / self.runs if self.runs else 0.0

    def _per_run(self, value: float) -> float:
        return round(value / self.runs, 1) if self.runs else 0.0

    @property
    def prompt_tokens_per_run(self) -> float:
        """Prompt tokens per run, as the provider reported them.

        >>> ConditionSummary.of("flat", [RunRecord("flat", "t", 0, prompt_tokens=90)]
        ...                     ).prompt_tokens_per_run
        90.0
        """
        return self._per_run(self.prompt_tokens)

    @property
    def cached_share(self) -> float | None:
        """The share of prompt tokens read from the provider's cache (None: not
        reported).

        >>> ConditionSummary.of("flat", [RunRecord("flat", "t", 0, prompt_tokens=200,
        ...                                         cached_tokens=150)]).cached_share
        0.75
        """
        if not self.prompt_tokens or not self.cached_tokens:
            return None
        return round(self.cached_tokens / self.prompt_tokens, 3)

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON data, with the per-run means.

        >>> ConditionSummary.of("flat", [RunRecord("flat", "t", 0, requests=3)]).to_json()[
        ...     "requests_per_run"]
        3.0
        """
        data = attrs.asdict(self)
        data["rate"] = round(self.rate, 4)
        data["low"], data["high"] = round(self.low, 4), round(self.high, 4)
        data["cached_share"] = self.cached_share
        for field in ("requests", "tool_tokens", "prompt_tokens", "completion_tokens", "wall"):
            data[f"{field}_per_run"] = self._per_run(getattr(self, field))
        return data
