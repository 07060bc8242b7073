"""Designs read from files are checked before they run, and their findings name the file
and line of what they are about.

:func:`locations` maps the paths of :func:`~statetools.check` findings
(``playbook:research/tool:analyze``, ``machine:order/state:DRAFT``) to the lines of the
file; :class:`DesignCheck` is the ``preflight`` of every definition loaded from a file:
a ``ToolLoop`` run calls it with the run's graph, and a design with ``check`` errors
does not run.

>>> from statetools.spec.design import load_design
>>> search = Tool.create("search", "Search the web", lambda query: "found")
>>> report = Tool.create("report", "Write the report", lambda: "done")
>>> design = load_design('''
... kind: playbook
... name: research
... description: Research a topic
... tools:
...   - search
...   - tool: report
...     unlocked_by: serach
... ''', tools=[search, report])
>>> print(design.check(disable={"ST010"}).findings[0])  # doctest: +ELLIPSIS
line 7: playbook:research/tool:report: ST001 error [unknown-reference] ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import attrs

from statetools.code.mode import CodeMode
from statetools.definitions.machine import StateMachineTool
from statetools.definitions.playbook import PlaybookTool
from statetools.definitions.unfolding import UnfoldingTool
from statetools.engine.graph import DisclosureGraph
from statetools.errors import SpecError
from statetools.review.check import check
from statetools.review.findings import Finding, Report
from statetools.sections import Section, Sections
from statetools.spec.problems import Path as SpecPath
from statetools.spec.problems import line_of


def locations(
    definitions: Iterable[tuple[SpecPath, Any]], lines: Mapping[SpecPath, int]
) -> dict[str, int]:
    """Finding path (or its leading part) -> line, for definitions read at those paths."""
    found: dict[str, int] = {}
    definitions = list(definitions)

    def put(key: str, path: SpecPath) -> None:
        line = line_of(path, lines)
        if line is not None:
            found.setdefault(key, line)

    for path, definition in _with_code_items(definitions):
        if isinstance(definition, PlaybookTool):
            key = f"playbook:{definition.name}"
            put(key, path)
            for index, entry in enumerate(definition.entries):
                put(f"{key}/{_kind(entry.tool)}:{entry.tool.name}", (*path, "tools", index))
        elif isinstance(definition, StateMachineTool):
            key = f"machine:{definition.name}"
            put(key, path)
            for state in definition.state_names:
                put(f"{key}/state:{state}", (*path, "states", state))
            for tool in definition.tools:
                states = definition.states_of(tool.name)
                if tool.name in definition.global_tools or not states:
                    put(f"{key}/{_kind(tool)}:{tool.name}", (*path, "global_tools"))
                else:
                    put(f"{key}/{_kind(tool)}:{tool.name}", (*path, "states", states[0]))
        elif isinstance(definition, UnfoldingTool):
            put(f"facade:{definition.name}", path)
        elif isinstance(definition, Sections):
            put(f"facade:{definition.tool_name}", path)
            if definition.folder is None:  # skills live in their SKILL.md files
                _section_lines(f"facade:{definition.tool_name}", definition, path, put)
    for _, definition in definitions:
        for facade in _facades(definition):
            _held_lines(facade, found)
    return found


def _facades(item: Any) -> Iterator[UnfoldingTool]:
    """The facades in a definition, at any depth (not in the playbooks and machines a
    facade holds: those are definitions of their own)."""
    if isinstance(item, UnfoldingTool):
        yield item
        for tool in item.inner:
            yield from _facades(tool)
    elif isinstance(item, PlaybookTool | StateMachineTool):
        for tool in item.tools:
            yield from _facades(tool)


def _held_lines(facade: UnfoldingTool, found: dict[str, int]) -> None:
    """The tools of the playbooks and machines ``facade`` holds are named after the
    facade in findings (``facade:find/tool:start``): their lines are the definitions'."""
    for member in facade.members:
        kind = "playbook" if isinstance(member, PlaybookTool) else "machine"
        for tool in member.tools:
            line = found.get(f"{kind}:{member.name}/{_kind(tool)}:{tool.name}")
            if line is not None:
                found.setdefault(f"facade:{facade.name}/{_kind(tool)}:{tool.name}", line)


