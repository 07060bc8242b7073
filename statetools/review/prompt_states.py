"""The system-prompt text that sections render to in each explored state, with its tokens.

A design with sections (or skills) writes part of the system prompt, and what it
writes depends on which sections were read. :func:`~statetools.review.explore.explore`
tracks the sections read as part of each state and reports, per distinct pair of
(sections read, visible tools), the tokens of the prompt text next to the tokens of
the tools: a :class:`PromptState`.

>>> billing = Section("billing", "Billing", "Refunds within 30 days.", summary="Refunds.")
>>> [(s.keys, s.prompt_tokens) for s in explore([Sections(billing)]).prompt_states]
[((), 24), (('billing',), 10)]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from statetools.disclosure.graph import DisclosureGraph, ToolEntry
from statetools.disclosure.prompt_part import ExpandablePrompt, expandable_prompts, prompt_text
from statetools.review.text_table import after, table
from statetools.review.tokens import Provider, array_tokens, count_text, entry_texts

Expanded = tuple[tuple[str, str], ...]
"""Sections read: (facade, key) pairs, in the facades' and the sections' order."""


@attrs.frozen
class PromptState:
    """What the model is sent in explored states where the same sections were read and
    the same tools are visible, first reached after ``path``.

    ``expanded``: the sections read, as (facade, key) pairs (``keys`` has the keys
    alone); ``prompt_tokens``: tokens of the system-prompt text the sections render
    to; ``tool_tokens``: tokens of the visible tools as one ``tools`` array.

    >>> state = PromptState((("read_section", "billing"),), ("read_section",), 40, 15, ())
    >>> state.keys, state.total_tokens
    (('billing',), 55)
    """

    expanded: Expanded
    tools: tuple[str, ...]
    tool_tokens: int
    prompt_tokens: int
    path: tuple[str, ...]

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys of the sections read."""
        return tuple(key for _, key in self.expanded)

    @property
    def turns(self) -> int:
        """Model turns (calls) before this state; 0 at the start."""
        return len(self.path)

    @property
    def total_tokens(self) -> int:
        """Prompt text and tools together."""
        return self.prompt_tokens + self.tool_tokens

    def to_dict(self) -> dict[str, Any]:
        """The state as a JSON-ready dict."""
        expanded: dict[str, list[str]] = {}
        for facade, key in self.expanded:
            expanded.setdefault(facade, []).append(key)
        return {
            "expanded": expanded,
            "tools": list(self.tools),
            "tool_tokens": self.tool_tokens,
            "prompt_tokens": self.prompt_tokens,
            "total_tokens": self.total_tokens,
            "turns": self.turns,
            "path": list(self.path),
        }


class PromptTexts:
    """The prompt text of a graph's sections for each set of sections read (cached).

    ``readings``: per prompt-writing facade, the keys a read may name (those that
    show more text or open tools), in order.
    """

    def __init__(self, graph: DisclosureGraph) -> None:
        self.graph = graph
        self.parts: dict[str, ExpandablePrompt] = {
            part.name: part for part in expandable_prompts(graph)
        }
        self.readings: dict[str, list[str]] = {
            name: list(part.expansion_keys()) for name, part in self.parts.items()
        }
        self._order = {
            (name, key): (i, j)
            for i, (name, keys) in enumerate(self.readings.items())
            for j, key in enumerate(keys)
        }
        self._tokens: dict[Expanded, int] = {}

    def arguments(self, facade: str, key: str) -> Mapping[str, Any]:
        """The arguments of the call that reads ``key``."""
        return self.parts[facade].expansion_arguments(key)

    def step(self, facade: str, key: str) -> str:
        """The read as a step of a path: ``read_section(key=billing)``."""
        arguments = ", ".join(f"{k}={v}" for k, v in self.arguments(facade, key).items())
        return f"{facade}({arguments})"

    def expanded(self, opened: Iterable[tuple[str, str | None]]) -> Expanded:
        """The sections read among the unfolds ``opened``, in order."""
        found = [
            (facade, key)
            for facade, key in opened
            if key is not None and (facade, key) in self._order
        ]
        return tuple(sorted(found, key=self._order.__getitem__))

    def text(self, expanded: Expanded) -> str:
        """The system-prompt text the sections render to with ``expanded`` read."""
        unfolds = [(facade, json.dumps(self.arguments(facade, key))) for facade, key in expanded]
        return prompt_text(self.graph, unfolds) or ""

    def tokens(self, expanded: Expanded) -> int:
        """Tokens of :meth:`text`."""
        if expanded not in self._tokens:
            self._tokens[expanded] = count_text(self.text(expanded))
        return self._tokens[expanded]


