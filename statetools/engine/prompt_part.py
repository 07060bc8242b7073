"""Facades that also write part of the system prompt (``read_section``).

Such a facade has a ``prompt_text(unfolds)`` method: the text it adds to the system
prompt after the unfolds so far (the arguments of each, in order). The loop places that
text in a system message of its own and, for a model whose tools cannot change within
a conversation, writes it again when the conversation restarts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from statetools.engine.graph import DisclosureGraph


@runtime_checkable
class PromptPart(Protocol):
    """A facade that writes part of the system prompt.

    >>> class Notes:
    ...     name = "notes"
    ...     def prompt_text(self, unfolds: Sequence[Mapping[str, Any]]) -> str:
    ...         return f"{len(unfolds)} notes read"
    >>> isinstance(Notes(), PromptPart)
    True
    """

    name: str

    def prompt_text(self, unfolds: Sequence[Mapping[str, Any]]) -> str:
        """The prompt text after ``unfolds`` (the arguments of each unfold, in order)."""
        ...


def prompt_parts(graph: DisclosureGraph) -> list[PromptPart]:
    """The facades of ``graph`` that write prompt text, in registration order."""
    return [facade for facade in graph.facades.values() if isinstance(facade, PromptPart)]


def prompt_unfolds(
    graph: DisclosureGraph, unfolds: Sequence[tuple[str, str]]
) -> list[tuple[str, dict[str, Any]]]:
    """The entries of an unfold log (``DisclosureState.unfolds``) that belong to
    prompt-writing facades, decoded."""
    names = {part.name for part in prompt_parts(graph)}
    return [(name, json.loads(arguments)) for name, arguments in unfolds if name in names]


def prompt_text(
    graph: DisclosureGraph, unfolds: Sequence[tuple[str, str]], count: int | None = None
) -> str | None:
    """The system prompt text of the prompt-writing facades of ``graph`` after the
    first ``count`` of their ``unfolds`` (all when None); None when there are none.

    >>> prompt_text(disclosure_graph(), ()) is None
    True
    """
    parts = prompt_parts(graph)
    if not parts:
        return None
    entries = prompt_unfolds(graph, unfolds)
    if count is not None:
        entries = entries[:count]
    texts = [part.prompt_text([a for n, a in entries if n == part.name]) for part in parts]
    return "\n\n".join(text for text in texts if text)


@runtime_checkable
class ExpandablePrompt(PromptPart, Protocol):
    """A prompt-writing facade whose reads analysis can list (``read_section``):
    ``expansion_keys()`` names each read that shows more text or opens tools,
    ``expansion_arguments(key)`` gives that call's arguments and
    ``expansion_texts(key)`` the key's own text before and after it is read.

    >>> class Notes:
    ...     name = "notes"
    ...     def prompt_text(self, unfolds): return f"{len(unfolds)} notes read"
    ...     def expansion_keys(self): return ["a"]
    ...     def expansion_arguments(self, key): return {"key": key}
    ...     def expansion_texts(self, key): return ("A, in short.", "A, in full.")
    >>> isinstance(Notes(), ExpandablePrompt)
    True
    """

    def expansion_keys(self) -> Sequence[str]:
        """The keys of the reads that change the prompt or the tools, in order."""
        ...

    def expansion_arguments(self, key: str) -> dict[str, Any]:
        """The arguments of the call that reads ``key``."""
        ...

    def expansion_texts(self, key: str) -> tuple[str | None, str]:
        """The text ``key`` adds to the prompt while it is not read (None when it shows
        nothing of its own then, or the same text as read) and once read, without the
        text of the keys below it."""
        ...


def expandable_prompts(graph: DisclosureGraph) -> list[ExpandablePrompt]:
    """The prompt-writing facades of ``graph`` whose reads analysis can list."""
    return [part for part in prompt_parts(graph) if isinstance(part, ExpandablePrompt)]
