"""Why a tool may not run now: the short text the model gets instead of its result
(and, with ``visibility="declared"``, the line a locked tool's description carries).

The scheduler asks :class:`Locks` when a call names a tool that is not visible (and,
for tools opened by a search facade, whether the tool found may open). The reasons,
in order: not part of the run, removed, kept by the facades around it (another
facade's exclusive scope, a facade that cannot be opened yet), the machine's state,
the unlock condition.

>>> search = Tool.create("search", "Search the web", lambda query: "found")
>>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
>>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
>>> scheduler = Scheduler.for_items([research.unlocked_by(search)])  # analyze after search
>>> scheduler.explain("analyze"), scheduler.explain("search"), scheduler.explain("nope")
("Tool 'analyze' is locked. Call first: search.", None, "Tool 'nope' is not part of this run.")
"""

from __future__ import annotations

from statetools.definitions.conditions import pending_tools, unmet_sentences
from statetools.definitions.search import SearchCall
from statetools.engine.graph import DisclosureGraph
from statetools.engine.recording import known
from statetools.engine.run_facts import RunFacts, state_reason
from statetools.engine.visibility import own_rules_hold
from statetools.engine.visible_tools import VisibleTools
from statetools.tools.tool import BaseTool

__all__ = ["Locks"]


class Locks:
    """The reasons of one run's scheduler: it reads the scheduler's two parts, what the
    run has done (``facts``) and what it shows (``visible``), through their owners,
    and keeps only the declared forms of locked tools it made."""

    def __init__(self, graph: DisclosureGraph, facts: RunFacts, visible: VisibleTools) -> None:
        self.graph = graph
        self._facts = facts
        self._visible = visible
        self._declared: dict[str, tuple[str, BaseTool]] = {}
        """Declared (locked) variants of tools, by name: (reason, tool with the line)."""

    def _own_rules_hold(self, name: str) -> bool:
        """Whether a registered tool's own state and condition let it show."""
        return own_rules_hold(self.graph.entries[name], self._facts)

    def explain(self, name: str) -> str | None:
        """Why ``name`` cannot be called now (the text the model gets), or None if it can."""
        if name in self._visible:
            return self._facts.bindings.reason(name)
        if name in self._facts.dynamic:
            return None
        if not known(self.graph, self._facts, name):
            return f"Tool '{name}' is not part of this run."
        if name in self._facts.removed:
            return f"Tool '{name}' was removed from this run."
        if self._facts.facades:
            reason = self._facade_reason(name)
            if reason:
                return reason
            if name not in self.graph.entries:
                return None
        reason = state_reason(self.graph, self._facts.machines, name)
        if reason:
            return reason
        condition = self.graph.entries[name].condition
        if condition is not None:
            sentences = unmet_sentences(condition, self._facts)
            if sentences:
                return f"Tool '{name}' is locked. {' '.join(sentences)}"
        return None

    def _facade_reason(self, name: str) -> str | None:
        """Why the facades around ``name`` keep it from running, said about ``name``:
        another facade's exclusive scope, a facade that cannot be opened now (and why),
        or the facades to call first."""
        facades = self._facts.unfolding
        if not facades.in_scope(name):
            return facades.reason(name)
        chain: list[str] = []
        parent = facades.enclosing(name)
        while parent is not None:
            chain.insert(0, parent)
            parent = facades.enclosing(parent)
        for outer in chain:
            if outer in self._facts.removed or (
                outer in self.graph.entries and not self._own_rules_hold(outer)
            ):
                why = self.explain(outer) or f"Tool '{outer}' is not available now."
                return f"Tool '{name}' is locked until '{outer}' can be opened. {why}"
        return facades.reason(name)

    def search_lock(self, facade: str, name: str) -> str | None:
        """Why ``name``, found by searching ``facade``, may not open now: a condition,
        a state or an exclusive facade keeps it or a facade on its way locked."""
        current: str | None = name
        while current is not None and current != facade:
            if current in self._facts.removed:
                return f"Tool '{current}' was removed from this run."
            if not self._facts.unfolding.in_scope(current):
                return self._facts.unfolding.reason(current)
            reason = state_reason(self.graph, self._facts.machines, current)
            condition = self.graph.entries[current].condition
            if reason is None and condition is not None:
                sentences = unmet_sentences(condition, self._facts)
                reason = f"Tool '{current}' is locked. {' '.join(sentences)}" if sentences else None
            if reason is not None:
                return reason
            current = self._facts.unfolding.enclosing(current)
        return None

    def search_needs(self, facade: str, name: str) -> list[str]:
        """The tools that ``name``, found by searching ``facade``, waits for: the calls
        the conditions of it and of the groups on its way still need (what the search
        brings along with it, when it holds them); none when it would not open by itself
        once they are made (see :meth:`search_waits`)."""
        if not self.search_waits(facade, name):
            return []
        needed: list[str] = []
        current: str | None = name
        while current is not None and current != facade:
            condition = self.graph.entries[current].condition
            if condition is not None:
                needed.extend(pending_tools(condition, self._facts))
            current = self._facts.unfolding.enclosing(current)
        return [tool for tool in dict.fromkeys(needed) if tool in self.graph.entries]

    def search_waits(self, facade: str, name: str) -> bool:
        """Whether ``name``, found locked by searching ``facade``, opens by itself once
        unlocked: it sits right below ``facade`` (no other facade on its way to open
        first), and what keeps it locked is a condition or a state, not a removal or
        another facade's exclusive scope."""
        unfolding = self._facts.unfolding
        return (
            unfolding.enclosing(name) == facade
            and name not in self._facts.removed
            and unfolding.in_scope(name)
        )

    def search_call(self, facade: str, tool: BaseTool) -> SearchCall:
        """Search facade ``facade`` (its visible ``tool``) as this run calls it."""
        return SearchCall.around(
            tool,
            locked=lambda found: self.search_lock(facade, found),
            needs=lambda found: self.search_needs(facade, found),
            waits=lambda found: self.search_waits(facade, found),
        )

    def declared_view(self) -> list[BaseTool]:
        """Every registered tool for ``visibility="declared"``: the visible ones as they
        are, locked ones with one more line saying what unlocks them (unfolded facades,
        and tools an exclusive facade put away, are left out)."""
        tools: list[BaseTool] = []
        for name, entry in self.graph.entries.items():
            if name in self._visible:
                tools.append(self._visible[name])
            elif name not in self._facts.removed and not self._put_away(name):
                tools.append(self._declared_tool(name, entry.tool))
        tools.extend(t for name, t in self._visible.items() if name not in self.graph.entries)
        return tools

    def _declared_tool(self, name: str, tool: BaseTool) -> BaseTool:
        """``tool`` with the line saying what unlocks it; kept while the reason holds."""
        reason = self.explain(name) or ""
        cached = self._declared.get(name)
        if cached is not None and cached[0] == reason:
            return cached[1]
        declared = tool.with_description(f"{tool.description}\n{reason}")
        self._declared[name] = (reason, declared)
        return declared

    def _put_away(self, name: str) -> bool:
        facades = self._facts.unfolding
        return self._facts.facades and (facades.replaced(name) or not facades.in_scope(name))
