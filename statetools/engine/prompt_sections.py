"""Prompt sections and the system prompt text facades write, as the engine sees them.

A facade that reads prompt sections (``read_section``, built by
:class:`~statetools.Sections` in a higher layer) describes its tree with an
:class:`Outline`; :func:`outline_elements` turns it into the graph's ``section`` nodes
and their edges:

- ``expands``: the facade -> each top-level section, a section -> each child section
  (reading a section shows its children), and a section -> each tool attached to it
  that waits for a read (reading the section, or one above it, opens the tool);
- ``contains``: a section -> a tool attached to it that is shown from the start (no
  summary section at or above it).

>>> outline = Outline((OutlineSection("a", "A", None, "summary", "About A.", ("t",), True),))
>>> nodes, edges = outline_elements("read_section", outline, tool_node)
>>> [node for node, _ in nodes], edges
(['section:read_section/a'], [('facade:read_section', 'section:read_section/a', 'expands'), \
('section:read_section/a', 'tool:t', 'expands')])

A facade that also writes part of the system prompt (``read_section``) is a
:class:`PromptPart`: its ``prompt_text(unfolds)`` method gives the text it adds to the
system prompt after the unfolds so far (the arguments of each, in order). The loop
places that text in a system message of its own (:func:`place_prompt`) and, for a
model whose tools cannot change within a conversation, writes it again when the
conversation restarts (:func:`refresh_prompt`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import attrs

from statetools.engine.graph_index import facade_node, section_node, tool_node
from statetools.errors import DefinitionError
from statetools.messages import Message, SystemMessage

if TYPE_CHECKING:
    from statetools.engine.graph import DisclosureGraph
    from statetools.engine.scheduler import Scheduler


@attrs.frozen
class OutlineSection:
    """One section: its ``path`` (``billing.disputes``), ``title``, ``parent`` path,
    ``visibility``, ``summary``, the names of the ``tools`` attached to it, and whether
    those tools wait for a read (``gated``: a summary section at or above it)."""

    path: str
    title: str
    parent: str | None
    visibility: Literal["summary", "full"]
    summary: str | None
    tools: tuple[str, ...] = ()
    gated: bool = False
    opens: tuple[str, ...] = ()
    """The tools reading it opens (its own, its descendants', and those opened by any
    read), in order."""


@attrs.frozen
class Outline:
    """A facade's sections in document order, and the paths defined more than once:
    ``(path, occurrence)`` with occurrence 2 for the second definition, 3 for the
    third, ... (only the first of them is read; ``check`` reports the others)."""

    sections: tuple[OutlineSection, ...]
    duplicates: tuple[tuple[str, int], ...] = ()


@runtime_checkable
class Outlined(Protocol):
    """A facade whose unfolding reads prompt sections.

    A Protocol because the facades that are one live in higher layers (``sections``).

    >>> class Notes:
    ...     name = "notes"
    ...     def outline(self) -> Outline:
    ...         return Outline(())
    >>> isinstance(Notes(), Outlined)
    True
    """

    name: str

    def outline(self) -> Outline:
        """The sections the facade reads."""
        ...


Element = tuple[str, dict[str, Any]]
Link = tuple[str, str, str]


def outline_elements(
    facade: str, outline: Outline, node_of: Callable[[str], str] = tool_node
) -> tuple[list[Element], list[Link]]:
    """The ``section`` nodes (id, attributes) and the edges (source, target, kind) of
    the sections of ``facade``; ``node_of`` gives a tool's node id."""
    nodes: list[Element] = []
    edges: list[Link] = []
    for section in outline.sections:
        node = section_node(facade, section.path)
        attributes = {
            "label": section.title,
            "facade": facade,
            "path": section.path,
            "visibility": section.visibility,
            "summary": section.summary,
            "gated": section.gated,
            "opens": section.opens,
        }
        nodes.append((node, attributes))
        parent = facade_node(facade) if section.parent is None else None
        edges.append((parent or section_node(facade, str(section.parent)), node, "expands"))
        for tool in section.tools:
            edges.append((node, node_of(tool), "expands" if section.gated else "contains"))
    return nodes, edges


