"""The sections and skills of a design as Agent Skills files, the way MCP serves them
(the Skills extension, SEP-2640): each skill a folder of files under
``skill://<skill-path>/``, its ``SKILL.md`` first.

A skill loaded from a folder (:func:`~statetools.load_skills`) is served as its files
are; any other section becomes a ``SKILL.md`` written from it: ``name`` (its key in
lowercase, ``_`` as ``-``), ``description`` (its summary, else its title),
``allowed-tools`` (the names of its own tools) and its body. A child section is a
nested skill: ``skill://parent/child/SKILL.md``.

>>> refund = Tool.create("refund", "Refund an order", lambda order: "ok")
>>> catalog = SkillCatalog.of_items([Sections(
...     Section("billing", "Billing", "Refunds within 30 days.", summary="Refund rules.",
...             tools=[refund]))])
>>> print(catalog.file("skill://billing/SKILL.md").decode(), end="")
---
name: billing
description: Refund rules.
allowed-tools: refund
---
Refunds within 30 days.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import yaml

from statetools.errors import DefinitionError, SpecError
from statetools.sections.section import Section
from statetools.sections.sections import Sections
from statetools.sections.skill_files import MAX_DESCRIPTION, MAX_NAME, NAME, read_skill_file

__all__ = [
    "EXTENSION",
    "INDEX_SCHEMA",
    "INDEX_URI",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILES",
    "OPENS_META",
    "Opening",
    "PublishedSkill",
    "SkillCatalog",
    "digest",
    "skill_name",
]

EXTENSION = "io.modelcontextprotocol/skills"
"""The Skills extension's identifier, declared in the server's capabilities."""
INDEX_URI = "skill://index.json"
"""The discovery index resource (the Agent Skills discovery format)."""
INDEX_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
MAX_SKILL_FILES = 512
"""Files per skill every conforming host accepts (SEP-2640)."""
MAX_SKILL_BYTES = 16 * 1024 * 1024
"""Bytes per skill every conforming host accepts (SEP-2640)."""

_ODD = re.compile(r"[^a-z0-9]+")


def digest(data: bytes) -> str:
    """The ``sha256:<hex>`` digest SEP-2640 gives each file.

    >>> digest(b"")[:15]
    'sha256:e3b0c442'
    """
    return "sha256:" + hashlib.sha256(data).hexdigest()


def skill_name(key: str) -> str:
    """The skill name of a section key: lowercase, runs of other characters as ``-``.

    >>> skill_name("Billing_Rules"), skill_name("refunds")
    ('billing-rules', 'refunds')
    """
    return _ODD.sub("-", key.lower()).strip("-")


def _mime(path: str, data: bytes) -> str:
    if path.endswith(".md"):
        return "text/markdown"
    guessed = mimetypes.guess_type(path)[0]
    if guessed:
        return guessed
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "application/octet-stream"
    return "text/plain"


OPENS_META = "statetools/opens"
"""The ``_meta`` key of a gateway's skill entry that says how its tools open."""


@attrs.frozen
class Opening:
    """How a statetools gateway opens a skill's tools: the call of its ``read_section``
    (``tool`` with ``arguments``) in the client's session (2026-07-28 clients pass the
    handle as ``session``), and the definitions of the tools it opens. The gateway lists
    them only once opened, so a client learns them here.

    >>> Opening("load_skill", {"key": "tone"}, "session", ()).wire()["tool"]
    'load_skill'
    """

    tool: str
    arguments: Mapping[str, Any]
    session: str
    tools: tuple[Mapping[str, Any], ...]

    def wire(self) -> dict[str, Any]:
        """The ``_meta`` value.

        >>> sorted(Opening("load_skill", {"key": "tone"}, "session", ()).wire())
        ['arguments', 'sessionArgument', 'tool', 'tools']
        """
        return {
            "tool": self.tool,
            "arguments": dict(self.arguments),
            "sessionArgument": self.session,
            "tools": [dict(t) for t in self.tools],
        }


