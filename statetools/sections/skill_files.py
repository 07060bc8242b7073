"""The files of a skill folder: the YAML front matter of its ``SKILL.md``, checked, with
line numbers in errors; and any file inside the folder, opened without ever leaving
it, whatever happens meanwhile.

Checking a path and then opening it leaves a gap: a symbolic link swapped in between
leads the open elsewhere. Here the folder is opened once and every component of the
path is opened relative to the descriptor of the one before it, never following a
link (``O_NOFOLLOW``). A link met on the way is read (``readlink``) and its target
walked the same way, from the folder's own descriptors: ``..`` goes back up the
descriptors already held and never above the folder, and an absolute target is
refused unless it names a place inside the folder by its full path. Whatever is
swapped in, what is opened lies inside the folder.

Where the platform has no descriptor-relative opens (Windows), the path is resolved
and checked, then opened, which is as good as the platform allows.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import yaml

from statetools.errors import SpecError
from statetools.safeyaml import MAX_SOURCE_BYTES, RefusedYaml, check_size, compose, load_yaml

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024


@attrs.frozen
class SkillFile:
    """What a ``SKILL.md`` says: name, description, allowed tools and the body.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()) / "pdf-forms"
    >>> folder.mkdir()
    >>> _ = (folder / "SKILL.md").write_text(
    ...     "---\\nname: pdf-forms\\ndescription: Fill PDF forms.\\nallowed-tools: fill_field\\n"
    ...     "---\\nFill each field, then save.\\n"
    ... )
    >>> skill = read_skill_file(folder / "SKILL.md")
    >>> skill.name, skill.description, skill.allowed_tools, skill.body
    ('pdf-forms', 'Fill PDF forms.', ('fill_field',), 'Fill each field, then save.')
    """

    name: str
    description: str
    allowed_tools: tuple[str, ...]
    body: str
    front_matter: Mapping[str, Any] = attrs.field(factory=dict, eq=False, repr=False)
    """Every field of the front matter, as YAML gave it."""


def _fail(path: Path | str, line: int, message: str, hint: str) -> SpecError:
    where = f"{path}:{line}"
    return SpecError(message, path=where, hint=hint, problems=(f"{where}: {message}",))


def _split(path: Path | str, text: str) -> tuple[str, str, int]:
    """(front matter, body, line of the front matter's first line)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise _fail(
            path,
            1,
            "SKILL.md does not start with front matter",
            "begin the file with a line '---', then name: and description:, then '---'",
        )
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return "".join(lines[1:index]), "".join(lines[index + 1 :]).strip(), 2
    raise _fail(path, 1, "the front matter is not closed", "end it with a line '---'")


def _shown(value: Any) -> str:
    """``value``'s repr, cut to a line."""
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "..."


def _value_line(node: yaml.MappingNode, key: str, first: int) -> int:
    for key_node, value_node in node.value:
        if key_node.value == key:
            line: int = value_node.start_mark.line
            return first + line
    return first


