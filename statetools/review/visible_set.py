"""A set of tools the model may see together, as :func:`~statetools.explore` finds it."""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen
class VisibleSet:
    """Tools the model may see together, first reached after ``path`` (one call a turn).

    ``tools`` are in registration order; ``tokens`` counts their definitions as one
    ``tools`` array; ``turns == len(path)``.

    >>> search = Tool.create("search", "Search the web", lambda query: "found")
    >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
    >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
    >>> [(v.tools, v.path) for v in explore(research.unlocked_by(search)).visible_sets]
    [(('search',), ()), (('search', 'analyze'), ('search',))]
    """

    tools: tuple[str, ...]
    tokens: int
    path: tuple[str, ...]

    @property
    def turns(self) -> int:
        """Model turns (calls) before this set is visible; 0 at the start.

        >>> later = VisibleSet(("search", "fetch"), 120, ("search",))
        >>> later.turns
        1
        """
        return len(self.path)

    @property
    def label_path(self) -> str:
        """``visible-set:start`` or ``visible-set:search/fetch`` (used in findings).

        >>> later = VisibleSet(("search", "fetch"), 120, ("search",))
        >>> later.label_path, VisibleSet(("search",), 60, ()).label_path
        ('visible-set:search', 'visible-set:start')
        """
        return f"visible-set:{'/'.join(self.path) if self.path else 'start'}"

    def to_dict(self) -> dict[str, Any]:
        """The set as a JSON-ready dict.

        >>> later = VisibleSet(("search", "fetch"), 120, ("search",))
        >>> later.to_dict()
        {'tools': ['search', 'fetch'], 'tokens': 120, 'turns': 1, 'path': ['search']}
        """
        return {
            "tools": list(self.tools),
            "tokens": self.tokens,
            "turns": self.turns,
            "path": list(self.path),
        }
