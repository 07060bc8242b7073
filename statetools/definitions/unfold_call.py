"""What happens when the model calls a facade: which tools open, direct calls, and
arguments it does not take.

The result of a facade call carries an :class:`Unfolded` value; the scheduler reads
it to reveal the tools (the model only sees the result's text).

Arguments a facade does not take: it unfolds anyway and says so in one line.
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
from typing import TYPE_CHECKING, Any

import attrs

from statetools.definitions.facade_contents import inner_tool
from statetools.errors import DefinitionError
from statetools.tools.calling import (
    Arguments,
    Context,
    ToolResult,
    failure,
    invalid_arguments,
    parse_arguments,
)
from statetools.tools.tool import BaseTool
from statetools.tools.typeschema import JsonSchema
from statetools.tools.validation import argument_problems, make_validator

if TYPE_CHECKING:
    from statetools.definitions.unfolding import UnfoldingTool


@attrs.frozen
class DirectCall:
    """An inner tool called through its facade (``{"create_issue": {...}}``).

    >>> facade = UnfoldingTool.of("t", "Open t", [Tool.create("a", "A", lambda: "ok")])
    >>> facade.call({"a": {}}).value.direct.name
    'a'
    """

    name: str
    arguments: Mapping[str, Any]
    result: ToolResult


@attrs.frozen
class Unfolded:
    """The value of a facade call's result: which tools it opened.

    The scheduler reads it to reveal ``tools``; ``arguments`` are replayed when a run
    resumes; ``listed`` says the result text names the tools already; ``direct`` is an
    inner tool called through the facade.

    >>> facade = UnfoldingTool.of("t", "Open t", [Tool.create("a", "A", lambda: "ok")])
    >>> unfolded = facade.call().value
    >>> unfolded.facade, unfolded.names, unfolded.listed
    ('t', ['a'], True)
    """

    facade: str
    tools: tuple[BaseTool, ...]
    arguments: Mapping[str, Any] = attrs.field(factory=dict)
    listed: bool = True
    direct: DirectCall | None = None

    @property
    def names(self) -> list[str]:
        """The names of the opened tools, in order.

        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> facade = UnfoldingTool.of("net", "Open net", [ping])
        >>> facade.call().value.names
        ['ping']
        """
        return [tool.name for tool in self.tools]


@attrs.frozen
class Loaded:
    """The value of a search's result: what each facade it went through opened (the
    scheduler unfolds each, as if the facade had been called).

    >>> Loaded(()).unfolds
    ()
    """

    unfolds: tuple[Unfolded, ...]


def listing(names: Sequence[str], usage_notes: str | None = None, note: str | None = None) -> str:
    """The text of a facade call: ``Tools now available: a, b.``, a ``note`` on the
    next line (what the call ignored) and the usage notes.

    >>> listing(["a", "b"], "Use a before b.")
    'Tools now available: a, b.\\n\\nUse a before b.'
    """
    text = f"Tools now available: {', '.join(names)}."
    if note:
        text = f"{text}\n{note}"
    return f"{text}\n\n{usage_notes}" if usage_notes else text


def _invalid(facade: UnfoldingTool, problems: Sequence[str]) -> str:
    return invalid_arguments(facade.name, problems)


def select(facade: UnfoldingTool, arguments: Mapping[str, Any]) -> Unfolded | str:
    """The tools a call of ``facade`` with ``arguments`` opens (no direct call), or the
    text of what is wrong with the arguments."""
    rest = dict(arguments)
    if facade.category_parameter is not None:
        return by_category(facade, rest.get(facade.category_parameter), None)
    problems = argument_problems(facade.validator, rest)
    if problems:
        return _invalid(facade, problems)
    if facade.selector is None:
        return Unfolded(facade.name, facade.inner)
    chosen = tuple(_chosen(facade, item) for item in facade.selector(rest))
    if not chosen:
        return f"Tool '{facade.name}' has no tools for these arguments."
    return Unfolded(facade.name, chosen, rest)


def by_category(facade: UnfoldingTool, category: Any, direct: str | None) -> Unfolded | str:
    """The tools of ``category`` (and of the category of ``direct``, the inner tool
    called directly), or the text asking for a valid category."""
    valid = [c for c, _ in facade.categories]
    choices = f"Choose one of: {', '.join(valid)}."
    wanted: list[str] = []
    if direct is not None:
        wanted.append(facade.category_of(direct) or valid[0])
    every = isinstance(category, list) and bool(category) and all(c in valid for c in category)
    if every:  # a call with arguments it does not take opened every category
        wanted[:0] = category
    elif category is not None:
        if category not in valid:
            return (
                f"Tool '{facade.name}' has no {facade.category_parameter} {category!r}. {choices}"
            )
        wanted.insert(0, category)
    if not wanted:
        return f"Tool '{facade.name}' needs a {facade.category_parameter}. {choices}"
    members = dict(facade.categories)
    names = {n for c in wanted for n in members[c]}
    tools = tuple(t for t in facade.inner if t.name in names)
    chosen = category if every else wanted[0]
    return Unfolded(facade.name, tools, {str(facade.category_parameter): chosen})


def _chosen(facade: UnfoldingTool, item: Any) -> BaseTool:
    if not isinstance(item, str):
        return inner_tool(item, facade.from_instance)
    tool = facade.inner_tool(item)
    if tool is None:
        raise DefinitionError(
            f"the selector chose '{item}', which is not an inner tool",
            path=f"facade '{facade.name}'",
            hint="return tools, or names of tools given in inner",
        )
    return tool


def _direct_target(
    facade: UnfoldingTool, parsed: Mapping[str, Any], current: Sequence[BaseTool] | None
) -> list[str]:
    """The arguments that name an inner tool to call directly."""
    properties = facade.input_schema.get("properties") or {}
    known = {t.name for t in (*facade.inner, *(current or ()))}
    direct = [k for k in parsed if k in known and k not in properties]
    if not direct and facade.selector is not None and current is None:
        unknown = [k for k in parsed if k not in properties]
        direct = unknown if len(unknown) == 1 else []  # maybe a tool the selector builds
    return direct


async def open_facade(
    facade: UnfoldingTool,
    arguments: Arguments = None,
    context: Context = None,
    current: Sequence[BaseTool] | None = None,
) -> ToolResult:
    """Run a call of ``facade``: list the tools it opens, or call the inner tool an
    argument names. With ``current`` (the tools it opened before) nothing is selected
    again. Arguments the facade does not take are ignored (the result says so in one
    line, naming the opened tool they fit, if exactly one does)."""
    parsed = parse_arguments(facade.name, arguments)
    if isinstance(parsed, str):
        return ToolResult.error(parsed)
    direct = _direct_target(facade, parsed, current)
    if len(direct) > 1:
        return ToolResult.error(
            f"Call one tool at a time through '{facade.name}', got: {', '.join(direct)}."
        )
    target = direct[0] if direct else None
    rest = {k: v for k, v in parsed.items() if k != target}
    own = set(taken(facade.input_schema))
    ignored = {k: v for k, v in rest.items() if k not in own}
    kept = {k: v for k, v in rest.items() if k in own}
    if current is not None:
        unfolded: Unfolded | str = Unfolded(facade.name, tuple(current))
    elif facade.category_parameter is not None:
        unfolded = _by_category_anyway(facade, kept, target, ignored)
    else:
        try:
            unfolded = select(facade, kept)
            if isinstance(unfolded, str) and ignored:
                unfolded = select(facade, rest)  # the whole call's problems, as before
        except DefinitionError:
            raise  # a mistake in the definition, not in the call
        except Exception as exc:
            return failure(facade.name, exc)
    if isinstance(unfolded, str):
        return ToolResult.error(unfolded)
    tool = next((t for t in unfolded.tools if t.name == target), None)
    if target is not None and tool is None:  # a name the selector did not build
        ignored = {target: parsed[target], **ignored}
        target = None
    note = _note(facade, unfolded, ignored)
    if tool is None:
        text = listing(unfolded.names, facade.usage_notes, note)
        return ToolResult(content=text, value=unfolded)
    result = await tool.acall(parsed[tool.name], context)
    decoded = parse_arguments(tool.name, parsed[tool.name])
    call = DirectCall(tool.name, decoded if isinstance(decoded, dict) else {}, result)
    return ToolResult(
        content=f"{result.text}\n{note}" if note else result.text,
        value=attrs.evolve(unfolded, listed=False, direct=call),
        is_error=result.is_error,
    )


def _by_category_anyway(
    facade: UnfoldingTool, kept: Mapping[str, Any], target: str | None, ignored: Mapping[str, Any]
) -> Unfolded | str:
    """A by-category call: with arguments it does not take and no category, the
    category of the one inner tool they fit, or every category."""
    category = kept.get(str(facade.category_parameter))
    if category is not None or target is not None or not ignored:
        return by_category(facade, category, target)
    fits = fitting(facade.inner, ignored)
    if len(fits) == 1:
        return by_category(facade, None, fits[0].name)
    return by_category(facade, [c for c, _ in facade.categories], None)


def _note(facade: UnfoldingTool, unfolded: Unfolded, ignored: Mapping[str, Any]) -> str | None:
    if not ignored:
        return None
    fits = fitting(unfolded.tools, ignored)
    return ignored_note(
        facade.name, facade.input_schema, ignored, fits[0] if len(fits) == 1 else None
    )


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