@attrs.frozen
class PublishedSkill:
    """One served skill: its path under ``skill://``, its front matter and its files
    (relative path and bytes, ``SKILL.md`` first).

    >>> skill = PublishedSkill("billing", {"name": "billing", "description": "Bills."},
    ...                        (("SKILL.md", b"---\\nname: billing\\n---\\n"),))
    >>> skill.uri, skill.entry()["resources"][0]["size"]
    ('skill://billing/SKILL.md', 22)
    """

    path: str
    front_matter: Mapping[str, Any]
    files: tuple[tuple[str, bytes], ...]
    opens: Opening | None = None
    """How a statetools gateway opens the skill's tools (None elsewhere)."""

    @property
    def name(self) -> str:
        """The skill's name (the last segment of its path).

        >>> PublishedSkill("acme/refunds", {}, ()).name
        'refunds'
        """
        return self.path.rsplit("/", 1)[-1]

    @property
    def uri(self) -> str:
        """The URI of its ``SKILL.md``.

        >>> PublishedSkill("acme/refunds", {}, ()).uri
        'skill://acme/refunds/SKILL.md'
        """
        return f"skill://{self.path}/SKILL.md"

    def entry(self) -> dict[str, Any]:
        """Its ``skills/list`` entry: URI, front matter, every file with digest and size.

        >>> PublishedSkill("a", {"name": "a", "description": "A."}, ()).entry()["uri"]
        'skill://a/SKILL.md'
        """
        entry: dict[str, Any] = {
            "uri": self.uri,
            "frontmatter": dict(self.front_matter),
            "resources": [
                {"uri": f"skill://{self.path}/{name}", "digest": digest(data), "size": len(data)}
                for name, data in self.files
            ],
        }
        if self.opens is not None and self.opens.tools:
            entry["_meta"] = {OPENS_META: self.opens.wire()}
        return entry


@attrs.frozen
class SkillCatalog:
    """The skills a server publishes, with the files behind each ``skill://`` URI.

    >>> SkillCatalog.of_items([Tool.create("ping", "Ping", lambda: "pong")]).skills
    ()
    """

    skills: tuple[PublishedSkill, ...]
    files: Mapping[str, tuple[bytes, str]] = attrs.field(eq=False, repr=False)
    """URI -> (bytes, MIME type), the index included."""

    @classmethod
    def of_items(cls, items: Iterable[Any], *, session: str | None = None) -> SkillCatalog:
        """The skills of every :class:`~statetools.Sections` among ``items``. Two skills
        on one path raise :class:`~statetools.DefinitionError`. ``session``: the gateway's
        session argument, when a statetools gateway serves them (each entry then says how
        its tools open there, see :class:`Opening`).

        >>> len(SkillCatalog.of_items([Sections(Section("a", "A", "x"))]).skills)
        1
        """
        skills: list[PublishedSkill] = []
        for item in items:
            if isinstance(item, Sections):
                made = _from_folder(item) if item.folder else _from_sections(item)
                skills.extend(_opening(made, item, session))
        seen: set[str] = set()
        for skill in skills:
            if skill.path in seen:
                raise DefinitionError(
                    f"two skills would be served at {skill.uri}",
                    path=skill.uri,
                    hint="give the sections or skills distinct keys",
                )
            seen.add(skill.path)
        files: dict[str, tuple[bytes, str]] = {}
        for skill in skills:
            for name, data in skill.files:
                files[f"skill://{skill.path}/{name}"] = (data, _mime(name, data))
        catalog = cls(tuple(skills), files)
        if skills:
            files[INDEX_URI] = (_json(catalog.index()), "application/json")
        return catalog

    def index(self) -> dict[str, Any]:
        """``skill://index.json``: one ``skill-md`` entry per skill.

        >>> SkillCatalog.of_items([Sections(Section("a", "A", "x"))]).index()["skills"]
        [{'name': 'a', 'type': 'skill-md', 'description': 'A', 'url': 'skill://a/SKILL.md'}]
        """
        return {
            "$schema": INDEX_SCHEMA,
            "skills": [
                {
                    "name": skill.name,
                    "type": "skill-md",
                    "description": skill.front_matter["description"],
                    "url": skill.uri,
                }
                for skill in self.skills
            ],
        }

    def file(self, uri: str) -> bytes | None:
        """The bytes served at ``uri`` (None when nothing is).

        >>> SkillCatalog.of_items([Sections(Section("a", "A", "x"))]).file("skill://b/SKILL.md")
        """
        found = self.files.get(uri)
        return None if found is None else found[0]

    def skill(self, uri: str) -> PublishedSkill | None:
        """The skill whose ``SKILL.md`` is at ``uri``.

        >>> SkillCatalog.of_items([Sections(Section("a", "A", "x"))]).skill("skill://a/SKILL.md").name
        'a'
        """
        return next((skill for skill in self.skills if skill.uri == uri), None)


