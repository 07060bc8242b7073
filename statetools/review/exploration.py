"""Exploration: what :func:`~statetools.review.explore.explore` found, with the
figures drawn from it (start, largest set, prompt tokens) and its reports as a dict,
JSON and text tables; each :class:`VisibleSet` is a set of tools the model may see
together.

>>> search = Tool.create("search", "Search the web", lambda query: "found")
>>> exploration = explore(PlaybookTool("research", "Research").with_tool(search))
>>> exploration.initial.tools, exploration.to_dict()["complete"]
(('search',), True)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

from statetools.review.prompt_states import (
    SECTIONS_TITLE,
    PromptState,
    SectionCost,
    prompt_summary,
    prompt_table,
    section_table,
)
from statetools.review.tokens import Provider
from statetools.wording import after, counted, table

__all__ = ["Exploration"]


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


@attrs.frozen
class Exploration:
    """What :func:`explore` found.

    ``visible_sets``: the distinct visible sets, in the order first reached (so by
    turns); ``min_turns``: tool -> fewest turns before it is visible, and ``paths``:
    the calls that get there; ``never_visible``: tools no explored run shows;
    ``tool_tokens``: tokens of each tool's definition; ``flat_tokens``: all tools at
    once, as without disclosure (facade tools left out); ``states``: abstract states
    visited; ``complete``: False when ``max_depth`` cut the search short;
    ``dead_ends``: the calls after which the model is left with no tool at all (whatever
    the undecidable conditions) while no machine is in a final state, shortest first;
    ``prompt_states`` (designs with sections or skills): per tool state (tools visible
    and the reads that opened them), the tokens of the system-prompt text the sections
    render to with the fewest reads that reach it and with every section read that
    opens no more tools, next to the tools' tokens
    (:class:`~statetools.review.prompt_states.PromptState`), in the order first
    reached; ``prompt_sections``: each section's own tokens, as a summary and in full.
    A read that opens tools is a step of its own (``read_section(key=billing)``), so
    ``min_turns`` counts the reads; reads that open nothing are no steps.

    >>> search = Tool.create("search", "Search the web", lambda query: "found")
    >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
    >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
    >>> exploration = explore(research.unlocked_by(search))
    >>> exploration.min_turns, exploration.never_visible, exploration.complete
    ({'search': 0, 'analyze': 1}, (), True)
    """

    visible_sets: tuple[VisibleSet, ...]
    min_turns: Mapping[str, int]
    paths: Mapping[str, tuple[str, ...]]
    never_visible: tuple[str, ...]
    tool_tokens: Mapping[str, int]
    flat_tokens: int
    states: int
    depth: int
    complete: bool
    provider: Provider
    dead_ends: tuple[tuple[str, ...], ...] = ()
    prompt_states: tuple[PromptState, ...] = ()
    prompt_sections: tuple[SectionCost, ...] = ()

    @property
    def initial(self) -> VisibleSet:
        """The largest set visible at the start.

        >>> search = Tool.create("search", "Search the web", lambda query: "found")
        >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
        >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
        >>> exploration = explore(research.unlocked_by(search))
        >>> exploration.initial.tools
        ('search',)
        """
        return max(
            (s for s in self.visible_sets if not s.path), key=lambda s: (s.tokens, len(s.tools))
        )

    @property
    def largest(self) -> VisibleSet:
        """The visible set with the most tokens (the first such, on ties).

        >>> search = Tool.create("search", "Search the web", lambda query: "found")
        >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
        >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
        >>> exploration = explore(research.unlocked_by(search))
        >>> exploration.largest.tools, exploration.largest.path
        (('search', 'analyze'), ('search',))
        """
        return max(self.visible_sets, key=lambda s: s.tokens)

    @property
    def max_tokens(self) -> int:
        """Tokens of the largest visible set.

        >>> search = Tool.create("search", "Search the web", lambda query: "found")
        >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
        >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
        >>> exploration = explore(research.unlocked_by(search))
        >>> exploration.max_tokens == exploration.largest.tokens > exploration.initial.tokens
        True
        """
        return self.largest.tokens

    @property
    def max_prompt_tokens(self) -> int:
        """Tokens of the longest prompt text the sections render to in the states
        reported (with their fewest or most reads; 0 without sections).

        >>> search = Tool.create("search", "Search the web", lambda query: "found")
        >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
        >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
        >>> exploration = explore(research.unlocked_by(search))
        >>> exploration.max_prompt_tokens  # no sections
        0
        """
        return max((s.most_prompt_tokens for s in self.prompt_states), default=0)

    @property
    def largest_prompt_state(self) -> PromptState | None:
        """The state with the most prompt (its longer text) and tool tokens together
        (None without sections; the first such, on ties).

        >>> search = Tool.create("search", "Search the web", lambda query: "found")
        >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
        >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
        >>> exploration = explore(research.unlocked_by(search))
        >>> exploration.largest_prompt_state is None  # no sections
        True
        """
        return max(self.prompt_states, key=lambda s: s.total_tokens, default=None)

    def to_dict(self) -> dict[str, Any]:
        """The exploration as a JSON-ready dict.

        >>> search = Tool.create("search", "Search the web", lambda query: "found")
        >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
        >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
        >>> exploration = explore(research.unlocked_by(search))
        >>> data = exploration.to_dict()
        >>> data["complete"], data["tools"]["analyze"]["path"]
        (True, ['search'])
        """
        return {
            "provider": self.provider,
            "encoding": "o200k_base",
            "states": self.states,
            "depth": self.depth,
            "complete": self.complete,
            "flat_tokens": self.flat_tokens,
            "initial_tokens": self.initial.tokens,
            "max_tokens": self.max_tokens,
            "visible_sets": [s.to_dict() for s in self.visible_sets],
            "tools": {
                name: {
                    "tokens": self.tool_tokens[name],
                    "min_turns": self.min_turns.get(name),
                    "path": list(self.paths[name]) if name in self.paths else None,
                }
                for name in self.tool_tokens
            },
            "never_visible": list(self.never_visible),
            "dead_ends": [list(path) for path in self.dead_ends],
            **self._prompt_dict(),
        }

    def _prompt_dict(self) -> dict[str, Any]:
        if not self.prompt_states:
            return {}
        return {
            "max_prompt_tokens": self.max_prompt_tokens,
            "prompt_states": [s.to_dict() for s in self.prompt_states],
            "prompt_sections": [s.to_dict() for s in self.prompt_sections],
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The exploration as JSON text.

        >>> search = Tool.create("search", "Search the web", lambda query: "found")
        >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
        >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
        >>> exploration = explore(research.unlocked_by(search))
        >>> json.loads(exploration.to_json())["states"] == exploration.states
        True
        """
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def to_text(self) -> str:
        """A summary and two tables: visible sets, and tools with their fewest turns.

        >>> search = Tool.create("search", "Search the web", lambda query: "found")
        >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
        >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
        >>> exploration = explore(research.unlocked_by(search))
        >>> print(exploration.to_text().splitlines()[0])
        2 disclosure states, 2 distinct visible sets (complete)
        """
        largest = self.largest
        share = f" ({largest.tokens / self.flat_tokens:.0%} of flat)" if self.flat_tokens else ""
        scope = "complete" if self.complete else f"first {counted(self.depth, 'turn')} only"
        lines = [
            f"{counted(self.states, 'disclosure state')}, "
            f"{counted(len(self.visible_sets), 'distinct visible set')} ({scope})",
            f"tokens (o200k_base, {self.provider}): flat {self.flat_tokens:,}, start "
            f"{self.initial.tokens:,}, largest {largest.tokens:,}{share}",
            "",
            table(
                ("turns", "tools", "tokens", "after"),
                [
                    (str(s.turns), str(len(s.tools)), f"{s.tokens:,}", after(s.path))
                    for s in self.visible_sets
                ],
            ),
            "",
            table(
                ("tool", "turns", "tokens", "after"),
                [
                    (name, str(turns), f"{self.tool_tokens[name]:,}", after(self.paths[name]))
                    for name, turns in self.min_turns.items()
                ],
            ),
        ]
        if self.prompt_states:
            lines += [
                "",
                prompt_summary(self.prompt_states),
                prompt_table(self.prompt_states),
                "",
                SECTIONS_TITLE,
                section_table(self.prompt_sections),
            ]
        if self.never_visible:
            lines += ["", f"never visible: {', '.join(self.never_visible)}"]
        if self.dead_ends:
            ends = "; ".join(after(path) for path in self.dead_ends)
            lines += ["", f"no tools left after: {ends}"]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()
