"""The system-prompt text that sections render to in each explored state, with its tokens.

A design with sections (or skills) writes part of the system prompt, and what it
writes depends on which sections were read. Reads only add, and a read that opens no
tools beyond those open leaves the tools as they are, so subsets of reads are never
enumerated: per tool state (the states :func:`~statetools.review.explore.explore`
finds, where only reads that open tools are steps) a :class:`PromptState` gives the
prompt text's tokens at its two ends, with the fewest reads that reach it (those on
its path) and with every section read whose read opens no tools beyond the state's.
Each section's own cost, as a summary and in full, is a :class:`SectionCost`.

>>> billing = Section("billing", "Billing", "Refunds within 30 days.", summary="Refunds.")
>>> [(s.keys, s.prompt_tokens, s.max_keys, s.max_reads_tokens)
...  for s in explore([Sections(billing)]).prompt_states]
[((), 24, ('billing',), 10)]
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import attrs

from statetools.engine.prompt_sections import ExpandablePrompt, expandable_prompts, prompt_text
from statetools.review.model import DesignView
from statetools.review.tokens import Provider, array_tokens, count_text, entry_texts
from statetools.wording import after, table

Expanded = tuple[tuple[str, str], ...]
"""Sections read: (facade, key) pairs, in the facades' and the sections' order."""


@attrs.frozen
class PromptState:
    """The prompt text and tools of explored states with the same tools visible and
    the same reads that opened them, first reached after ``path``.

    ``reads``: the sections read on ``path`` (the fewest that reach the state) and
    ``prompt_tokens`` the tokens of the system-prompt text the sections render to with
    them read; ``max_reads``: every section readable here without opening more tools,
    read, and ``max_reads_tokens`` the tokens then (a read replaces a summary by the
    body, so this is usually, not always, the larger); ``tool_tokens``: tokens of the
    visible tools as one ``tools`` array.

    >>> state = PromptState(("read_section",), 15, (), (), 40, (("read_section", "a"),), 55)
    >>> state.keys, state.max_keys, state.most_prompt_tokens, state.total_tokens
    ((), ('a',), 55, 70)
    """

    tools: tuple[str, ...]
    tool_tokens: int
    path: tuple[str, ...]
    reads: Expanded
    prompt_tokens: int
    max_reads: Expanded
    max_reads_tokens: int

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys of the sections read on the path.

        >>> state = PromptState(("search",), 15, ("search",), (("read_section", "a"),), 40, (), 30)
        >>> state.keys
        ('a',)
        """
        return tuple(key for _, key in self.reads)

    @property
    def max_keys(self) -> tuple[str, ...]:
        """The keys of :attr:`max_reads`.

        >>> state = PromptState(("search",), 15, ("search",), (("read_section", "a"),), 40, (), 30)
        >>> state.max_keys
        ()
        """
        return tuple(key for _, key in self.max_reads)

    @property
    def turns(self) -> int:
        """Model turns (calls) before this state; 0 at the start.

        >>> state = PromptState(("search",), 15, ("search",), (("read_section", "a"),), 40, (), 30)
        >>> state.turns
        1
        """
        return len(self.path)

    @property
    def most_prompt_tokens(self) -> int:
        """The longer of the two prompt texts, in tokens.

        >>> state = PromptState(("search",), 15, ("search",), (("read_section", "a"),), 40, (), 30)
        >>> state.most_prompt_tokens
        40
        """
        return max(self.prompt_tokens, self.max_reads_tokens)

    @property
    def total_tokens(self) -> int:
        """Tools and the longer prompt text together.

        >>> state = PromptState(("search",), 15, ("search",), (("read_section", "a"),), 40, (), 30)
        >>> state.total_tokens
        55
        """
        return self.tool_tokens + self.most_prompt_tokens

    def to_dict(self) -> dict[str, Any]:
        """The state as a JSON-ready dict.

        >>> state = PromptState(("search",), 15, ("search",), (("read_section", "a"),), 40, (), 30)
        >>> state.to_dict()["reads"], state.to_dict()["turns"]
        ({'read_section': ['a']}, 1)
        """
        return {
            "tools": list(self.tools),
            "tool_tokens": self.tool_tokens,
            "turns": self.turns,
            "path": list(self.path),
            "reads": _by_facade(self.reads),
            "prompt_tokens": self.prompt_tokens,
            "max_reads": _by_facade(self.max_reads),
            "max_reads_tokens": self.max_reads_tokens,
        }


