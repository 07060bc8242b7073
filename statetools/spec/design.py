"""Loading a file of definitions: :func:`load_design`, :func:`load_playbook` and :class:`Design`.

>>> from statetools import Tool
>>> search = Tool.create("search", "Search the web", lambda q: f"results for {q}")
>>> summarize = Tool.create("summarize", "Summarize the results", lambda: "summary")
>>> playbook = load_playbook('''
... kind: playbook
... name: research
... description: Research a topic
... tools:
...   - search
...   - tool: summarize
...     unlocked_by: search
... ''', tools=[search, summarize])
>>> [tool.name for tool in playbook.tools], playbook.conditions["summarize"]
(['search', 'summarize'], After(tools=('search',), count=1))
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import attrs

from statetools.code.mode import CodeMode
from statetools.definitions.items import as_tool
from statetools.definitions.machine import StateMachineTool
from statetools.definitions.playbook import PlaybookTool
from statetools.engine.graph import disclosure_graph
from statetools.errors import SpecError, StatetoolsError
from statetools.models.scripted import ScriptedModel, Step
from statetools.review.findings import Report
from statetools.safeyaml import gc_paused
from statetools.spec.converter import ReadContext, converter, declared_states, reading
from statetools.spec.forms import DOCUMENT_KEYS, Definition, DocumentForm
from statetools.spec.preflight import DesignCheck, Locations
from statetools.spec.problems import RawProblem, problems_of, spec_error
from statetools.spec.references import is_import_path
from statetools.spec.source import SourceLike, read_source
from statetools.tools.tool import BaseTool

ToolRegistry = Sequence[Any] | Mapping[str, Any]
"""Tools that definitions may name: a list (by each tool's name) or ``{name: tool}``.

>>> search = Tool.create("search", "Search the web", lambda query: "found")
>>> text = "definitions:\\n  - {kind: playbook, name: r, description: R, tools: [find]}\\n"
>>> registry: ToolRegistry = {"find": search}
>>> [tool.name for tool in load_playbook(text, tools=registry).tools]
['search']
"""


@attrs.frozen
class Design:
    """A loaded file: its definitions and what ``statetools run`` needs to run them.

    ``definitions`` are the playbooks and machines, in file order (those a facade's
    ``tools:`` names sit inside that facade instead). ``catalogue`` holds
    every schema-only tool imported with ``tools_from`` (whether used or not).
    ``script``, ``prompt`` and ``system_prompt`` drive an offline demo run.

    >>> design = load_design("definitions: []\\nprompt: Hello")
    >>> design.prompt, design.definitions
    ('Hello', ())
    """

    definitions: tuple[Definition, ...] = ()
    catalogue: tuple[BaseTool, ...] = ()
    tools_from: tuple[str, ...] = ()
    script: tuple[Step, ...] | None = None
    prompt: str | None = None
    system_prompt: str | None = None
    context: Callable[[], Mapping[str, Any]] | Mapping[str, Any] | None = None
    """The ``context:`` of the file: a factory (called by :meth:`run_context`) or data."""
    source: str | None = None
    """The file it was read from (None for text and data)."""
    base_dir: Path = attrs.field(factory=Path.cwd, eq=False)
    checker: DesignCheck | None = attrs.field(default=None, eq=False, repr=False)
    """Runs ``check`` on the design and places findings in the file (see :meth:`check`)."""
    mcp_servers: Mapping[str, Any] = attrs.field(factory=dict, eq=False)
    """``mcp_servers:`` of the file: name -> ``statetools.mcp.MCPServer``."""

    def check(self, **options: Any) -> Report:
        """:func:`~statetools.check` of the design's graph, each finding with the file and
        line it is about (``options`` go to ``check``).

        >>> tools = [{"tool": "s", "unlocked_by": "x"}]
        >>> data = {"kind": "playbook", "name": "p", "description": "P", "tools": tools}
        >>> print(load_design(data, tools=[Tool.create("s", "S", lambda: "")]).check().errors[0])
        playbook:p/tool:s: ST001 error [unknown-reference] ...
        """
        checker = self.checker or DesignCheck(self.source, {})
        items = self.definitions or self.catalogue
        return checker.report(disclosure_graph(*items), **options)

    @property
    def tools(self) -> list[Any]:
        """What to pass as ``ToolLoop.run(..., tools=design.tools)``.

        >>> data = {"kind": "playbook", "name": "p", "description": "P", "tools": ["s"]}
        >>> design = load_design(data, tools=[Tool.create("s", "S", lambda: "")])
        >>> [item.name for item in design.tools]
        ['p']
        """
        return list(self.definitions)

    def run_context(self) -> dict[str, Any]:
        """A fresh context for one run: the factory's result, or a copy of the data.

        >>> load_design("context: {user: ada}").run_context()
        {'user': 'ada'}
        """
        if self.context is None:
            return {}
        if isinstance(self.context, Mapping):
            return copy.deepcopy(dict(self.context))
        made = self.context()
        if not isinstance(made, Mapping):
            raise SpecError(
                f"the context factory returned {type(made).__name__}, not a mapping",
                path=self.source,
                hint="return a dict from the function named by 'context:'",
            )
        return dict(made)

    def scripted_model(self) -> ScriptedModel | None:
        """A new :class:`~statetools.models.ScriptedModel` playing ``script`` (None without one).

        >>> load_design("script: [{answer: Done.}]").scripted_model().remaining
        1
        """
        return None if self.script is None else ScriptedModel(list(self.script))


def _registry(tools: ToolRegistry | None) -> dict[str, BaseTool]:
    if tools is None:
        return {}
    try:
        if isinstance(tools, Mapping):
            return {str(name): as_tool(tool) for name, tool in tools.items()}
        registry: dict[str, BaseTool] = {}
        for item in tools:
            tool = as_tool(item)
            registry[tool.name] = tool
        return registry
    except StatetoolsError as exc:
        raise SpecError(
            f"tools= holds something that is not a tool: {exc.message}",
            path="tools=",
            hint="pass Tool objects or @llm_tool functions, as a list or {name: tool}",
        ) from exc


def _raw_definitions(data: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    """(path, raw mapping) of every definition in the data, for the pre-scan."""
    if isinstance(data, list):
        return [((index,), item) for index, item in enumerate(data)]
    if isinstance(data, Mapping):
        if "kind" in data:
            return [((), data)]
        items = data.get("definitions")
        if isinstance(items, list):
            return [(("definitions", index), item) for index, item in enumerate(items)]
    return []


def _with_code_items(
    definitions: list[tuple[tuple[str | int, ...], Any]],
) -> list[tuple[tuple[str | int, ...], Any]]:
    """``definitions`` and, after each ``kind: code_mode``, the definitions among its
    items (their machines' states and names count as the others')."""
    found: list[tuple[tuple[str | int, ...], Any]] = []
    for path, raw in definitions:
        found.append((path, raw))
        if not isinstance(raw, Mapping) or raw.get("kind") != "code_mode":
            continue
        items = raw.get("items")
        if isinstance(items, list):
            inner = [((*path, "items", i), item) for i, item in enumerate(items)]
            found.extend((at, item) for at, item in inner if isinstance(item, Mapping))
    return found


def _paths(data: Any) -> list[tuple[str | int, ...]]:
    """The path of each definition, in the order they are built."""
    return [path for path, _ in _raw_definitions(data)]


def _with_preflight(definition: Definition, checker: DesignCheck) -> Definition:
    """Playbooks and machines from a file (those of a code mode too) check the design
    before a run (see :class:`~statetools.spec.preflight.DesignCheck`)."""
    if isinstance(definition, PlaybookTool | StateMachineTool):
        return attrs.evolve(definition, preflight=checker)
    if isinstance(definition, CodeMode):
        items = [_with_preflight(item, checker) for item in definition.code_mode_items]
        return cast(Definition, definition.with_items(*items))
    return definition


_TOOL_LISTS = ("tools", "global_tools")


def _tool_paths(data: Any, found: list[str]) -> None:
    """Import paths written where a tool goes (``tools:`` items, ``tool:`` values)."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            if key in _TOOL_LISTS and isinstance(value, list):
                found.extend(v for v in value if isinstance(v, str) and is_import_path(v))
            elif key == "tool" and isinstance(value, str) and is_import_path(value):
                found.append(value)
            _tool_paths(value, found)
    elif isinstance(data, list):
        for item in data:
            _tool_paths(item, found)


def _prescan(data: Any, context: ReadContext) -> list[RawProblem]:
    """Machine states for InState checks, definitions that share a name, and the import
    paths of tools (their names may be used before the path is read)."""
    _tool_paths(data, context.pending)
    problems: list[RawProblem] = []
    seen: dict[str, tuple[str | int, ...]] = {}
    for path, raw in _with_code_items(_raw_definitions(data)):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            continue
        name = raw["name"]
        if raw.get("kind") == "machine":
            context.machines[name] = declared_states(raw)
        if name in seen:
            problems.append(
                RawProblem(
                    (*path, "name"),
                    f"two definitions are named '{name}'",
                    hint="give every definition its own name",
                )
            )
        seen.setdefault(name, path)
    return problems


def _attempt(problems: list[RawProblem], structure: Any, *args: Any) -> Any:
    try:
        return structure(*args)
    except Exception as exc:  # every problem becomes part of one SpecError
        problems.extend(problems_of(exc))
        return None


def _structure(data: Any, problems: list[RawProblem]) -> tuple[DocumentForm, tuple[Any, ...]]:
    if isinstance(data, list):
        definitions = _attempt(problems, converter.structure, data, tuple[Definition, ...])
        return DocumentForm(), definitions or ()
    if not isinstance(data, Mapping):
        problems.append(
            RawProblem(
                (),
                "expected a definition (a mapping with 'kind'), a document with "
                "'definitions:', or a list of definitions",
            )
        )
        return DocumentForm(), ()
    if "kind" in data or not (set(data) <= {*DOCUMENT_KEYS, "definitions", "tools"}):
        head = {key: value for key, value in data.items() if key in DOCUMENT_KEYS}
        rest = {key: value for key, value in data.items() if key not in DOCUMENT_KEYS}
        document = _attempt(problems, converter.structure, head, DocumentForm)
        definition = _attempt(problems, converter.structure, rest, Definition)
        return document or DocumentForm(), () if definition is None else (definition,)
    document = _attempt(problems, converter.structure, data, DocumentForm)
    if document is None:
        return DocumentForm(), ()
    return document, document.definitions


def load_design(
    source: SourceLike,
    tools: ToolRegistry | None = None,
    *,
    base_dir: str | os.PathLike[str] | None = None,
) -> Design:
    """Read a file (or YAML/JSON text, or a dict/list) into a :class:`Design`.

    ``tools`` are the tools the definitions may name (a list, or ``{name: tool}``);
    tools can also be named by import path, or come schema-only from ``tools_from``.
    Relative paths in the file start at its folder (or ``base_dir``).

    Raises :class:`~statetools.SpecError` listing every problem, each with its path
    and line; it never raises anything else for bad input.

    >>> search = Tool.create("search", "Search the web", lambda query: "found")
    >>> playbook = {"kind": "playbook", "name": "research", "description": "Research"}
    >>> design = load_design({"definitions": [{**playbook, "tools": ["search"]}]}, tools=[search])
    >>> [definition.name for definition in design.definitions]
    ['research']
    """
    read = read_source(source, base_dir=base_dir)
    context = ReadContext(base_dir=read.base_dir, registry=_registry(tools))
    problems: list[RawProblem] = []
    located: list[tuple[tuple[str | int, ...], Any]] = []  # filled once all are built
    checker = DesignCheck(read.name, Locations(located, read.lines))
    context.nesting.preflight = checker
    context.nesting.base = ("definitions",) if isinstance(read.data, Mapping) else ()
    with reading(context), gc_paused():
        try:
            problems.extend(_prescan(read.data, context))
            document, definitions = _structure(read.data, problems)
        except RecursionError:
            problems.append(RawProblem((), "the data is nested too deeply (or refers to itself)"))
        problems.extend(context.nesting.problems)
    if problems:
        raise spec_error(problems, read.lines, source=read.name)
    located.extend(context.nesting.located or zip(_paths(read.data), definitions, strict=False))
    return Design(
        definitions=tuple(_with_preflight(d, checker) for d in definitions),
        checker=checker,
        catalogue=tuple(context.catalogue.values()),
        tools_from=tuple(document.tools_from),
        script=None if document.script is None else tuple(document.script),
        prompt=document.prompt,
        system_prompt=document.system_prompt,
        context=None if document.context is None else document.context.value,
        source=read.name,
        base_dir=read.base_dir,
        mcp_servers=dict(document.mcp_servers),
    )


def load_playbook(
    source: SourceLike,
    tools: ToolRegistry | None = None,
    *,
    base_dir: str | os.PathLike[str] | None = None,
) -> Any:
    """The definition in a file (or YAML/JSON text, or a dict), or the list of them.

    Returns the single :class:`~statetools.PlaybookTool` or
    :class:`~statetools.StateMachineTool` when the source defines one, a list when it
    defines several. See :func:`load_design` for ``tools`` and errors.

    >>> load_playbook({"kind": "playbook", "name": "p", "description": "A playbook"}).name
    'p'
    """
    design = load_design(source, tools, base_dir=base_dir)
    if not design.definitions:
        raise spec_error(
            [
                RawProblem(
                    (),
                    "the source defines no playbook or machine",
                    "write 'kind: playbook' (or machine) with name and description",
                )
            ],
            source=design.source,
        )
    if len(design.definitions) == 1:
        return design.definitions[0]
    return list(design.definitions)
