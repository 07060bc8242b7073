"""What a search that found nothing tells the model, so that one more request finds it:
the groups below the facade (nested facades, playbooks and machines) or, without
groups, the categories of its tools.

>>> issues = UnfoldingTool.of("issues", "Open the issue tools.", [Tool.create("a", "A", lambda: 1)])
>>> finder = UnfoldingTool.searchable("find", "Find tools", [issues])
>>> groups_line(finder.search_index)
'Groups: issues (Open the issue tools.).'
"""

from __future__ import annotations

from typing import Protocol

from statetools.tools.descriptions import first_sentence
from statetools.tools.tool import BaseTool

__all__ = ["groups_line"]

_MOST = 12


class Grouped(Protocol):
    """What :func:`groups_line` reads of a search index."""

    @property
    def tools(self) -> tuple[BaseTool, ...]: ...

    def path_of(self, name: str) -> tuple[str, ...]: ...

    def tool(self, name: str) -> BaseTool | None: ...


def groups_line(index: Grouped) -> str:
    """One line naming the groups below a search facade, or the categories of its tools
    (at most twelve); empty when there are neither.

    >>> finder = UnfoldingTool.searchable("find", "Find", [
    ...     Tool.create("a", "A", lambda: 1, metadata={"category": "files"}),
    ...     Tool.create("b", "B", lambda: 1, metadata={"category": "math"})])
    >>> groups_line(finder.search_index)
    'Categories: files, math.'
    """
    groups = list(dict.fromkeys(s for t in index.tools for s in index.path_of(t.name)[:1]))
    if groups:
        described = []
        for name in groups[:_MOST]:
            tool = index.tool(name)
            summary = first_sentence(tool.description) if tool is not None else ""
            described.append(f"{name} ({summary})" if summary else name)
        more = f" and {len(groups) - _MOST} more" if len(groups) > _MOST else ""
        return f"Groups: {', '.join(described)}{more}."
    categories = list(dict.fromkeys(t.metadata.category for t in index.tools))
    named = [c for c in categories if c]
    if not named:
        return ""
    more = f" and {len(named) - _MOST} more" if len(named) > _MOST else ""
    return f"Categories: {', '.join(named[:_MOST])}{more}."
