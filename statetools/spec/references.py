"""What names in a definition refer to: Python objects by import path, tools by name,
and schema-only tools imported from an OpenAI-format tools file.

An import path is ``module:attribute`` (``myapp.tools:search``,
``myapp.models:Order``, ``myapp.flows:Checkout.confirm``). Modules are imported from
``sys.path`` first, then from the current directory, the folder of the YAML file or
one of the three folders above it (so a playbook can sit next to its tool module, and
``playbooks.desk:tool`` works for ``playbooks/desk.yaml`` wherever it is run from).
Loading a YAML file runs the code it imports: load only files you trust, as with any
configuration that names Python code.

>>> import_object("statetools.definitions.conditions:After").__name__
'After'
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from statetools.errors import StatetoolsError
from statetools.safeyaml import MAX_DEPTH, RefusedYaml, check_size, load_yaml
from statetools.spec.problems import Invalid, Several, shorten
from statetools.tools.calling import Arguments, Context, ToolResult
from statetools.tools.tool import BaseTool, check_tool_name

IMPORT_PATH = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
"""``module.sub:attribute.inner``."""


def is_import_path(text: str) -> bool:
    """Whether ``text`` is written like an import path (it has a ``:``).

    >>> is_import_path("myapp.tools:search"), is_import_path("search")
    (True, False)
    """
    return ":" in text


@contextlib.contextmanager
def _also_from(folder: Path) -> Iterator[None]:
    if str(folder) in sys.path:
        yield
        return
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(folder))


def _folder_of(module: str, base_dir: Path | None) -> Path | None:
    """Where a module that is not on sys.path lives: the current directory, the YAML
    file's folder, or a folder above it (``playbooks.desk`` from ``playbooks/x.yaml``)."""
    top = module.split(".")[0]
    candidates = [Path.cwd()]
    if base_dir is not None:
        folder = base_dir.resolve()
        candidates += [folder, *list(folder.parents)[:3]]
    for folder in candidates:
        if (folder / f"{top}.py").is_file() or (folder / top / "__init__.py").is_file():
            return folder
    return None


def import_object(path: str, base_dir: Path | None = None) -> Any:
    """The object an import path ``module:attribute`` names.

    Raises :class:`~statetools.spec.problems.Invalid` with a clear message when the
    path is malformed, the module cannot be imported or the attribute is missing.
    """
    if not IMPORT_PATH.match(path):
        raise Invalid(
            f"invalid import path {path!r}",
            hint="write module:attribute, e.g. 'myapp.tools:search'",
        )
    module_name, _, attribute = path.partition(":")
    try:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            folder = _folder_of(module_name, base_dir)
            if exc.name != module_name.split(".")[0] or folder is None:
                raise
            with _also_from(folder):
                module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise Invalid(
            f"cannot import {path!r}: no module named {exc.name!r}",
            hint="check the module name; modules are found on sys.path, in the current "
            "directory and in the YAML file's folder (or above it)",
        ) from exc
    except Exception as exc:
        raise Invalid(
            f"cannot import {path!r}: importing {module_name} failed ({type(exc).__name__}: {exc})"
        ) from exc
    value: Any = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError as exc:
            raise Invalid(
                f"cannot import {path!r}: {module_name} has no attribute {attribute!r}",
                hint="check the spelling; the part after ':' is an attribute of the module",
            ) from exc
    return value


def import_path_of(value: Any) -> str | None:
    """The import path under which ``value`` can be found again, or None.

    >>> from statetools.definitions.conditions import After
    >>> import_path_of(After)
    'statetools.definitions.conditions:After'
    >>> import_path_of(lambda: 1) is None
    True
    """
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or module == "__main__":
        return None
    path = f"{module}:{qualname}"
    if not IMPORT_PATH.match(path):
        return None
    try:
        found = import_object(path)
    except Invalid:
        return None
    return path if found is value else None