def read_label(expanded: Expanded, several: bool) -> str:
    """The sections read as a table shows them: ``billing, shipping`` (with the facade,
    ``load_skill:pdf``, when a design has several), ``(none)`` at the start."""
    if not expanded:
        return "(none)"
    return ", ".join(f"{facade}:{key}" if several else key for facade, key in expanded)


PROMPT_NUMBERS = ("turns", "tools", "tool tokens", "prompt tokens", "total")
"""The numeric columns of :func:`prompt_rows`."""


def prompt_rows(
    states: Sequence[PromptState], *, with_path: bool | None = None
) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The header and rows of a table of prompt states: sections read, turns, tools,
    tokens of the tools, of the prompt text and together, and the calls that first
    reach each state when ``with_path`` (by default: when some state was reached by
    calls other than reads)."""
    several = len({facade for state in states for facade, _ in state.expanded}) > 1
    if with_path is None:
        with_path = any(len(state.path) != len(state.expanded) for state in states)
    header: tuple[str, ...] = ("sections read", *PROMPT_NUMBERS)
    rows: list[tuple[str, ...]] = [
        (
            read_label(state.expanded, several),
            str(state.turns),
            str(len(state.tools)),
            f"{state.tool_tokens:,}",
            f"{state.prompt_tokens:,}",
            f"{state.total_tokens:,}",
        )
        for state in states
    ]
    if not with_path:
        return header, rows
    paths = [after(state.path) for state in states]
    return (*header, "after"), [(*row, path) for row, path in zip(rows, paths, strict=True)]


def prompt_table(states: Sequence[PromptState], *, with_path: bool | None = None) -> str:
    """:func:`prompt_rows` as a plain-text table.

    >>> billing = Section("billing", "Billing", "Refunds within 30 days.", summary="Refunds.")
    >>> print(prompt_table(explore([Sections(billing)]).prompt_states))
    sections read  turns  tools  tool tokens  prompt tokens  total
    (none)             0      1           66             24     90
    billing            1      1           66             10     76
    """
    return table(*prompt_rows(states, with_path=with_path))


def prompt_states(
    prompts: PromptTexts,
    entries: Mapping[str, ToolEntry],
    provider: Provider,
    found: Mapping[tuple[Expanded, tuple[str, ...]], tuple[str, ...]],
) -> tuple[PromptState, ...]:
    """The :class:`PromptState` of each (sections read, visible tools) pair ``found``
    (with the path that first reached it), fewest turns first."""
    texts: dict[str, str] = {}
    for _, tools in found:
        for name in tools:
            if name not in texts:
                texts[name] = entry_texts([entries[name].tool], provider)[0]
    states = [
        PromptState(
            expanded,
            tools,
            array_tokens([texts[name] for name in tools]),
            prompts.tokens(expanded),
            path,
        )
        for (expanded, tools), path in found.items()
    ]
    return tuple(sorted(states, key=lambda s: s.turns))


def prompt_summary(states: Sequence[PromptState]) -> str:
    """One line: the prompt text's tokens at the start and at most, and prompt and
    tools together at the start and at most (the first state is the start)."""
    if not states:
        return ""
    start = states[0]
    prompt = max(s.prompt_tokens for s in states)
    total = max(s.total_tokens for s in states)
    return (
        f"prompt and tools per state: prompt {start.prompt_tokens:,} at the start, "
        f"{prompt:,} at most; with tools {start.total_tokens:,} at the start, "
        f"{total:,} at most"
    )
