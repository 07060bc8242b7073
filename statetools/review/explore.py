"""explore(graph) -> Exploration: every visible set a run can show, breadth first.

The search runs over abstract disclosure states: call counts (only as high as some
``After`` needs), the state of each machine, the unfolded facades, and whether any
call succeeded yet. One tool call per model turn. What the analysis cannot decide is
taken both ways: a ``When`` condition, an artifact or a blackboard value may hold or
not at any time (an artifact only after a call), and a guarded transition may fire
or not. Failed calls change nothing, so they are not followed.

>>> exploration = explore(graph)  # doctest: +SKIP
>>> exploration.min_turns  # doctest: +SKIP
{'search': 0, 'analyze': 1, 'report': 2}
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import attrs

from statetools.engine.code_view import ScriptTool
from statetools.engine.graph import DisclosureGraph
from statetools.errors import StatetoolsError
from statetools.review.exploration import Exploration as Exploration
from statetools.review.exploration import VisibleSet as VisibleSet
from statetools.review.model import DesignView, as_graph
from statetools.review.prompt_states import Expanded, PromptTexts, prompt_states
from statetools.review.space import AbstractState, Space
from statetools.review.tokens import Provider, array_tokens, count_text, entry_texts
from statetools.tools.tool import BaseTool

DEFAULT_MAX_STATES = 10_000


class ExplorationTooLarge(StatetoolsError):
    """The design has more abstract disclosure states than ``max_states``.

    ``depth`` is the turn the search had reached; ``explore(..., max_depth=depth - 1)``
    covers every turn before it.

    >>> a, b, c = (st.Tool.create(name, name.upper(), lambda: "ok") for name in "abc")
    >>> more = st.PlaybookTool("more", "More").with_tool(c).unlocked_by("a", "b")
    >>> graph = st.disclosure_graph(a, b, more)
    >>> try:
    ...     explore(graph, max_states=3)
    ... except ExplorationTooLarge as error:
    ...     print(error.depth, error.states, error.hint)
    2 3 pass max_depth=1 to explore the first turns only, or a larger max_states
    >>> explore(graph, max_states=3, max_depth=1).min_turns  # c needs turn 2
    {'a': 0, 'b': 0}
    """

    def __init__(self, message: str, *, depth: int, states: int, hint: str) -> None:
        self.depth = depth
        self.states = states
        super().__init__(message, hint=hint)


@attrs.frozen
class Progress:
    """How far :func:`explore` got: states seen, states waiting, the current turn.

    >>> a, b, c = (st.Tool.create(name, name.upper(), lambda: "ok") for name in "abc")
    >>> more = st.PlaybookTool("more", "More").with_tool(c).unlocked_by("a", "b")
    >>> graph = st.disclosure_graph(a, b, more)
    >>> seen: list[Progress] = []
    >>> _ = explore(graph, progress=seen.append)
    >>> seen[-1]
    Progress(states=4, queued=0, depth=2)
    """

    states: int
    queued: int
    depth: int


def flat_tools(graph: Any) -> list[BaseTool]:
    """Every tool a design would send at once without disclosure: the registered tools
    except facades and code mode's script tools (the tools inside them count instead).

    >>> tools_tokens(flat_tools(graph))  # the "flat" size  # doctest: +SKIP
    25688
    """
    design = DesignView(as_graph(graph))
    skipped = {**design.facades, **design.graph.code_modes}  # their tools count instead
    return [entry.tool for name, entry in design.entries.items() if name not in skipped]


def explore(
    graph: Any,
    *,
    provider: Provider = "openai",
    max_states: int = DEFAULT_MAX_STATES,
    max_depth: int | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> Exploration:
    """Breadth-first search over a design's abstract disclosure states.

    ``graph`` is a :class:`~statetools.DisclosureGraph` (or tools and definitions).
    Stops after ``max_depth`` turns when given; raises :class:`ExplorationTooLarge`
    when more than ``max_states`` states are found. ``progress`` is called now and
    then with a :class:`Progress` (for a progress bar). With sections, the reads that
    open tools are steps, and ``prompt_states`` reports each tool state's prompt text
    from its fewest to its most reads (no subsets of reads are enumerated).

    >>> search = Tool.create("search", "Search the web", lambda query: "found")
    >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
    >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
    >>> exploration = explore(st.disclosure_graph(research.unlocked_by(search)))
    >>> exploration.min_turns["analyze"], exploration.paths["analyze"]
    (1, ('search',))
    """
    design = DesignView(as_graph(graph))
    return search(design, provider, max_states, max_depth, progress, stop_at_limit=False)


def search(
    design: DesignView,
    provider: Provider,
    max_states: int,
    max_depth: int | None,
    progress: Callable[[Progress], None] | None = None,
    *,
    stop_at_limit: bool,
) -> Exploration:
    """The search behind :func:`explore`. With ``stop_at_limit``, reaching
    ``max_states`` ends the search after the last turn it covered completely instead of
    raising (the result is then not ``complete``)."""
    space = Space(design)
    prompts = PromptTexts(design)
    start = space.start()
    path_of: dict[AbstractState, tuple[str, ...]] = {start: ()}
    queue: deque[AbstractState] = deque([start])
    found: dict[tuple[str, ...], tuple[str, ...]] = {}
    prompted: dict[tuple[Expanded, tuple[str, ...]], tuple[tuple[str, ...], Expanded]] = {}
    first: dict[str, tuple[str, ...]] = {}
    dead_ends: list[tuple[str, ...]] = []
    limit = max_depth
    deepest = 0
    complete = True
    expanded = 0
    while queue:
        state = queue.popleft()
        path = path_of[state]
        depth = len(path)
        if limit is not None and depth > limit:
            break  # the rest of the queue is one turn too deep
        deepest = max(deepest, depth)
        callable_now: dict[str, None] = {}
        shows_any = False
        for assignment in space.assignments(state):
            tools = space.visible(state, assignment)
            shows_any = shows_any or bool(tools)
            reachable = space.callable_tools(state, assignment)
            callable_now.update(dict.fromkeys(reachable))
            found.setdefault(tools, path)
            read = (prompts.ordered(state.opened), tools)
            if prompts.readings and read not in prompted:
                prompted[read] = (path, prompts.most_reads(state.opened, reachable))
            for name in tools:
                first.setdefault(name, path)
        if not shows_any and not space.may_end(state):
            dead_ends.append(path)
        expanded += 1
        if progress is not None and expanded % 500 == 0:
            progress(Progress(len(path_of), len(queue), depth))
        if limit is not None and depth >= limit:
            complete = complete and all(
                successor in path_of
                for tool in callable_now
                for successor, _ in space.after(state, tool)
            )
            continue
        for tool in callable_now:
            for successor, step in space.after(state, tool):
                if successor in path_of:
                    continue
                if len(path_of) >= max_states:
                    if not stop_at_limit:
                        raise ExplorationTooLarge(
                            f"the design has more than {max_states:,} disclosure states "
                            f"(explored {expanded:,}, reaching turn {depth + 1})",
                            depth=depth + 1,
                            states=len(path_of),
                            hint=f"pass max_depth={depth} to explore the first turns only, "
                            "or a larger max_states",
                        )
                    limit = depth  # finish this turn, go no further
                    complete = False
                    break
                path_of[successor] = (*path, step)
                queue.append(successor)
            if limit == depth:
                break
    if progress is not None:
        progress(Progress(len(path_of), 0, deepest))
    states = sum(1 for path in path_of.values() if len(path) <= deepest)
    exploration = _result(design, provider, found, first, states, deepest, complete)
    return attrs.evolve(
        exploration,
        dead_ends=tuple(dead_ends),
        prompt_states=prompt_states(prompts, provider, prompted),
        prompt_sections=prompts.costs() if prompts.readings else (),
    )


def _result(
    design: DesignView,
    provider: Provider,
    found: dict[tuple[str, ...], tuple[str, ...]],
    first: dict[str, tuple[str, ...]],
    states: int,
    depth: int,
    complete: bool,
) -> Exploration:
    entries = design.entries
    texts = {name: entry_texts([entry.tool], provider)[0] for name, entry in entries.items()}
    shown = _ShownTexts(design.graph, texts, provider)
    sets = tuple(
        VisibleSet(tools, array_tokens(shown.of(tools)), path) for tools, path in found.items()
    )
    modes = design.graph.code_modes
    flat = [texts[name] for name in entries if name not in design.facades and name not in modes]
    position = {name: index for index, name in enumerate(entries)}
    ordered = sorted(first, key=lambda name: (len(first[name]), position[name]))
    return Exploration(
        visible_sets=tuple(sorted(sets, key=lambda s: s.turns)),
        min_turns={name: len(first[name]) for name in ordered},
        paths={name: first[name] for name in ordered},
        never_visible=tuple(name for name in entries if name not in first),
        tool_tokens={name: count_text(text) for name, text in texts.items()},
        flat_tokens=array_tokens(flat),
        states=states,
        depth=depth,
        complete=complete,
        provider=provider,
    )


class _ShownTexts:
    """The entries a visible set sends, as the model is shown them: with code mode the
    tools of a code-mode item are left out and its script tool lists them."""

    def __init__(self, graph: DisclosureGraph, texts: dict[str, str], provider: Provider) -> None:
        self.graph = graph
        self.texts = texts
        self.provider = provider

    def of(self, tools: tuple[str, ...]) -> list[str]:
        """The entry texts of the visible set ``tools``."""
        graph, texts = self.graph, self.texts
        if not graph.code_modes:
            return [texts[name] for name in tools]
        member_of, entries = graph.code_member_of, graph.entries
        shown: list[str] = []
        for name in tools:
            if name in member_of:
                continue
            tool = entries[name].tool
            if name in graph.code_modes and isinstance(tool, ScriptTool):
                own = [entries[n].tool for n in tools if member_of.get(n) == name]
                shown.append(entry_texts([tool.showing(own)], self.provider)[0])
            else:
                shown.append(texts[name])
        return shown