@attrs.frozen(kw_only=True)
class SchemaOnlyTool(BaseTool):
    """A tool known only by its definition (from a tools file); calling it is an error.

    Enough to check, explore, measure and render a design before handlers exist.

    >>> tool = SchemaOnlyTool(name="ping", description="Ping", source="tools.json")
    >>> tool.call({}).text
    'no handler: this tool was imported schema-only from tools.json'
    """

    source: str = attrs.field(eq=False)
    """The tools file, as the definition wrote it (shown in the error text)."""
    location: str = ""
    """The tools file's full path: what equality compares and ``dump_playbook`` writes."""

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Always an error result: there is no handler.

        >>> import asyncio
        >>> tool = SchemaOnlyTool(name="ping", description="Ping", source="tools.json")
        >>> asyncio.run(tool.acall({})).is_error
        True
        """
        return ToolResult.error(
            f"no handler: this tool was imported schema-only from {self.source}"
        )


_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema")
"""Where OpenAI, Anthropic and MCP tools keep their schema, in the order looked at."""


def _tool_items(data: Any) -> Sequence[Any]:
    if isinstance(data, Mapping) and isinstance(data.get("tools"), list):
        return list(data["tools"])
    if isinstance(data, list):
        return data
    raise Invalid(
        "a tools file holds a list of tools (or a mapping with a 'tools' list)",
        hint='write OpenAI tools: [{"type": "function", "function": {"name", "description", '
        '"parameters"}}, ...]',
    )


def _is_mapping(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)  # a dict without the ABC check


def _one_tool(item: Any, source: str, location: str) -> SchemaOnlyTool:
    if not _is_mapping(item):
        raise Invalid("a tool must be a mapping")
    function = item.get("function") if item.get("type") == "function" else item
    if not _is_mapping(function):
        raise Invalid("'function' must be a mapping with name, description and parameters")
    try:
        name = check_tool_name(function.get("name"))
    except StatetoolsError as exc:
        raise Invalid(exc.message, hint=exc.hint) from exc
    schema = None
    for key in _SCHEMA_KEYS:
        if key in function:
            schema = function[key]
            break
    if schema is not None and not _is_mapping(schema):
        raise Invalid(f"the parameters of tool '{name}' must be a JSON schema object")
    description = function.get("description")
    if not isinstance(description, str) or not description.strip():
        raise Invalid(f"tool '{name}' has no description")
    return SchemaOnlyTool(
        name=name,
        description=description,
        input_schema=schema,
        source=source,
        location=location,
    )


def _quick_json(text: str) -> Any:
    """``text`` read as JSON (most tools files are: much faster than reading it as
    YAML), or None to read it as YAML: when it is not JSON, or nests deeper than the
    YAML reader allows (which then says so in its own words).

    >>> _quick_json('[{"name": "a"}]'), _quick_json("- name: a"), _quick_json("[" * 300 + "]" * 300)
    ([{'name': 'a'}], None, None)
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return None if _deeper_than(data, MAX_DEPTH - 8) else data  # near the limit: YAML decides


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether JSON data nests lists and objects more than ``limit`` levels deep (a walk
    one level at a time, over the lists and objects only).

    >>> _deeper_than([[1], {"a": []}], 2), _deeper_than([[1], {"a": []}], 3)
    (True, False)
    """
    level = [data] if type(data) is dict or type(data) is list else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        add = below.append
        for value in level:
            for item in value.values() if type(value) is dict else value:
                if type(item) is dict or type(item) is list:
                    add(item)
        level = below
    return False


def load_tools_file(source: str, base_dir: Path) -> list[SchemaOnlyTool]:
    """The tools of an OpenAI-format tools file (JSON or YAML), as schema-only tools.

    Accepts a list of ``{"type": "function", "function": {...}}`` items (or bare
    ``{name, description, parameters}`` items, or Anthropic/MCP ``input_schema`` /
    ``inputSchema``), or a mapping with such a list under ``tools``. ``source`` is
    relative to ``base_dir``. Every problem is reported (as :class:`Several`).

    >>> import json, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> lookup = {"name": "lookup", "description": "Look up an order", "parameters": {}}
    >>> tools = [{"type": "function", "function": lookup}]
    >>> _ = (folder / "tools.json").write_text(json.dumps(tools))
    >>> [(tool.name, tool.description) for tool in load_tools_file("tools.json", folder)]
    [('lookup', 'Look up an order')]
    """
    path = Path(source).expanduser()
    if not path.is_absolute():
        path = base_dir / path
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise Invalid(
            f"cannot read tools file {str(path)!r}: {reason}",
            hint="tools_from paths are relative to the YAML file",
        ) from exc
    try:
        check_size(len(text.encode("utf-8")), f"tools file {source!r}")
        data = _quick_json(text)
        if data is None:
            data = load_yaml(text)
    except RefusedYaml as exc:
        raise Invalid(exc.message, hint=exc.hint) from exc
    except yaml.YAMLError as exc:
        try:
            data = json.loads(text)  # JSON that YAML refuses (tabs)
        except (ValueError, RecursionError):
            raise Invalid(
                f"tools file {source!r} is not valid JSON/YAML: {shorten(str(exc))}"
            ) from exc
    except RecursionError as exc:
        raise Invalid(f"tools file {source!r} is nested too deeply") from exc
    items = _tool_items(data)
    tools: list[SchemaOnlyTool] = []
    problems: list[Invalid] = []
    seen: set[str] = set()
    location = str(path.resolve())
    for index, item in enumerate(items):
        try:
            tool = _one_tool(item, source, location)
        except Invalid as exc:
            problems.append(Invalid(f"{source} tool #{index + 1}: {exc.message}", hint=exc.hint))
            continue
        if tool.name in seen:
            problems.append(Invalid(f"{source}: tool '{tool.name}' is defined twice"))
            continue
        seen.add(tool.name)
        tools.append(tool)
    if problems:
        raise Several(problems)
    return tools
