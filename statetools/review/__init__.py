"""Design review: check(), explore(), token counts and render().

>>> import statetools as st
>>> report = st.check(st.disclosure_graph(playbook))  # doctest: +SKIP
>>> exploration = st.explore(st.disclosure_graph(playbook))  # doctest: +SKIP
>>> st.render(st.disclosure_graph(playbook), format="svg").save("design.svg")  # doctest: +SKIP
"""

from statetools.review.check import check
from statetools.review.explore import (
    Exploration,
    ExplorationTooLarge,
    Progress,
    VisibleSet,
    explore,
    flat_tools,
)
from statetools.review.findings import RULES, Finding, Report, Rule
from statetools.review.prompt_states import PromptState, SectionCost, prompt_table, section_table
from statetools.review.render import Diagram, render, to_dot, to_mermaid
from statetools.review.template_tokens import TemplateTokens, TokenServerError
from statetools.review.tokens import count_text, tool_text, tool_tokens, tools_tokens

__all__ = [
    "RULES",
    "Diagram",
    "Exploration",
    "ExplorationTooLarge",
    "Finding",
    "Progress",
    "PromptState",
    "Report",
    "Rule",
    "SectionCost",
    "TemplateTokens",
    "TokenServerError",
    "VisibleSet",
    "check",
    "count_text",
    "explore",
    "flat_tools",
    "prompt_table",
    "render",
    "section_table",
    "to_dot",
    "to_mermaid",
    "tool_text",
    "tool_tokens",
    "tools_tokens",
]