def _with_code_items(
    definitions: Iterable[tuple[SpecPath, Any]],
) -> Iterator[tuple[SpecPath, Any]]:
    """``definitions`` and, after each code mode, its items at their paths."""
    for path, definition in definitions:
        yield path, definition
        if isinstance(definition, CodeMode):
            items = definition.code_mode_items
            yield from _with_code_items(((*path, "items", i), d) for i, d in enumerate(items))


def _section_lines(
    key: str, sections: Sections, path: SpecPath, put: Callable[[str, SpecPath], None]
) -> None:
    """Lines of the sections of ``kind: sections`` (the second section with a path
    is ``section:PATH@2``, as ST017 names it)."""
    seen: dict[str, int] = {}

    def walk(section: Section, at: SpecPath, parent: str | None) -> None:
        name = section.key if parent is None else f"{parent}.{section.key}"
        seen[name] = seen.get(name, 0) + 1
        suffix = "" if seen[name] == 1 else f"@{seen[name]}"
        put(f"{key}/section:{name}{suffix}", at)
        if suffix:
            return  # the tree keeps the first section with a path only
        for index, tool in enumerate(section.tools):
            put(f"{key}/section:{name}/tool:{tool.name}", (*at, "tools", index))
        for index, child in enumerate(section.children):
            walk(child, (*at, "children", index), name)

    for index, root in enumerate(sections.sections):
        walk(root, (*path, "sections", index), None)


class Locations(Mapping[str, int]):
    """:func:`locations`, worked out when a finding first asks for a line (finding the
    lines of a large file means parsing it again, which a design without findings,
    or one never checked, need not pay for)."""

    def __init__(
        self, definitions: Iterable[tuple[SpecPath, Any]], lines: Mapping[SpecPath, int]
    ) -> None:
        self._definitions = definitions  # read on first use: the caller may still fill it
        self._lines = lines
        self._found: dict[str, int] | None = None

    def _all(self) -> dict[str, int]:
        if self._found is None:
            self._found = locations(self._definitions, self._lines)
        return self._found

    def __getitem__(self, key: str) -> int:
        return self._all()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def _kind(tool: Any) -> str:
    return "facade" if isinstance(tool, UnfoldingTool) else "tool"


@attrs.frozen(eq=False)
class DesignCheck:
    """The check a design read from ``source`` runs before it runs (its definitions'
    ``preflight``), and the locator of its findings."""

    source: str | None
    """The file (None for text and data)."""
    lines: Mapping[str, int]
    """Finding path -> line (see :func:`locations`)."""

    def locate(self, report: Report) -> Report:
        """The report with each finding's ``source`` set to ``FILE:LINE`` where known."""
        return Report(tuple(self._locate(f) for f in report.findings), report.disabled)

    def _locate(self, finding: Finding) -> Finding:
        parts = finding.path.split("/")
        for end in range(len(parts), 0, -1):
            line = self.lines.get("/".join(parts[:end]))
            if line is not None:
                where = f"{self.source}:{line}" if self.source else f"line {line}"
                return attrs.evolve(finding, source=where)
        return finding if self.source is None else attrs.evolve(finding, source=self.source)

    def report(self, graph: DisclosureGraph, **options: Any) -> Report:
        """``check(graph, **options)`` with located findings."""
        return self.locate(check(graph, **options))

    def __call__(self, graph: DisclosureGraph) -> None:
        """Refuse to run a design with check errors (the token budget is not checked
        here: it needs a full exploration, and a large design may still run)."""
        report = self.report(graph, token_budget=None)
        if report.errors:
            raise design_refused(report, self.source)


def design_refused(report: Report, source: str | None) -> SpecError:
    """The error of a run refused because ``check`` found errors."""
    count = len(report.errors)
    listed = "\n".join(f"  {finding}" for finding in report.errors)
    return SpecError(
        f"the design has {count} check error{'' if count == 1 else 's'}; it does not run:\n"
        f"{listed}\n",
        path=source,
        hint="fix them (statetools check FILE lists them all), or run anyway with "
        "ToolLoop(..., check_design=False) or statetools run --no-check",
    )
