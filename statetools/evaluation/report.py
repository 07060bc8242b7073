"""EvalReport: the runs of an evaluation, summed per condition, side by side, as a table,
JSON and a plot (:func:`plot_svg`: success rate against cost, one point per condition).

The plot's y axis is the success rate with its 95% interval as a bar; the x axis is
the prompt tokens per run the provider reported (or, when no condition has usage, the
tool-definition tokens per run statetools counted). Up and to the left is better.

>>> from statetools.evaluation.records import RunRecord
>>> report = EvalReport("m", ("flat",), ("t1", "t2"), 1, (
...     RunRecord("flat", "t1", 0, success=True, requests=2, prompt_tokens=300),
...     RunRecord("flat", "t2", 0, success=False, requests=4, prompt_tokens=500)))
>>> print(report.table().splitlines()[1])
success                          1/2 (50%)
>>> plot_svg([ConditionSummary.of("flat", [])], title="demo").startswith("<svg")
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

import attrs

from statetools.evaluation.records import ConditionSummary, RunRecord

__all__ = ["EvalReport", "plot_svg"]


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
        one point per condition, as SVG text (see :func:`~statetools.evaluation.report.plot_svg`).

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


WIDTH, HEIGHT = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 70, 30, 40, 60
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


def _nice_top(value: float) -> float:
    """A round axis end at or above ``value``."""
    if value <= 0:
        return 1.0
    step = 10 ** (len(str(int(value))) - 1)
    for factor in (1, 2, 2.5, 5, 10):
        if step * factor >= value:
            return float(step * factor)
    return float(step * 10)


def plot_svg(summaries: Sequence[ConditionSummary], *, title: str = "") -> str:
    """SVG text of the plot for ``summaries``.

    >>> "flat" in plot_svg([ConditionSummary.of("flat", [])])
    True
    """
    reported = any(s.usage_reported for s in summaries)
    label = (
        "prompt tokens per run (provider usage)" if reported else ("tool-definition tokens per run")
    )

    def cost(summary: ConditionSummary) -> float:
        total = summary.prompt_tokens if reported else summary.tool_tokens
        return total / summary.runs if summary.runs else 0.0

    top = _nice_top(max((cost(s) for s in summaries), default=0.0) * 1.1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(value: float) -> float:
        return LEFT + plot_w * value / top

    def y(rate: float) -> float:
        return TOP + plot_h * (1 - rate)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{WIDTH / 2}" y="22" text-anchor="middle" font-size="14">{escape(title)}</text>',
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" '
        'stroke="black"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="black"/>',
    ]
    for tick in range(6):
        rate = tick / 5
        parts.append(
            f'<line x1="{LEFT - 4}" y1="{y(rate):.1f}" x2="{LEFT + plot_w}" y2="{y(rate):.1f}" '
            'stroke="#ddd"/>'
            f'<text x="{LEFT - 8}" y="{y(rate) + 4:.1f}" text-anchor="end">{rate:.0%}</text>'
        )
        value = top * tick / 5
        parts.append(
            f'<text x="{x(value):.1f}" y="{TOP + plot_h + 18}" text-anchor="middle">'
            f"{value:,.0f}</text>"
        )
    parts.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 18}" text-anchor="middle">{label}</text>'
        f'<text transform="translate(18 {TOP + plot_h / 2}) rotate(-90)" '
        'text-anchor="middle">task success (95% interval)</text>'
    )
    for index, summary in enumerate(summaries):
        colour = COLOURS[index % len(COLOURS)]
        cx = x(cost(summary))
        parts.append(
            f"<g><title>{escape(summary.name)}: {summary.successes}/{summary.runs}</title>"
            f'<line x1="{cx:.1f}" y1="{y(summary.low):.1f}" x2="{cx:.1f}" '
            f'y2="{y(summary.high):.1f}" stroke="{colour}" stroke-width="2"/>'
            f'<circle cx="{cx:.1f}" cy="{y(summary.rate):.1f}" r="5" fill="{colour}"/>'
            f'<text x="{cx + 8:.1f}" y="{y(summary.rate) - 6:.1f}" fill="{colour}">'
            f"{escape(summary.name)} {summary.successes}/{summary.runs}</text></g>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