def _opening(
    skills: Iterable[PublishedSkill], sections: Sections, session: str | None
) -> Iterator[PublishedSkill]:
    """The skills with how a gateway opens their tools (its ``read_section`` call)."""
    keys = list(sections.tree.nodes)
    for number, skill in enumerate(skills):
        if session is None:
            yield skill
            continue
        key = keys[number] if not sections.folder else sections.sections[number].key
        own = sections.tree.nodes[key].section.tools
        definitions = tuple(
            {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
            for t in own
        )
        yield attrs.evolve(
            skill, opens=Opening(sections.tool_name, {"key": key}, session, definitions)
        )


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def _skill_md(front: Mapping[str, Any], body: str) -> bytes:
    header = yaml.safe_dump(dict(front), sort_keys=False, allow_unicode=True, width=1_000_000)
    return f"---\n{header}---\n{body}\n".encode()


def _from_sections(sections: Sections) -> Iterator[PublishedSkill]:
    """A skill per section; a child is nested in its parent's folder."""
    paths: dict[str, str] = {}
    made: dict[str, tuple[Mapping[str, Any], bytes]] = {}
    for path, node in sections.tree.nodes.items():
        section = node.section
        name = _checked_name(section, path)
        paths[path] = name if node.parent is None else f"{paths[node.parent]}/{name}"
        front: dict[str, Any] = {"name": name, "description": _description(section)}
        if section.tools:
            front["allowed-tools"] = " ".join(tool.name for tool in section.tools)
        made[path] = (front, _skill_md(front, section.body))
    for path in sections.tree.nodes:
        written, data = made[path]
        nested = [
            (f"{paths[other][len(paths[path]) + 1 :]}/SKILL.md", made[other][1])
            for other in sections.tree.subtree(path)
            if other != path
        ]
        yield PublishedSkill(paths[path], written, (("SKILL.md", data), *nested))


def _checked_name(section: Section, path: str) -> str:
    name = skill_name(section.key)
    if not NAME.match(name) or len(name) > MAX_NAME:
        raise DefinitionError(
            f"section '{path}' has no usable skill name (got {name!r} from its key)",
            path=f"section '{path}'",
            hint="give it a key of letters and digits (a skill name is 1-64 of a-z, 0-9, -)",
        )
    return name


def _description(section: Section) -> str:
    text = (section.summary or section.title).strip() or section.key
    return text[:MAX_DESCRIPTION]


def _from_folder(sections: Sections) -> Iterator[PublishedSkill]:
    """A skill loaded from a folder: its files as they are."""
    assert sections.folder is not None
    for section in sections.sections:
        folder = sections.folder / section.key
        skill = read_skill_file(folder / "SKILL.md")
        files = [("SKILL.md", (folder / "SKILL.md").read_bytes())]
        files.extend(_folder_files(folder))
        total = sum(len(data) for _, data in files)
        if len(files) > MAX_SKILL_FILES or total > MAX_SKILL_BYTES:
            raise SpecError(
                f"skill '{skill.name}' has {len(files)} files of {total} bytes, more than "
                f"hosts must accept ({MAX_SKILL_FILES} files, {MAX_SKILL_BYTES} bytes)",
                path=str(folder),
                hint="move large material out of the skill's folder",
            )
        front = json.loads(json.dumps(dict(skill.front_matter), default=str))  # dates as text
        yield PublishedSkill(skill.name, front, tuple(files))


def _folder_files(folder: Path) -> Iterator[tuple[str, bytes]]:
    """The regular files of a skill folder but SKILL.md, links not followed."""
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not (Path(root) / d).is_symlink())
        for name in sorted(names):
            path = Path(root) / name
            relative = path.relative_to(folder).as_posix()
            if relative == "SKILL.md" or path.is_symlink() or not path.is_file():
                continue
            yield relative, path.read_bytes()