@attrs.frozen
class SectionCost:
    """One section's own text in tokens (without the sections below it):
    ``summary_tokens`` while it is not read (title, summary and how to read it; None
    for a full section), ``full_tokens`` once read (title and body); ``opens``: the
    tools its read opens.

    >>> SectionCost("read_section", "billing", ("refund",), 24, 10).to_dict()["key"]
    'billing'
    """

    facade: str
    key: str
    opens: tuple[str, ...]
    summary_tokens: int | None
    full_tokens: int

    def to_dict(self) -> dict[str, Any]:
        """The section as a JSON-ready dict.

        >>> cost = SectionCost("read_section", "billing", ("refund",), 24, 10)
        >>> cost.to_dict()  # doctest: +NORMALIZE_WHITESPACE
        {'facade': 'read_section', 'key': 'billing', 'opens': ['refund'],
         'summary_tokens': 24, 'full_tokens': 10}
        """
        return {
            "facade": self.facade,
            "key": self.key,
            "opens": list(self.opens),
            "summary_tokens": self.summary_tokens,
            "full_tokens": self.full_tokens,
        }


def _by_facade(expanded: Expanded) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for facade, key in expanded:
        found.setdefault(facade, []).append(key)
    return found


class PromptTexts:
    """The prompt text of a design's sections for a set of sections read (cached).

    ``readings``: per prompt-writing facade, the keys a read may name (those that
    show more text or open tools), in order.
    """

    def __init__(self, design: DesignView) -> None:
        self.design = design
        self.parts: dict[str, ExpandablePrompt] = {
            part.name: part for part in expandable_prompts(design.graph)
        }
        self.readings: dict[str, list[str]] = {
            name: list(part.expansion_keys()) for name, part in self.parts.items()
        }
        self._order = {
            (name, key): (i, j)
            for i, (name, keys) in enumerate(self.readings.items())
            for j, key in enumerate(keys)
        }
        self._steps = {self.step(name, key): (name, key) for name, key in self._order}
        self._tokens: dict[Expanded, int] = {}

    def opens(self, facade: str, key: str) -> tuple[str, ...]:
        """The tools reading ``key`` opens."""
        found = self.design.facades.get(facade)
        return found.members(key) if found is not None else ()

    def arguments(self, facade: str, key: str) -> Mapping[str, Any]:
        """The arguments of the call that reads ``key``."""
        return self.parts[facade].expansion_arguments(key)

    def step(self, facade: str, key: str) -> str:
        """The read as a step of a path: ``read_section(key=billing)``."""
        arguments = ", ".join(f"{k}={v}" for k, v in self.arguments(facade, key).items())
        return f"{facade}({arguments})"

    def ordered(self, pairs: Iterable[tuple[str, str | None]]) -> Expanded:
        """The sections read among ``pairs`` (unfolds or reads), in order."""
        found = {
            (facade, key)
            for facade, key in pairs
            if key is not None and (facade, key) in self._order
        }
        return tuple(sorted(found, key=self._order.__getitem__))

    def path_reads(self, path: Sequence[str]) -> Expanded:
        """The sections read by the calls of ``path``."""
        return self.ordered(self._steps[step] for step in path if step in self._steps)

    def most_reads(
        self, opened: Iterable[tuple[str, str | None]], callable_now: Collection[str]
    ) -> Expanded:
        """Every section that can be read without opening more tools than ``opened``
        (the unfolds of an explored state) did: of each facade callable now or read
        before, the keys whose tools are all open."""
        opened = list(opened)
        open_tools: dict[str, set[str]] = {}
        for facade, key in opened:
            if facade in self.readings and key is not None:
                open_tools.setdefault(facade, set()).update(self.opens(facade, key))
        return self.ordered(
            (facade, key)
            for facade, keys in self.readings.items()
            if facade in callable_now or facade in open_tools
            for key in keys
            if set(self.opens(facade, key)) <= open_tools.get(facade, set())
        )

    def text(self, expanded: Expanded) -> str:
        """The system-prompt text the sections render to with ``expanded`` read."""
        unfolds = [(facade, json.dumps(self.arguments(facade, key))) for facade, key in expanded]
        return prompt_text(self.design.graph, unfolds) or ""

    def tokens(self, expanded: Expanded) -> int:
        """Tokens of :meth:`text`."""
        if expanded not in self._tokens:
            self._tokens[expanded] = count_text(self.text(expanded))
        return self._tokens[expanded]

    def costs(self) -> tuple[SectionCost, ...]:
        """Each readable section's own cost, in order."""
        found = []
        for facade, key in self._order:
            summary, full = self.parts[facade].expansion_texts(key)
            tokens = None if summary is None else count_text(summary)
            found.append(
                SectionCost(facade, key, self.opens(facade, key), tokens, count_text(full))
            )
        return tuple(found)


