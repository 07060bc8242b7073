"""The evaluation plot: success rate against cost, one point per condition, as SVG.

The y axis is the success rate with its 95% interval as a bar; the x axis is the
prompt tokens per run the provider reported (or, when no condition has usage, the
tool-definition tokens per run statetools counted). Up and to the left is better.

>>> from statetools.evaluation.condition_summary import ConditionSummary
>>> flat = ConditionSummary.of("flat", [])
>>> plot_svg([flat], title="demo").startswith("<svg")
True
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

from statetools.evaluation.condition_summary import ConditionSummary

__all__ = ["plot_svg"]

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
