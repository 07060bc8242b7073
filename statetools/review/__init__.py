"""Design review: check(), explore(), token counts and render()."""

from statetools.review.check import check
from statetools.review.explore import (
    Exploration,
    ExplorationTooLarge,
    Progress,
    VisibleSet,
    explore,
)
from statetools.review.findings import RULES, Finding, Report, Rule
from statetools.review.tokens import count_text, tool_tokens, tools_tokens

__all__ = [
    "RULES",
    "Exploration",
    "ExplorationTooLarge",
    "Finding",
    "Progress",
    "Report",
    "Rule",
    "VisibleSet",
    "check",
    "count_text",
    "explore",
    "tool_tokens",
    "tools_tokens",
]