def refuse_duplicate_sections(outlines: Mapping[str, Outline]) -> None:
    """Raise :class:`~statetools.DefinitionError` when two sections of a facade share a
    path (a run refuses them; ``check`` reports them as ST017).

    >>> refuse_duplicate_sections({"read_section": Outline((), (("a", 2),))})
    Traceback (most recent call last):
    statetools.errors.DefinitionError: read_section: more than one section has the key a ...
    """
    for facade, outline in outlines.items():
        if outline.duplicates:
            paths = ", ".join(dict.fromkeys(path for path, _ in outline.duplicates))
            raise DefinitionError(
                f"more than one section has the key {paths}",
                path=facade,
                hint="give every section its own key among its siblings "
                "(statetools check lists them)",
            )


@runtime_checkable
class PromptPart(Protocol):
    """A facade that writes part of the system prompt.

    A Protocol because the facades that are one live in higher layers (``sections``,
    ``mcp``).

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


def _prompt_parts(graph: DisclosureGraph) -> list[PromptPart]:
    """The facades of ``graph`` that write prompt text, in registration order."""
    return [facade for facade in graph.facades.values() if isinstance(facade, PromptPart)]


def _prompt_unfolds(
    graph: DisclosureGraph, unfolds: Sequence[tuple[str, str]]
) -> list[tuple[str, dict[str, Any]]]:
    """The entries of an unfold log (``DisclosureState.unfolds``) that belong to
    prompt-writing facades, decoded."""
    names = {part.name for part in _prompt_parts(graph)}
    return [(name, json.loads(arguments)) for name, arguments in unfolds if name in names]


def prompt_text(
    graph: DisclosureGraph, unfolds: Sequence[tuple[str, str]], count: int | None = None
) -> str | None:
    """The system prompt text of the prompt-writing facades of ``graph`` after the
    first ``count`` of their ``unfolds`` (all when None); None when there are none.

    >>> prompt_text(disclosure_graph(), ()) is None
    True
    """
    parts = _prompt_parts(graph)
    if not parts:
        return None
    entries = _prompt_unfolds(graph, unfolds)
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
    A Protocol because the facades that are one live in a higher layer (``sections``).

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
    return [part for part in _prompt_parts(graph) if isinstance(part, ExpandablePrompt)]


def place_prompt(
    scheduler: Scheduler, messages: list[Message], static: bool
) -> tuple[int | None, bool]:
    """Put the prompt text of the run's sections into ``messages``; returns the index of
    that system message (None when the run has no sections), and whether the first
    turn must restart the conversation.

    A history that already holds it (a resumed run) is kept as it is; when sections
    were read after it was written and the model cannot take new tools within a
    conversation (``static``), the first turn restarts the conversation (as the
    unbroken run did). Otherwise the message goes after the leading system messages
    (the loop's ``system_prompt``).

    >>> place_prompt(Scheduler.for_items([]), [], False)
    (None, False)
    """
    graph = scheduler.graph
    if not _prompt_parts(graph):
        return None, False
    unfolds = scheduler.snapshot().unfolds
    current = prompt_text(graph, unfolds)
    if current is None:
        return None, False
    known = {prompt_text(graph, unfolds, n) for n in range(len(_prompt_unfolds(graph, unfolds)))}
    known.add(current)
    for index, message in enumerate(messages):
        if isinstance(message, SystemMessage) and message.content in known:
            return index, static and message.content != current
    leading = 0
    while leading < len(messages) and isinstance(messages[leading], SystemMessage):
        leading += 1
    messages.insert(leading, SystemMessage(current))
    return leading, False


def refresh_prompt(scheduler: Scheduler, messages: list[Message], index: int | None) -> None:
    """Write the sections' prompt text again (at a conversation restart: the sections
    expanded so far now show in full).

    >>> refresh_prompt(Scheduler.for_items([]), [], None)
    """
    if index is None:
        return
    text = prompt_text(scheduler.graph, scheduler.snapshot().unfolds)
    if text is not None:
        messages[index] = SystemMessage(text)