def _read(path: Path) -> str:
    """The text of ``path``, refused past the size limit of design YAML (without
    reading more than that)."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_SOURCE_BYTES + 1)
            check_size(len(data) if len(data) <= MAX_SOURCE_BYTES else file.seek(0, 2))
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except RefusedYaml as exc:
        raise _fail(
            path,
            1,
            exc.message.replace("the file", "SKILL.md", 1),
            "keep SKILL.md short; long material goes in files of the skill's folder",
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(path, 1, f"cannot read the file ({exc})", "write SKILL.md as UTF-8") from exc


def read_skill_file(path: Path) -> SkillFile:
    """Read and check ``path`` (a ``SKILL.md``): ``name`` is 1-64 lowercase letters,
    digits and single hyphens and matches the folder; ``description`` is 1-1024
    characters. Raises :class:`~statetools.SpecError` naming the file and line.

    The front matter is read within the limits of design YAML (size, nesting depth,
    what aliases expand to; see :mod:`statetools.safeyaml`).

    >>> read_skill_file(Path("missing/SKILL.md"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    statetools.errors.SpecError: missing/SKILL.md:1: cannot read the file ...
    """
    return skill_from_text(_read(path), path, path.parent.name)


def skill_from_text(text: str, path: Path | str, folder: str) -> SkillFile:
    """Check the text of a ``SKILL.md`` (as :func:`read_skill_file` does) read from
    ``path`` (named in errors, e.g. a ``skill://`` URI) in the folder ``folder``.

    >>> skill_from_text("---\\nname: refunds\\ndescription: Refunds.\\n---\\nBe kind.\\n",
    ...                 "skill://refunds/SKILL.md", "refunds").body
    'Be kind.'
    >>> skill_from_text("# no front matter\\n", "skill://refunds/SKILL.md", "refunds")
    Traceback (most recent call last):
    ...
    statetools.errors.SpecError: skill://refunds/SKILL.md:1: SKILL.md does not start ...
    """
    front, body, first = _split(path, text)
    try:
        node = compose(front)
        data: Any = load_yaml(front)
    except RefusedYaml as exc:
        line = first + (exc.line - 1 if exc.line else 0)
        raise _fail(path, line, f"the front matter is refused: {exc.message}", exc.hint) from exc
    except RecursionError as exc:
        raise _fail(path, first, "the front matter is nested too deeply", "flatten it") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = first + (mark.line if mark is not None else 0)
        raise _fail(
            path, line, f"the front matter is not valid YAML: {exc}", "fix the YAML"
        ) from exc
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        raise _fail(
            path, first, "the front matter is not a mapping", "write name: and description:"
        )
    name = data.get("name")
    if not isinstance(name, str) or not NAME.match(name) or len(name) > MAX_NAME:
        raise _fail(
            path,
            _value_line(node, "name", first),
            f"invalid skill name {_shown(name)}",
            "write name: with 1-64 lowercase letters, digits and single hyphens",
        )
    if name != folder:
        raise _fail(
            path,
            _value_line(node, "name", first),
            f"the skill name '{name}' differs from its folder '{folder}'",
            "name the folder after the skill",
        )
    description = data.get("description")
    if not isinstance(description, str) or not description.strip() or len(description) > 1024:
        size = len(description) if isinstance(description, str) else None
        raise _fail(
            path,
            _value_line(node, "description", first),
            "the description must be text of 1 to 1024 characters"
            + (f" (it has {size})" if size else ""),
            "say in a sentence or two what the skill does and when to use it",
        )
    allowed = data.get("allowed-tools", "")
    if isinstance(allowed, str):
        names = tuple(allowed.replace(",", " ").split())
    elif isinstance(allowed, list) and all(isinstance(n, str) for n in allowed):
        names = tuple(allowed)
    else:
        raise _fail(
            path,
            _value_line(node, "allowed-tools", first),
            "allowed-tools must be tool names separated by spaces (or a list of names)",
            "write allowed-tools: search_orders refund_order",
        )
    return SkillFile(name, description.strip(), names, body, data)


_MAX_LINKS = 40
"""How many links one path may go through (as the kernel's own limit)."""

_RELATIVE = os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the open
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class Outside(Exception):
    """The path, or a link on it, leads outside the folder.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> os.symlink("/etc/hostname", folder / "escape")
    >>> open_beneath(folder, "escape")
    Traceback (most recent call last):
    statetools.sections.skill_files.Outside
    """


def open_beneath(folder: Path, path: str) -> int:
    """A read-only descriptor of the regular file ``path`` inside ``folder``.

    Raises :class:`Outside` when the path or a link on it leads outside the folder,
    ``FileNotFoundError`` when there is no such regular file, ``OSError`` otherwise.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "notes.md").write_text("hi")
    >>> fd = open_beneath(folder, "notes.md")
    >>> os.read(fd, 10), os.close(fd)
    (b'hi', None)
    """
    if not _RELATIVE:  # pragma: no cover - Windows
        return _open_checked(folder, path)
    root = os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    held = [root]  # the descriptors of the folders walked into, the folder first
    try:
        return _walk(held, _parts(path), _parts(str(folder.resolve())))
    finally:
        for fd in held:
            os.close(fd)


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


def _walk(held: list[int], pending: list[str], root: list[str]) -> int:
    links = 0
    while pending:
        part = pending.pop(0)
        if part == "..":
            if len(held) == 1:
                raise Outside
            os.close(held.pop())
            continue
        last = not pending
        flags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | (_NONBLOCK if last else _DIRECTORY)
        try:
            fd = os.open(part, flags, dir_fd=held[-1])
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise
            target = _link(part, held[-1])
            if target is None:  # not a link: a file where a folder was meant
                raise FileNotFoundError(errno.ENOENT, "not a folder", part) from None
            links += 1
            parts = _parts(target)
            if target.startswith("/"):  # only a full path into the folder stays inside
                if parts[: len(root)] != root:
                    raise Outside from None
                parts = parts[len(root) :]
                while len(held) > 1:
                    os.close(held.pop())
            if links > _MAX_LINKS:
                raise Outside from None
            pending[:0] = parts
            continue
        if last:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise FileNotFoundError(errno.ENOENT, "not a regular file", part)
            return fd
        held.append(fd)
    raise FileNotFoundError(errno.ENOENT, "not a regular file", "")


def _link(part: str, dir_fd: int) -> str | None:
    """The target of the link ``part`` in ``dir_fd``, or None if it is not a link."""
    try:
        return os.readlink(part, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT):
            return None
        raise


def _open_checked(folder: Path, path: str) -> int:  # pragma: no cover - Windows
    resolved = (folder / path).resolve()
    if not resolved.is_relative_to(folder.resolve()):
        raise Outside
    if not resolved.is_file():
        raise FileNotFoundError(errno.ENOENT, "not a regular file", path)
    return os.open(resolved, os.O_RDONLY | getattr(os, "O_BINARY", 0))
