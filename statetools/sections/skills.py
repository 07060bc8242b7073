"""Agent Skills: a folder of skill folders, each with a ``SKILL.md``, read on demand."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from statetools.definitions.items import as_tool
from statetools.errors import SpecError
from statetools.sections.section import Section
from statetools.sections.sections import Sections
from statetools.sections.skill_files import Outside, SkillFile, open_beneath, read_skill_file
from statetools.tools.calling import ToolResult
from statetools.tools.schema import InputSchema, Parameter
from statetools.tools.tool import BaseTool, Tool

FILE_TOOL = "read_skill_file"
MAX_FILE_CHARS = 100_000
"""The longest file text read_skill_file returns (the rest is cut off, and says so)."""


def _files(folder: Path) -> list[str]:
    """The files of a skill folder apart from SKILL.md, as relative POSIX paths."""
    found: list[str] = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            relative = (Path(root) / name).relative_to(folder).as_posix()
            if relative != "SKILL.md":
                found.append(relative)
    return found


def _body(skill: SkillFile, files: list[str]) -> str:
    if not files:
        return skill.body
    listing = "\n".join(f"- {f}" for f in files)
    return f"{skill.body}\n\nFiles of this skill (read them with {FILE_TOOL}):\n{listing}"


def _registry(tools: Iterable[Any] | Mapping[str, Any] | None) -> dict[str, BaseTool]:
    if tools is None:
        return {}
    items = tools.values() if isinstance(tools, Mapping) else tools
    return {tool.name: tool for tool in (as_tool(item) for item in items)}


@attrs.frozen
class SkillFiles:
    """The handler of ``read_skill_file``: reads a text file inside a skill's folder and
    refuses paths that leave it. Two readers of the same folders are equal (so two
    loads of one skills folder give equal definitions).

    >>> files = SkillFiles((("pdf-forms", Path("skills/pdf-forms")),))
    >>> files("pdf-forms", "/etc/passwd").text
    "Cannot read '/etc/passwd': absolute paths are refused; give a path inside the skill's folder."
    >>> files == SkillFiles((("pdf-forms", Path("skills/pdf-forms")),))
    True
    """

    folders: tuple[tuple[str, Path], ...]
    """(skill name, its folder) pairs."""

    def __call__(self, skill: str, path: str) -> ToolResult:
        folder = dict(self.folders).get(skill)
        if folder is None:
            names = ", ".join(name for name, _ in self.folders)
            return ToolResult.error(f"No skill is named '{skill}'. Skills: {names}.")
        problem = _escape(folder, path)
        if problem is not None:
            return ToolResult.error(f"Cannot read '{path}': {problem}.")
        try:
            fd = open_beneath(folder, path)
        except Outside:
            return ToolResult.error(f"Cannot read '{path}': it leads outside the skill's folder.")
        except FileNotFoundError:
            files = ", ".join(_files(folder)) or "none"
            return ToolResult.error(f"Skill '{skill}' has no file '{path}'. Its files: {files}.")
        except OSError as exc:
            return ToolResult.error(f"Cannot read '{path}': {exc.strerror or exc}.")
        try:
            with open(fd, encoding="utf-8") as file:  # reads no more than it returns
                text = file.read(MAX_FILE_CHARS + 1)
        except (OSError, UnicodeDecodeError):
            return ToolResult.error(f"Cannot read '{path}': it is not a UTF-8 text file.")
        if len(text) > MAX_FILE_CHARS:
            text = text[:MAX_FILE_CHARS] + f"\n[cut off after {MAX_FILE_CHARS} characters]"
        return ToolResult.text(text)


def file_reader(folders: Mapping[str, Path]) -> Tool:
    """The ``read_skill_file(skill, path)`` tool over the skills' ``folders``: it reads
    a text file inside a skill's folder and refuses paths that leave it.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "notes.md").write_text("Fill every field.\\n")
    >>> reader = file_reader({"pdf-forms": folder})
    >>> reader.call({"skill": "pdf-forms", "path": "notes.md"}).text
    'Fill every field.\\n'
    >>> reader.call({"skill": "pdf-forms", "path": "../secrets.txt"}).text
    "Cannot read '../secrets.txt': '..' is refused; give a path inside the skill's folder."
    """
    schema = InputSchema.of(
        Parameter.string("skill", "The skill's name"),
        Parameter.string("path", "A path inside the skill's folder, e.g. references/forms.md"),
    )
    handler = SkillFiles(tuple(folders.items()))
    return Tool.create(FILE_TOOL, "Read a file of a skill.", handler, schema=schema)


def _escape(folder: Path, path: str) -> str | None:
    """Why ``path`` may not be read from ``folder`` (None when it may); where it
    leads is checked as it is opened (:func:`open_beneath`)."""
    if not path or "\x00" in path:
        return "give a path inside the skill's folder"
    candidate = Path(path)
    if candidate.is_absolute() or path.startswith(("/", "\\")) or candidate.drive:
        return "absolute paths are refused; give a path inside the skill's folder"
    if ".." in candidate.parts or ".." in Path(path.replace("\\", "/")).parts:
        return "'..' is refused; give a path inside the skill's folder"
    return None


def load_skills(
    path: str | os.PathLike[str],
    *,
    tool_name: str = "load_skill",
    tools: Iterable[Any] | Mapping[str, Any] | None = None,
) -> Sections:
    """The skills in the folder ``path`` (one folder per skill, each with a
    ``SKILL.md``) as :class:`~statetools.Sections`: the prompt lists each skill's name
    and description; ``load_skill(key)`` (the key is the skill's name) returns its
    instructions and opens the tools its ``allowed-tools`` names (taken from
    ``tools``) and ``read_skill_file(skill, path)`` for the files of its folder.

    Raises :class:`~statetools.SpecError` naming the file and line of a bad
    ``SKILL.md``.

    >>> skills = load_skills("playbooks/skills")  # doctest: +SKIP
    >>> skills.keys()  # doctest: +SKIP
    ['refunds', 'shipping']
    """
    root = Path(path)
    if not root.is_dir():
        raise SpecError(
            f"no folder of skills at {root}",
            path=str(root),
            hint="give a folder holding one folder per skill, each with a SKILL.md",
        )
    registry = _registry(tools)
    sections: list[Section] = []
    folders: dict[str, Path] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        skill_md = folder / "SKILL.md"
        if not skill_md.is_file():
            continue
        skill = read_skill_file(skill_md)
        unknown = [name for name in skill.allowed_tools if name not in registry]
        if unknown:
            raise SpecError(
                f"allowed-tools names tools the design does not have: {', '.join(unknown)}",
                path=f"{skill_md}:1",
                hint=f"pass them in load_skills(..., tools=[...]); known: "
                f"{', '.join(registry) or 'none'}",
            )
        folders[skill.name] = folder.resolve()
        sections.append(
            Section(
                skill.name,
                skill.name,
                _body(skill, _files(folder)),
                summary=skill.description,
                tools=[registry[name] for name in skill.allowed_tools],
            )
        )
    if not sections:
        raise SpecError(
            f"no skills in {root}",
            path=str(root),
            hint="each skill is a folder with a SKILL.md",
        )
    common = [file_reader(folders)]
    return Sections(*sections, tool_name=tool_name, common_tools=common, folder=root)