def prompt_states(
    prompts: PromptTexts,
    provider: Provider,
    found: Mapping[tuple[Expanded, tuple[str, ...]], tuple[tuple[str, ...], Expanded]],
) -> tuple[PromptState, ...]:
    """The :class:`PromptState` of each (reads that opened tools, visible tools) pair
    ``found``, with the path that first reached it and the most reads there, fewest
    turns first."""
    entries = prompts.design.entries
    texts: dict[str, str] = {}
    for _, tools in found:
        for name in tools:
            if name not in texts:
                texts[name] = entry_texts([entries[name].tool], provider)[0]
    states = []
    for (_, tools), (path, most) in found.items():
        reads = prompts.path_reads(path)
        states.append(
            PromptState(
                tools,
                array_tokens([texts[name] for name in tools]),
                path,
                reads,
                prompts.tokens(reads),
                most,
                prompts.tokens(most),
            )
        )
    return tuple(sorted(states, key=lambda s: s.turns))


def read_label(expanded: Expanded, several: bool) -> str:
    """Sections as a table shows them: ``billing`` (with the facade, ``load_skill:pdf``,
    when a design has several)."""
    return ", ".join(f"{facade}:{key}" if several else key for facade, key in expanded)


PROMPT_NUMBERS = (
    "turns",
    "tools",
    "tool tokens",
    "reads",
    "prompt tokens",
    "max reads",
    "prompt tokens (max reads)",
)
"""The numeric columns of :func:`prompt_rows`."""


def prompt_rows(states: Sequence[PromptState]) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The header and rows of a table of prompt states: turns, tools, their tokens,
    the reads on the way (the path, last column) with the prompt text's tokens, and
    the most reads with the tokens then."""
    rows: list[tuple[str, ...]] = [
        (
            str(state.turns),
            str(len(state.tools)),
            f"{state.tool_tokens:,}",
            str(len(state.reads)),
            f"{state.prompt_tokens:,}",
            str(len(state.max_reads)),
            f"{state.max_reads_tokens:,}",
            after(state.path),
        )
        for state in states
    ]
    return (*PROMPT_NUMBERS, "after"), rows


def prompt_table(states: Sequence[PromptState]) -> str:
    """:func:`prompt_rows` as a plain-text table.

    >>> billing = Section("billing", "Billing", "Refunds within 30 days.", summary="Refunds.")
    >>> print(prompt_table(explore([Sections(billing)]).prompt_states))
    turns  tools  tool tokens  reads  prompt tokens  max reads  prompt tokens (max reads)  after
        0      1           66      0             24          1                         10  (start)
    """
    return table(*prompt_rows(states))


SECTION_NUMBERS = ("opens", "summary tokens", "full tokens")
"""The numeric columns of :func:`section_rows`."""


def section_rows(costs: Sequence[SectionCost]) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The header and rows of the per-section table: section, tools it opens, its
    own tokens as a summary (``-`` for a full section) and in full."""
    several = len({cost.facade for cost in costs}) > 1
    rows: list[tuple[str, ...]] = [
        (
            read_label(((cost.facade, cost.key),), several),
            str(len(cost.opens)),
            "-" if cost.summary_tokens is None else f"{cost.summary_tokens:,}",
            f"{cost.full_tokens:,}",
        )
        for cost in costs
    ]
    return ("section", *SECTION_NUMBERS), rows


def section_table(costs: Sequence[SectionCost]) -> str:
    """:func:`section_rows` as a plain-text table.

    >>> billing = Section("billing", "Billing", "Refunds within 30 days.", summary="Refunds.")
    >>> print(section_table(explore([Sections(billing)]).prompt_sections))
    section  opens  summary tokens  full tokens
    billing      0              24           10
    """
    return table(*section_rows(costs))


def prompt_summary(states: Sequence[PromptState]) -> str:
    """Two lines: the prompt text's tokens at the start and at most, with the tools at
    the start and at most (the first state is the start), and what the columns mean."""
    if not states:
        return ""
    start = states[0]
    prompt = max(s.most_prompt_tokens for s in states)
    total = max(s.total_tokens for s in states)
    return (
        f"prompt text per state: {start.prompt_tokens:,} tokens at the start, {prompt:,} "
        f"at most; with tools {start.tool_tokens + start.prompt_tokens:,} at the start, "
        f"{total:,} at most\n"
        "reads: the sections read on the way there (after); max reads: with every "
        "section read that opens no more tools"
    )


SECTIONS_TITLE = "tokens of each section's own text, as a summary and in full:"
"""The line above :func:`section_table`."""
