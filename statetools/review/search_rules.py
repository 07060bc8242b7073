"""ST018: tools that a search facade does not find by their own description.

A tool whose own first sentence, used as the query, does not bring it into the first
``max_results`` of its search facade is hard for a model to find with other words.

>>> from statetools import Tool, UnfoldingTool, check, disclosure_graph
>>> finder = UnfoldingTool.searchable("find", "Find tools", [
...     Tool.create("a", "Read the file.", lambda: 1),
...     Tool.create("b", "Read the file.", lambda: 1)], max_results=1)
>>> [f.message for f in check(disclosure_graph(finder), disable={"ST010"}).findings]
["Tool 'b' is not among the first 1 results of search facade 'find' for its own description ('Read the file.'). Give it a description that tells it apart, or keywords."]
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Iterator

from statetools.definitions.unfolding import UnfoldingTool
from statetools.review.findings import Finding
from statetools.review.rule_context import RuleContext
from statetools.tools.summary import first_sentence

__all__ = ["hard_to_find"]


def hard_to_find(context: RuleContext) -> Iterator[Finding]:
    """ST018 findings: per search facade, each tool its own first sentence misses."""
    for name, entry in context.design.graph.entries.items():
        facade = entry.tool
        if not isinstance(facade, UnfoldingTool) or facade.search is None:
            continue
        index = facade.search_index
        k = facade.search.max_results
        for tool in index.tools:
            query = first_sentence(tool.description)
            if not query.strip():
                continue
            found = [found.name for found, _ in index.rank(query, k)]
            if tool.name not in found:
                yield context.finding(
                    "ST018",
                    f"Tool '{tool.name}' is not among the first {k} results of search "
                    f"facade '{name}' for its own description ({query!r}). Give it a "
                    "description that tells it apart, or keywords.",
                    f"facade:{name}/tool:{tool.name}",
                )
