"""Tools as typed Python functions: the stubs code mode shows the model.

Each tool becomes a function stub (``def search(query: str, limit: int = 5) -> Any:``
with the tool's description and its parameters' descriptions as the docstring), read
from the tool's JSON schema. Required parameters come first, in the schema's order,
then the optional ones; a script may pass arguments by keyword or by position in
that order (:func:`keyword_arguments`).
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from statetools.tools.fields import ToolDefinition
from statetools.wording import counted

__all__ = ["function_name", "function_names", "keyword_arguments", "parameter_order", "stub"]

_SIMPLE = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "null": "None",
}
_RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))


def function_name(tool: str) -> str:
    """The Python name a script calls tool ``tool`` by: characters that cannot be in a
    name become ``_``; a keyword or a builtin gets a ``_`` after it.

    >>> function_name("get-issue"), function_name("list"), function_name("search")
    ('get_issue', 'list_', 'search')
    """
    name = re.sub(r"\W", "_", tool, flags=re.ASCII)
    if not name or name[0].isdigit():
        name = f"_{name}"
    return f"{name}_" if name in _RESERVED else name


def function_names(tools: Iterable[str]) -> dict[str, str]:
    """Python name -> tool name for ``tools`` (in order); when two tools get the same
    Python name the first keeps it and the later one is left out.

    >>> function_names(["get-issue", "get_issue", "list"])
    {'get_issue': 'get-issue', 'list_': 'list'}
    """
    names: dict[str, str] = {}
    for tool in tools:
        names.setdefault(function_name(tool), tool)
    return names


def python_type(schema: Any) -> str:
    """The Python annotation for a JSON schema (``Any`` where it cannot say more).

    >>> python_type({"type": "array", "items": {"type": "integer"}})
    'list[int]'
    >>> python_type({"enum": ["open", "closed"]}), python_type({"type": ["string", "null"]})
    ("Literal['open', 'closed']", 'str | None')
    """
    if not isinstance(schema, Mapping):
        return "Any"
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        values = schema["enum"]
        if all(isinstance(v, str | int | float | bool) or v is None for v in values):
            return f"Literal[{', '.join(repr(v) for v in values)}]"
        return "Any"
    if "const" in schema and isinstance(schema["const"], str | int | float | bool):
        return f"Literal[{schema['const']!r}]"
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return _union(python_type(option) for option in options)
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union(python_type({**schema, "type": k}) for k in kind)
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind == "array":
        return f"list[{python_type(schema.get('items'))}]"
    if kind == "object":
        extra = schema.get("additionalProperties")
        return f"dict[str, {python_type(extra) if isinstance(extra, Mapping) else 'Any'}]"
    return "Any"


def _union(types: Iterable[str]) -> str:
    unique = list(dict.fromkeys(types))
    if "Any" in unique:
        return "Any"
    if "None" in unique:  # None last, as people write it
        unique = [t for t in unique if t != "None"] + ["None"]
    return " | ".join(unique)


def parameter_order(schema: Mapping[str, Any]) -> list[str]:
    """The parameters of a tool's input schema in the order its stub takes them:
    required ones first (in the schema's order), then the optional ones.

    >>> parameter_order({"properties": {"n": {}, "q": {}}, "required": ["q"]})
    ['q', 'n']
    """
    properties = schema.get("properties")
    names = list(properties) if isinstance(properties, Mapping) else []
    required = set(schema.get("required") or ())
    return [n for n in names if n in required] + [n for n in names if n not in required]


def keyword_arguments(
    schema: Mapping[str, Any], args: Sequence[Any], kwargs: Mapping[str, Any]
) -> dict[str, Any]:
    """A script's positional ``args`` and ``kwargs`` as the tool's arguments; raises
    ``TypeError`` (shown in the script) for too many or repeated arguments.

    >>> keyword_arguments({"properties": {"q": {}, "n": {}}, "required": ["q"]}, ("x",), {"n": 2})
    {'q': 'x', 'n': 2}
    """
    order = parameter_order(schema)
    if len(args) > len(order):
        raise TypeError(
            f"takes {counted(len(order), 'positional argument')} but {len(args)} "
            f"{'was' if len(args) == 1 else 'were'} given"
        )
    arguments = dict(zip(order, args, strict=False))
    for name, value in kwargs.items():
        if name in arguments:
            raise TypeError(f"got multiple values for argument '{name}'")
        arguments[name] = value
    return arguments


def _signature(schema: Mapping[str, Any]) -> str:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return ""
    if not all(isinstance(n, str) and n.isidentifier() and n not in _RESERVED for n in properties):
        return "**arguments: Any"
    required = set(schema.get("required") or ())
    parts: list[str] = []
    for name in parameter_order(schema):
        spec = properties[name]
        annotation = python_type(spec)
        if name in required:
            parts.append(f"{name}: {annotation}")
        elif isinstance(spec, Mapping) and "default" in spec and _literal(spec["default"]):
            parts.append(f"{name}: {annotation} = {spec['default']!r}")
        else:
            optional = annotation if annotation.endswith("None") else f"{annotation} | None"
            parts.append(f"{name}: {'Any' if annotation == 'Any' else optional} = None")
    return ", ".join(parts)


def _literal(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _doc_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', "'''").strip()


def stub(definition: ToolDefinition, name: str | None = None) -> str:
    """The function stub of a tool: its signature, then a docstring with its
    description and what each parameter is.

    >>> schema = {"type": "object", "properties": {"query": {"type": "string",
    ...     "description": "Words to look for"}, "limit": {"type": "integer", "default": 5}},
    ...     "required": ["query"]}
    >>> print(stub(ToolDefinition("search", "Search the notes.", schema)))
    def search(query: str, limit: int = 5) -> Any:
        \"\"\"Search the notes.
    <BLANKLINE>
        query: Words to look for
        \"\"\"
    """
    schema = definition.input_schema
    lines = [f"def {name or function_name(definition.name)}({_signature(schema)}) -> Any:"]
    doc = [_doc_text(definition.description) or definition.name]
    properties = schema.get("properties")
    described = [
        f"{parameter}: {_doc_text(str(spec['description']))}"
        for parameter, spec in (properties.items() if isinstance(properties, Mapping) else ())
        if isinstance(spec, Mapping) and spec.get("description")
    ]
    if described:
        doc.extend(["", *described])
    text = "\n".join(doc)
    if "\n" not in text:
        return f'{lines[0]}\n    """{text}"""'
    body = "\n".join(f"    {line}" if line else "" for line in text.splitlines())
    lines.append(f'    """{body.lstrip()}')
    lines.append('    """')
    return "\n".join(lines)
