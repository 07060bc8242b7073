"""EvalReport: the runs of an evaluation, summed per condition, side by side.

>>> from statetools.evaluation.records import RunRecord
>>> report = EvalReport("m", ("flat",), ("t1", "t2"), 1, (
...     RunRecord("flat", "t1", 0, success=True, requests=2, prompt_tokens=300),
...     RunRecord("flat", "t2", 0, success=False, requests=4, prompt_tokens=500)))
>>> print(report.table().splitlines()[1])
success                          1/2 (50%)
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from statetools.evaluation.condition_summary import ConditionSummary
from statetools.evaluation.plot import plot_svg
from statetools.evaluation.records import RunRecord

__all__ = ["EvalReport"]


@attrs.frozen
class EvalReport:
    """What :func:`~statetools.evaluate` found: the model, the conditions and tasks in
    order, the number of repeats and every run's :class:`RunRecord`.

    >>> EvalReport("m", ("flat",), ("t1",), 1, ()).summary("flat").runs
    0
    """

    model: str
    conditions: tuple[str, ...]
    tasks: tuple[str, ...]
    repeat: int
    records: tuple[RunRecord, ...]

    def summary(self, condition: str) -> ConditionSummary:
        """The summed runs of one condition.

        >>> EvalReport("m", ("flat",), ("t1",), 1, ()).summary("flat").successes
        0
        """
        if condition not in self.conditions:
            raise KeyError(condition)
        return ConditionSummary.of(
            condition, [record for record in self.records if record.condition == condition]
        )

    @property
    def summaries(self) -> list[ConditionSummary]:
        """Every condition's summary, in order.

        >>> [s.name for s in EvalReport("m", ("flat", "machine"), (), 1, ()).summaries]
        ['flat', 'machine']
        """
        return [self.summary(name) for name in self.conditions]

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data: summaries and every run.

        >>> sorted(EvalReport("m", ("flat",), ("t1",), 1, ()).to_json())
        ['conditions', 'model', 'repeat', 'runs', 'summaries', 'tasks']
        """
        return {
            "model": self.model,
            "conditions": list(self.conditions),
            "tasks": list(self.tasks),
            "repeat": self.repeat,
            "summaries": [summary.to_json() for summary in self.summaries],
            "runs": [record.to_json() for record in self.records],
        }

    def dumps(self) -> str:
        """:meth:`to_json` as indented JSON text.

        >>> EvalReport("m", ("flat",), ("t1",), 1, ()).dumps().splitlines()[1]
        ' "model": "m",'
        """
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"

    def rows(self) -> list[list[str]]:
        """The side-by-side table: a header row, then one row per measure, one column
        per condition.

        >>> EvalReport("m", ("flat",), ("t1",), 1, ()).rows()[0]
        ['', 'flat']
        """
        summaries = self.summaries
        rows = [["", *(s.name for s in summaries)]]

        def row(label: str, value: Any) -> None:
            rows.append([label, *(value(s) for s in summaries)])

        row("success", lambda s: f"{s.successes}/{s.runs} ({s.rate:.0%})")
        row("95% interval", lambda s: f"{s.low:.0%}-{s.high:.0%}")
        row("requests / run", lambda s: _mean(s.requests, s.runs))
        row("tool-definition tokens / run", lambda s: _mean(s.tool_tokens, s.runs, 0))
        row("tool tokens, first request", lambda s: f"{s.first_tool_tokens:,}")
        row("prompt tokens / run", lambda s: _reported(s, s.prompt_tokens, 0))
        row("completion tokens / run", lambda s: _reported(s, s.completion_tokens, 0))
        row("cached share", lambda s: "-" if s.cached_share is None else f"{s.cached_share:.0%}")
        row("searches (misses)", lambda s: f"{s.searches} ({s.search_misses})")
        row("expected tools never shown", lambda s: str(s.never_found))
        row("locked calls attempted", lambda s: str(s.blocked))
        row("unknown-tool calls", lambda s: str(s.unknown))
        row("tool errors", lambda s: str(s.tool_errors))
        row("wall time / run (s)", lambda s: _mean(s.wall, s.runs))
        row("run errors", lambda s: ", ".join(f"{k} {v}" for k, v in s.errors.items()) or "-")
        return rows

    def table(self) -> str:
        """:meth:`rows` as aligned plain text.

        >>> print(EvalReport("m", ("flat",), ("t1",), 1, ()).table().splitlines()[1])
        success                           0/0 (0%)
        """
        rows = self.rows()
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        return "\n".join(
            "  ".join(
                cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                for i, cell in enumerate(row)
            ).rstrip()
            for row in rows
        )

    def markdown(self) -> str:
        """:meth:`rows` as a Markdown table.

        >>> print(EvalReport("m", ("flat",), ("t1",), 1, ()).markdown().splitlines()[1])
        |---|---:|
        """
        rows = self.rows()
        lines = ["| " + " | ".join(rows[0]) + " |", "|---|" + "---:|" * (len(rows[0]) - 1)]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
        return "\n".join(lines)

    def svg(self) -> str:
        """A plot of success rate (with its interval) against prompt tokens per run,
        one point per condition, as SVG text (see :func:`~statetools.evaluation.plot.plot_svg`).

        >>> EvalReport("m", ("flat",), ("t1",), 1, ()).svg().startswith("<svg")
        True
        """
        return plot_svg(self.summaries, title=f"{self.model}: {len(self.tasks)} tasks")


def _mean(total: float, runs: int, digits: int = 1) -> str:
    if not runs:
        return "-"
    value = total / runs
    return f"{value:,.{digits}f}"


def _reported(summary: ConditionSummary, total: int, digits: int) -> str:
    if not summary.usage_reported:
        return "not reported"
    return _mean(total, summary.runs, digits)
