"""Arguments a facade does not take: it unfolds anyway and says so in one line.

Small models often call a facade with the arguments they mean for one of its inner
tools (``file_system({"a": true})``). Refusing the call keeps the facade folded and the
model repeats it; instead the facade ignores those arguments, opens its tools and adds
one line saying what it ignored and, when the arguments fit exactly one of the opened
tools, which tool to call with them.

>>> ls = Tool.create("ls", "List files", lambda a=False: "a.txt",
...                  schema=InputSchema.of(Parameter.boolean("a", "All", required=False)))
>>> facade = UnfoldingTool.of("file_system", "Open the file system tools", [ls])
>>> print(facade.call({"a": True}).text)
Tools now available: ls.
Ignored argument 'a': 'file_system' takes no arguments. Call ls with {"a": true}.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from statetools.tools.tool import BaseTool
from statetools.tools.typeschema import JsonSchema
from statetools.tools.validation import argument_problems, make_validator

__all__ = ["fitting", "ignored_note", "taken"]

_MAX_ECHO = 200


def taken(schema: JsonSchema) -> list[str]:
    """The argument names a schema declares.

    >>> taken({"type": "object", "properties": {"q": {"type": "string"}}})
    ['q']
    """
    return list((schema or {}).get("properties") or {})


def fitting(tools: Sequence[BaseTool], arguments: Mapping[str, Any]) -> list[BaseTool]:
    """The tools among ``tools`` that declare every one of ``arguments`` and accept
    their values.

    >>> ls = Tool.create("ls", "List", lambda a=False: "",
    ...                  schema=InputSchema.of(Parameter.boolean("a", "All", required=False)))
    >>> [t.name for t in fitting([ls], {"a": True})], fitting([ls], {"b": 1})
    (['ls'], [])
    """
    if not arguments:
        return []
    found: list[BaseTool] = []
    for tool in tools:
        declared = set(taken(tool.input_schema))
        if not declared.issuperset(arguments):
            continue
        try:
            problems = argument_problems(make_validator(tool.input_schema), dict(arguments))
        except Exception:  # a schema the validator cannot read: not a fit we can vouch for
            continue
        if not problems:
            found.append(tool)
    return found


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(f"'{name}'" for name in names)


def ignored_note(
    facade: str, schema: JsonSchema, ignored: Mapping[str, Any], fit: BaseTool | None
) -> str:
    """The line a facade adds when it ignored ``ignored``: what it ignored, what it takes,
    and which tool to call with them when exactly one (``fit``) takes them.

    >>> ignored_note("files", {"properties": {"category": {}}}, {"x": 1, "y": 2}, None)
    "Ignored arguments 'x', 'y': 'files' takes only category."
    """
    own = taken(schema)
    takes = f"takes only {', '.join(own)}" if own else "takes no arguments"
    noun = "argument" if len(ignored) == 1 else "arguments"
    note = f"Ignored {noun} {_quoted(list(ignored))}: '{facade}' {takes}."
    if fit is None:
        return note
    try:
        echo = json.dumps(dict(ignored), ensure_ascii=False)
    except (TypeError, ValueError):
        echo = ""
    if echo and len(echo) <= _MAX_ECHO:
        return f"{note} Call {fit.name} with {echo}."
    return f"{note} Call {fit.name} with these arguments."
