"""The sections of a prompt as one tree: paths, gating, and the text the model sees."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence

import attrs

from statetools.engine.prompt_sections import Outline, OutlineSection
from statetools.errors import DefinitionError
from statetools.sections.section import Section
from statetools.tools.tool import BaseTool

_MAX_KEY_SHOWN = 80
"""Characters of an unknown key the answer repeats (a 1 MB key is cut)."""


@attrs.frozen
class Node:
    """A section at its place in the tree: its path, depth and parent's path.

    >>> tree = SectionTree([Section("a", "A", "x", children=[Section("b", "B", "y")])])
    >>> node = tree.nodes["a.b"]
    >>> node.path, node.section.title, node.depth, node.parent
    ('a.b', 'B', 1, 'a')
    """

    path: str
    section: Section
    depth: int
    parent: str | None


class SectionTree:
    """Every section of a :class:`~statetools.Sections` by path, in document order.

    >>> tree = SectionTree([Section("a", "A", "x", children=[Section("b", "B", "y")])])
    >>> list(tree.nodes)
    ['a', 'a.b']
    """

    def __init__(self, roots: Sequence[Section], tool_name: str = "read_section") -> None:
        self.roots = tuple(roots)
        self.tool_name = tool_name
        self.nodes: dict[str, Node] = {}
        self.duplicates: list[str] = []
        """Paths that two sections share (definitions refuse these)."""
        for root in self.roots:
            self._add(root, None, 0)

    def _add(self, section: Section, parent: str | None, depth: int) -> None:
        path = section.key if parent is None else f"{parent}.{section.key}"
        if path in self.nodes:
            self.duplicates.append(path)
            return
        self.nodes[path] = Node(path, section, depth, parent)
        for child in section.children:
            self._add(child, path, depth + 1)

    # gating -------------------------------------------------------------------------

    def gate_of(self, path: str) -> str | None:
        """The nearest summary section at or above ``path`` (its tools wait for it).

        >>> tree = SectionTree([Section("a", "A", "x", summary="About A", children=[
        ...     Section("b", "B", "y", visibility="full")])])
        >>> tree.gate_of("a.b"), tree.gate_of("a")
        ('a', 'a')
        """
        current: str | None = path
        while current is not None:
            node = self.nodes[current]
            if node.section.visibility == "summary":
                return current
            current = node.parent
        return None

    def subtree(self, path: str) -> list[str]:
        """``path`` and every path below it, in document order.

        >>> tree = SectionTree([Section("a", "A", "x", summary="About A", children=[
        ...     Section("b", "B", "y", visibility="full")])])
        >>> tree.subtree("a"), tree.subtree("a.b")
        (['a', 'a.b'], ['a.b'])
        """
        prefix = f"{path}."
        return [p for p in self.nodes if p == path or p.startswith(prefix)]

    def gated_tools(self, path: str) -> list[BaseTool]:
        """The tools that reading ``path`` opens: those of the section and its
        descendants that wait for some summary section.

        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> grep = Tool.create("grep", "Grep", lambda: "")
        >>> tree = SectionTree([
        ...     Section("intro", "Intro", "Hi.", visibility="full", tools=[ping]),
        ...     Section("logs", "Logs", "Read logs.", tools=[grep])])
        >>> [tool.name for tool in tree.gated_tools("logs")], tree.gated_tools("intro")
        (['grep'], [])
        """
        return [
            tool
            for p in self.subtree(path)
            if self.gate_of(p) is not None
            for tool in self.nodes[p].section.tools
        ]

    def open_tools(self) -> list[BaseTool]:
        """The tools shown from the start (no summary section above them).

        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> grep = Tool.create("grep", "Grep", lambda: "")
        >>> tree = SectionTree([
        ...     Section("intro", "Intro", "Hi.", visibility="full", tools=[ping]),
        ...     Section("logs", "Logs", "Read logs.", tools=[grep])])
        >>> [tool.name for tool in tree.open_tools()]
        ['ping']
        """
        return [
            tool
            for p, node in self.nodes.items()
            if self.gate_of(p) is None
            for tool in node.section.tools
        ]

    def all_tools(self) -> list[BaseTool]:
        """Every attached tool, in document order.

        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> grep = Tool.create("grep", "Grep", lambda: "")
        >>> tree = SectionTree([
        ...     Section("intro", "Intro", "Hi.", visibility="full", tools=[ping]),
        ...     Section("logs", "Logs", "Read logs.", tools=[grep])])
        >>> [tool.name for tool in tree.all_tools()]
        ['ping', 'grep']
        """
        return [tool for node in self.nodes.values() for tool in node.section.tools]

    def outline(self, opens: Mapping[str, Sequence[str]]) -> Outline:
        """The tree as the disclosure graph sees it; ``opens``: the tool names reading
        each path opens.

        >>> tree = SectionTree([Section("a", "A", "x", summary="About A", children=[
        ...     Section("b", "B", "y", visibility="full")])])
        >>> outline = tree.outline({"a": ["search"]})
        >>> [(section.path, section.opens) for section in outline.sections]
        [('a', ('search',)), ('a.b', ())]
        """
        sections = tuple(
            OutlineSection(
                path,
                node.section.title,
                node.parent,
                node.section.visibility,
                node.section.summary,
                tuple(tool.name for tool in node.section.tools),
                self.gate_of(path) is not None,
                tuple(opens.get(path, ())),
            )
            for path, node in self.nodes.items()
        )
        seen: dict[str, int] = {}
        duplicates: list[tuple[str, int]] = []
        for path in self.duplicates:
            seen[path] = seen.get(path, 1) + 1
            duplicates.append((path, seen[path]))
        return Outline(sections, tuple(duplicates))

    # text ---------------------------------------------------------------------------

    def expand_line(self, path: str) -> str:
        """The line under a summarized section telling the model how to read it.

        >>> tree = SectionTree([Section("a", "A", "x", summary="About A", children=[
        ...     Section("b", "B", "y", visibility="full")])])
        >>> tree.expand_line("a")
        '(Summary only: call read_section with key "a" to read it in full.)'
        """
        return f'(Summary only: call {self.tool_name} with key "{path}" to read it in full.)'

    def _heading(self, node: Node) -> str:
        return f"{'#' * min(node.depth + 2, 6)} {node.section.title}"

    def own_texts(self, path: str) -> tuple[str | None, str]:
        """``path``'s own text, without its children, as a summary (heading, summary,
        the line telling how to read it; None for a full section) and in full
        (heading, body).

        >>> tree = SectionTree([Section("a", "A", "x", summary="About A", children=[
        ...     Section("b", "B", "y", visibility="full")])])
        >>> summary, full = tree.own_texts("a.b")
        >>> summary is None, full.splitlines()
        (True, ['### B', '', 'y'])
        >>> print(tree.own_texts("a")[0])
        ## A
        <BLANKLINE>
        About A
        (Summary only: call read_section with key "a" to read it in full.)
        """
        node = self.nodes[path]
        heading = self._heading(node)
        full = f"{heading}\n\n{node.section.body}" if node.section.body else heading
        if node.section.visibility == "full":
            return None, full
        return self._summary(path), full

    def _summary(self, path: str) -> str:
        node = self.nodes[path]
        heading = self._heading(node)
        summary = f"{heading}\n\n{node.section.summary}" if node.section.summary else heading
        return f"{summary}\n{self.expand_line(path)}"

    def render_full(self, path: str, expanded: frozenset[str]) -> str:
        """``path`` in full: heading, body, then its children (each shown in full or as
        a summary).

        >>> tree = SectionTree([Section("a", "A", "x", summary="About A", children=[
        ...     Section("b", "B", "y", visibility="full")])])
        >>> print(tree.render_full("a", frozenset()))
        ## A
        <BLANKLINE>
        x
        <BLANKLINE>
        ### B
        <BLANKLINE>
        y
        """
        text = self.own_texts(path)[1]
        children = [self.render(p, expanded) for p in self._children(path)]
        return "\n\n".join([text, *children])

    def render_summary(self, path: str, expanded: frozenset[str]) -> str:
        """``path`` as a summary (with the sections below it that were read, in full).

        >>> tree = SectionTree([Section("a", "A", "x", summary="About A", children=[
        ...     Section("b", "B", "y", visibility="full")])])
        >>> print(tree.render_summary("a", frozenset()))
        ## A
        <BLANKLINE>
        About A
        (Summary only: call read_section with key "a" to read it in full.)
        """
        text = self._summary(path)
        below = [self.render_full(p, expanded) for p in self._read_below(path, expanded)]
        return "\n\n".join([text, *below])

    def render(self, path: str, expanded: frozenset[str]) -> str:
        """``path`` as the prompt shows it, given the paths read so far.

        >>> tree = SectionTree([Section("a", "A", "x", summary="About A", children=[
        ...     Section("b", "B", "y", visibility="full")])])
        >>> tree.render("a", frozenset({"a"})) == tree.render_full("a", frozenset({"a"}))
        True
        >>> tree.render("a", frozenset()) == tree.render_summary("a", frozenset())
        True
        """
        node = self.nodes[path]
        if node.section.visibility == "full" or path in expanded:
            return self.render_full(path, expanded)
        return self.render_summary(path, expanded)

    def prompt(self, expanded: Iterable[str] = ()) -> str:
        """The whole tree as prompt text, given the paths read so far (a top-level
        section whose key an earlier one has is not shown: the first one wins).

        >>> tree = SectionTree([Section("a", "A", "x"), Section("a", "Again", "y")])
        >>> print(tree.prompt(["a"]))
        ## A
        <BLANKLINE>
        x
        """
        read = frozenset(expanded)
        roots = [path for path, node in self.nodes.items() if node.parent is None]
        return "\n\n".join(self.render(path, read) for path in roots)

    def _children(self, path: str) -> list[str]:
        return [p for p, node in self.nodes.items() if node.parent == path]

    def _read_below(self, path: str, expanded: frozenset[str]) -> list[str]:
        """The highest read sections below ``path``."""
        found: list[str] = []
        for child in self._children(path):
            if child in expanded:
                found.append(child)
            else:
                found.extend(self._read_below(child, expanded))
        return found

    def unknown_key(self, key: str) -> str:
        """What the model is told for a key that names no section: every key, the
        closest first.

        >>> tree = SectionTree([Section("a", "A", "x", summary="About A", children=[
        ...     Section("b", "B", "y", visibility="full")])])
        >>> tree.unknown_key("b")
        "No section has the key 'b'. Keys, closest first: a.b, a."
        >>> tree.unknown_key("z" * 1_000_000).split("...")[1]
        "' (1,000,000 characters). Keys, closest first: a, a.b."
        """
        compared = key[:_MAX_KEY_SHOWN].lower()  # a huge key is neither compared nor echoed
        keys = sorted(
            self.nodes,
            key=lambda p: -difflib.SequenceMatcher(None, compared, p.lower()).ratio(),
        )
        shown = f"'{key}'"
        if len(key) > _MAX_KEY_SHOWN:
            shown = f"'{key[: _MAX_KEY_SHOWN - 3]}...' ({len(key):,} characters)"
        return f"No section has the key {shown}. Keys, closest first: {', '.join(keys)}."


def check_tree(tree: SectionTree, where: str, *, strict: bool = True) -> None:
    """Refuse duplicate paths (unless not ``strict``) and tools of one name attached
    twice (differently).

    >>> tree = SectionTree([Section("a", "A", "x"), Section("a", "Again", "y")])
    >>> check_tree(tree, "read_section", strict=False)
    >>> check_tree(tree, "read_section")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    statetools.errors.DefinitionError: read_section: more than one section has the key a ...
    """
    if tree.duplicates and strict:
        raise DefinitionError(
            f"more than one section has the key {', '.join(sorted(set(tree.duplicates)))}",
            path=where,
            hint="give every section its own key among its siblings",
        )
    seen: dict[str, BaseTool] = {}
    for tool in tree.all_tools():
        if seen.setdefault(tool.name, tool) != tool:
            raise DefinitionError(
                f"two different tools named '{tool.name}' are attached to sections",
                path=where,
                hint="give every tool its own name",
            )
