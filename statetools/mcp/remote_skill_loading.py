"""Remote skills read when needed (SEP-2640's lazy retrieval): a skill's ``SKILL.md``
is fetched when the model first loads the skill, checked, and kept.

The listing (``skills/list`` or ``skill://index.json``) gives each skill's name and
summary up front; :class:`SkillLoader` reads a ``SKILL.md`` with ``resources/read`` the
first time the model calls ``load_skill`` for it, checks it against the skill's entry
(size, digest, front matter, name, ``allowed-tools``) and keeps the text for as long as
the :class:`~statetools.Sections` lives (a second load reads nothing). A failure then
(the server gone, a file that does not match) is an error result the model sees; the
skill's tools stay closed, and a later load tries again.

:class:`RemoteSkillReader` is the ``load_skill`` tool over such skills: it opens what
the read ``SKILL.md`` allows, and its prompt shows a loaded skill's text.

>>> LOAD_FAILED.format(key="tone", server="docs", why="gone")
"Cannot load skill 'tone' of MCP server 'docs': gone. Go on without it, or load it again later."
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs

from statetools.definitions.unfold_call import Unfolded
from statetools.errors import StatetoolsError
from statetools.mcp.gateway_skills import GatewayRoute
from statetools.mcp.skill_catalog import Opening
from statetools.sections.section import Section
from statetools.sections.sections import KEY, ReadSectionTool
from statetools.sections.skill_files import skill_from_text
from statetools.sections.tree import SectionTree
from statetools.tools.calling import Arguments, Context, ToolResult

__all__ = ["LOAD_FAILED", "LazySkill", "RemoteSkillReader", "SkillLoader"]

LOAD_FAILED = (
    "Cannot load skill '{key}' of MCP server '{server}': {why}. "
    "Go on without it, or load it again later."
)
"""What the model is told when a skill cannot be read or does not check out."""

Reader = Callable[[str], Awaitable[bytes]]
Check = Callable[[bytes], None]
"""Raises :class:`~statetools.SpecError` when what was read differs from the entry."""


@attrs.frozen
class LazySkill:
    """A listed skill not read yet: its ``SKILL.md`` URI and name, the front matter its
    entry gave (None from ``skill://index.json``, which has none), the check of what is
    read, and how a statetools gateway opens its tools (None elsewhere).

    >>> LazySkill("skill://tone/SKILL.md", "tone", None, lambda data: None, None).name
    'tone'
    """

    uri: str
    name: str
    front_matter: Mapping[str, Any] | None
    check: Check = attrs.field(eq=False, repr=False)
    opening: Opening | None = None


@attrs.frozen
class Loaded:
    """A skill read: the text ``load_skill`` returns and the server's tools it opens.

    >>> Loaded("Be brief.", ("fill_field",)).tools
    ('fill_field',)
    """

    body: str
    tools: tuple[str, ...]


def _why(exc: Exception) -> str:
    return exc.message if isinstance(exc, StatetoolsError) else str(exc) or repr(exc)


class SkillLoader:
    """Reads each skill's ``SKILL.md`` once, when first loaded (see the module).
    ``render(skill, text)`` makes the body the model sees; ``known`` maps the names of the
    server's tools a skill may open (as the server names them) to their names here.

    >>> async def read(uri: str) -> bytes:
    ...     return b"---\\nname: tone\\ndescription: Tone.\\n---\\nBe brief.\\n"
    >>> skill = LazySkill("skill://tone/SKILL.md", "tone", None, lambda data: None)
    >>> loader = SkillLoader("docs", read, {"tone": skill}, lambda s, text: text, {})
    >>> asyncio.run(loader.load("tone", None)).body, loader.reads
    ('Be brief.', 1)
    >>> _ = asyncio.run(loader.load("tone", None)); loader.reads
    1
    """

    def __init__(
        self,
        server: str,
        read: Reader,
        skills: Mapping[str, LazySkill],
        render: Callable[[LazySkill, str], str],
        known: Mapping[str, str],
        route: GatewayRoute | None = None,
    ) -> None:
        self.server = server
        self.skills = skills
        self.known = dict(known)
        """The server's tools a skill may open: their names there -> here."""
        self.route = route
        self.reads = 0
        """How many ``SKILL.md`` files were fetched."""
        self.loaded: dict[str, Loaded] = {}
        self._read = read
        self._render = render
        self._lock: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None

    def _locked(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock[0] is not loop:
            self._lock = (loop, asyncio.Lock())
        return self._lock[1]

    async def load(self, key: str, context: Context) -> Loaded | str:
        """The skill at ``key`` read (once), its tools open in a gateway that enforces
        them; else what the model is told.

        >>> async def read(uri: str) -> bytes:
        ...     raise ConnectionError("the server is gone")
        >>> skill = LazySkill("skill://tone/SKILL.md", "tone", None, lambda data: None)
        >>> loader = SkillLoader("docs", read, {"tone": skill}, lambda s, text: text, {})
        >>> print(asyncio.run(loader.load("tone", None)))
        Cannot load skill 'tone' of MCP server 'docs': the server is gone. Go on without it, or load it again later.
        """  # noqa: E501
        skill = self.skills[key]
        async with self._locked():
            found = self.loaded.get(key)
            if found is None:
                fetched = await self._fetch(skill)
                if isinstance(fetched, str):
                    return LOAD_FAILED.format(key=key, server=self.server, why=fetched)
                found = self.loaded[key] = fetched
        if skill.opening is not None and self.route is not None:
            refused = await self.route.open(skill.uri, skill.opening, context)
            if refused is not None:
                return LOAD_FAILED.format(key=key, server=self.server, why=refused)
        return found

    async def _fetch(self, skill: LazySkill) -> Loaded | str:
        self.reads += 1
        try:
            data = await self._read(skill.uri)
        except Exception as exc:
            return _why(exc)
        at = f"mcp server '{self.server}': {skill.uri}"
        try:
            skill.check(data)
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return f"{skill.uri} is not UTF-8 text"
        except StatetoolsError as exc:
            return f"{skill.uri}: {exc.message}"
        try:
            parsed = skill_from_text(text.replace("\r\n", "\n"), at, skill.name)
        except StatetoolsError as exc:
            return f"{skill.uri}: {exc.message}"
        if skill.front_matter is not None and dict(parsed.front_matter) != dict(skill.front_matter):
            return f"{skill.uri}: its front matter differs from the skill's entry"
        unknown = [name for name in parsed.allowed_tools if name not in self.known]
        if unknown:
            return f"{skill.uri}: allowed-tools names tools the server does not have: " + ", ".join(
                unknown
            )
        opens = tuple(self.known[name] for name in parsed.allowed_tools)
        return Loaded(self._render(skill, parsed.body), opens)

    def section(self, section: Section) -> Section:
        """``section`` with its skill's text, once read.

        >>> loader = SkillLoader("docs", None, {}, lambda s, text: text, {})
        >>> loader.section(Section("a", "A", "x")).body
        'x'
        """
        found = self.loaded.get(section.key)
        return section if found is None else attrs.evolve(section, body=found.body)


@attrs.frozen(kw_only=True)
class RemoteSkillReader(ReadSectionTool):
    """``load_skill`` over remote skills: reads a skill's ``SKILL.md`` when first
    loaded (:class:`SkillLoader`) and opens the tools it allows (see the module).

    >>> from statetools.sections.sections import Sections
    >>> async def read(uri: str) -> bytes:
    ...     return b"---\\nname: tone\\ndescription: Tone.\\n---\\nBe brief.\\n"
    >>> skill = LazySkill("skill://tone/SKILL.md", "tone", None, lambda data: None)
    >>> loader = SkillLoader("docs", read, {"tone": skill}, lambda s, text: text, {})
    >>> sections = Sections(Section("tone", "Tone", "(not read)"), tool_name="load_skill")
    >>> reader = RemoteSkillReader.over(sections, loader)
    >>> reader.call({"key": "tone"}).text
    '## Tone\\n\\nBe brief.'
    """

    loader: SkillLoader = attrs.field(default=None, eq=False, repr=False)

    @classmethod
    def over(cls, sections: Any, loader: SkillLoader) -> RemoteSkillReader:
        """The reader of ``sections`` (a :class:`~statetools.Sections`), reading with
        ``loader``.

        >>> from statetools.sections.sections import Sections
        >>> loader = SkillLoader("docs", None, {}, lambda s, text: text, {})
        >>> RemoteSkillReader.over(Sections(Section("a", "A", "x")), loader).name
        'read_section'
        """
        made = cls.for_tree(sections.tree, sections.tool_name, sections.common_tools)
        assert isinstance(made, RemoteSkillReader)
        return attrs.evolve(made, loader=loader)

    def _opens(self, key: str, unfolded: Unfolded, loaded: Loaded | None) -> Unfolded:
        """Of the tools the key may open, the common ones and those its ``SKILL.md``
        allows (an index's skill before it is read: the common ones only)."""
        common = {tool.name for tool in self.inner} - {
            tool.name for tool in self.tree.gated_tools(key)
        }
        allowed = set(loaded.tools) if loaded is not None else set()
        tools = tuple(t for t in unfolded.tools if t.name in common or t.name in allowed)
        return attrs.evolve(unfolded, tools=tools)

    def select(self, arguments: Mapping[str, Any]) -> Unfolded | str:
        """As :meth:`ReadSectionTool.select`, for what the skill's entry or its read
        ``SKILL.md`` allows (replayed on resume).

        >>> RemoteSkillReader.for_tree(SectionTree([Section("a", "A", "x")]), "load_skill"
        ...                            ).select({"key": "b"})
        "No section has the key 'b'. Keys, closest first: a."
        """
        unfolded = super().select(arguments)
        if isinstance(unfolded, str) or self.loader is None:
            return unfolded
        key = str(arguments[KEY])
        if self.loader.skills[key].front_matter is not None:
            return unfolded  # the entry named the tools
        return self._opens(key, unfolded, self.loader.loaded.get(key))

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Load a skill: its ``SKILL.md`` (read now if not yet) and the tools it opens;
        an error result when it cannot be read.

        >>> from statetools.sections.sections import Sections
        >>> async def read(uri: str) -> bytes:
        ...     return b"no front matter"
        >>> skill = LazySkill("skill://a/SKILL.md", "a", None, lambda data: None)
        >>> loader = SkillLoader("docs", read, {"a": skill}, lambda s, text: text, {})
        >>> reader = RemoteSkillReader.over(Sections(Section("a", "A", "x")), loader)
        >>> print(asyncio.run(reader.acall({"key": "a"})).text)
        Cannot load skill 'a' of MCP server 'docs': skill://a/SKILL.md: SKILL.md does not start with front matter. Go on without it, or load it again later.
        """  # noqa: E501
        base = await super().acall(arguments, context)
        if base.is_error or self.loader is None or not isinstance(base.value, Unfolded):
            return base
        key = str(base.value.arguments[KEY])
        loaded = await self.loader.load(key, context)
        if isinstance(loaded, str):
            return ToolResult.error(loaded)
        node = self.tree.nodes[key]
        text = SectionTree([self.loader.section(node.section)], self.tree.tool_name)
        unfolded = ReadSectionTool.select(self, {KEY: key})
        assert isinstance(unfolded, Unfolded)  # the key was found above
        return ToolResult(
            content=text.render_full(key, frozenset()),
            value=self._opens(key, unfolded, loaded),
        )

    def prompt_text(self, unfolds: Sequence[Mapping[str, Any]]) -> str:
        """The prompt, with each loaded skill's text once it has been read.

        >>> from statetools.sections.sections import Sections
        >>> loader = SkillLoader("docs", None, {}, lambda s, text: text, {})
        >>> loader.loaded["a"] = Loaded("Read now.", ())
        >>> reader = RemoteSkillReader.over(Sections(Section("a", "A", "x")), loader)
        >>> print(reader.prompt_text([{"key": "a"}]))
        ## A
        <BLANKLINE>
        Read now.
        """
        if self.loader is None or not self.loader.loaded:
            return super().prompt_text(unfolds)
        read = [u[KEY] for u in unfolds if isinstance(u.get(KEY), str)]
        tree = SectionTree([self.loader.section(s) for s in self.tree.roots], self.tree.tool_name)
        return tree.prompt(p for p in read if p in tree.nodes)
