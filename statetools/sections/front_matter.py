"""The YAML front matter of a ``SKILL.md`` file, checked, with line numbers in errors."""

from __future__ import annotations

import re
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
