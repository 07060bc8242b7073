"""Example requests: what a user would say when a tool is needed, written by a model.

A meaning ranker finds a tool more often when it also matches a few requests in a
user's words (see ``searchable(..., example_requests=...)``). :func:`example_requests` asks a
model for them, once, at design time: one request to the model per tool, no tools
offered, and the answer read one request per line.

>>> from statetools import Tool
>>> from statetools.models import ScriptedModel
>>> cd = Tool.create("cd", "Change the current directory.", lambda folder: folder)
>>> example_requests([cd], ScriptedModel(["- Go to my Documents folder.\\n"
...                                       "- Open the Pictures directory."]), per_tool=2)
{'cd': ['Go to my Documents folder.', 'Open the Pictures directory.']}
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from typing import Any

from statetools.errors import DefinitionError, StatetoolsError
from statetools.messages import UserMessage
from statetools.models.base import Model, ModelRequest, ModelResponse
from statetools.search.documents import documents_for
from statetools.tools.tool import BaseTool

__all__ = ["PROMPT", "aexample_requests", "example_requests", "requests_in"]

PROMPT = (
    "Tool: {name}\n"
    "What it does: {focus}\n"
    "\n"
    "Write {per_tool} different requests, each a full English sentence, that a person "
    "might say to an assistant when this tool is needed (alone or as one step of a bigger "
    "task). Everyday words, no code, no tool names. One request per line, no numbering."
)
"""The one user message sent for each tool: ``name`` is the tool's name, ``focus`` its
:attr:`~statetools.search.Document.focus` within the catalogue, ``per_tool`` how many
requests to write.

>>> print(PROMPT.format(name="cd", focus="cd. Change the directory", per_tool=2))
... # doctest: +ELLIPSIS
Tool: cd
What it does: cd. Change the directory
<BLANKLINE>
Write 2 different requests, each a full English sentence, that a person might say ...
"""

_WHERE = "example_requests"
_MARKER = re.compile(r"^(?:[-*\u2022]\s*|\d{1,3}[.)]\s+)")
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "`": "`"}
_PLAIN_WORD = re.compile(r"[A-Za-z][a-z]*")
_OUTPUT_TOKENS = 150
"""The output cap of a model made from a string, for up to four requests (40 more for
each request past four)."""


def _check_per_tool(per_tool: object, name: str = "per_tool") -> int:
    if isinstance(per_tool, bool) or not isinstance(per_tool, int) or per_tool < 1:
        raise DefinitionError(
            f"{name} must be a whole number of at least 1, not {per_tool!r}",
            path=_WHERE,
            hint=f"pass {name}=4 (the default), or another number such as 2 or 8",
        )
    return per_tool


def _check_tools(tools: Sequence[BaseTool]) -> list[BaseTool]:
    if isinstance(tools, str | bytes | Mapping):
        raise DefinitionError(
            f"expected a list of tools, not {type(tools).__name__}",
            path=_WHERE,
            hint="pass the tools themselves, e.g. example_requests([tool_a, tool_b], model)",
        )
    checked: list[BaseTool] = []
    seen: set[str] = set()
    for position, tool in enumerate(tools):
        if not isinstance(tool, BaseTool):
            raise DefinitionError(
                f"item {position} is {type(tool).__name__}, not a tool",
                path=_WHERE,
                hint="pass statetools tools (Tool.create, @llm_tool, Tool.from_function, ...)",
            )
        if tool.name in seen:
            raise DefinitionError(
                f"two tools are named {tool.name!r}",
                path=f"{_WHERE}.{tool.name}",
                hint="give every tool of one call its own name: the result maps names to requests",
            )
        seen.add(tool.name)
        checked.append(tool)
    return checked


def _model(model: Model | str, per_tool: int, options: Mapping[str, Any] | None) -> Model:
    """The model itself, or the model a string names, made to answer at temperature 0
    with a short output cap (``options`` added on top)."""
    from statetools.models.model_strings import parse, resolve

    if not isinstance(model, str):
        if options:
            raise DefinitionError(
                "model_options only apply to a model given as a string",
                path=_WHERE,
                hint="set the options on the model you made, e.g. "
                "OpenAIChatModel(name, temperature=0, max_tokens=150)",
            )
        return resolve(model)
    provider, _ = parse(model)
    if provider == "scripted":
        return resolve(model, **dict(options or {}))
    cap = _OUTPUT_TOKENS + 40 * max(0, per_tool - 4)
    limit = {"openai": "max_output_tokens"}.get(provider, "max_tokens")
    merged = {"temperature": 0, limit: cap, **dict(options or {})}
    return resolve(model, **{key: value for key, value in merged.items() if value is not None})


def _unquoted(text: str) -> str:
    while len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return text


def _names_tool(line: str, name: str, description: str) -> bool:
    """Whether ``line`` names the tool: its name as a word of its own, any case. A name
    that is one word the tool's own description uses ("find" for "Find files ...") is
    an everyday word there: only written as code (in backticks, or called) counts."""
    escaped = re.escape(name)
    word = rf"(?<![\w.]){escaped}(?![\w])"
    if _PLAIN_WORD.fullmatch(name) and re.search(word, description, flags=re.IGNORECASE):
        word = rf"`{escaped}\b|(?<![\w.]){escaped}\s*\("
    return re.search(word, line, flags=re.IGNORECASE) is not None


def requests_in(answer: str, name: str, per_tool: int, *, description: str = "") -> list[str]:
    """The requests of a model's ``answer`` for the tool ``name`` (described by
    ``description``): one per non-empty line, without a leading list marker (``-``,
    ``*``, ``•``, ``1.``, ``1)``) and surrounding quotes; lines that name the tool are
    left out (a name that is an everyday word of its description, such as ``find``,
    only when written as code), and so are repeats; at most ``per_tool``, in order.

    >>> requests_in('1. "Go home."\\n\\n2) Use cd to go home.\\n- go home.\\n* List it.',
    ...             "cd", 4, description="Change the current directory.")
    ['Go home.', 'List it.']
    >>> requests_in("Find my notes.\\nRun `find` on the disk.", "find", 4,
    ...             description="Find files by name.")
    ['Find my notes.']
    """
    per_tool = _check_per_tool(per_tool)
    found: list[str] = []
    seen: set[str] = set()
    for raw in answer.splitlines():
        line = _unquoted(_MARKER.sub("", raw.strip(), count=1).strip())
        key = " ".join(line.casefold().split())
        if not line or key in seen or _names_tool(line, name, description):
            continue
        seen.add(key)
        found.append(line)
        if len(found) == per_tool:
            break
    return found


def _answer(response: ModelResponse) -> str:
    text = response.message.content or ""
    if response.stop_reason == "max_tokens":  # cut off: the last line is unfinished
        text = text.rsplit("\n", 1)[0] if "\n" in text.strip() else ""
    return text


async def aexample_requests(
    tools: Sequence[BaseTool],
    model: Model | str,
    *,
    per_tool: int = 4,
    concurrency: int = 4,
    model_options: Mapping[str, Any] | None = None,
) -> dict[str, list[str]]:
    """For each tool, up to ``per_tool`` requests a person might make when it is
    needed, written by ``model`` (one request per tool, ``concurrency`` at once; the
    message is :data:`PROMPT`). A model string is made with temperature 0 and an output
    cap of 150 tokens (``model_options`` adds to or replaces those, e.g.
    ``{"base_url": "http://127.0.0.1:8080/v1"}``; a None leaves one out, as
    ``{"temperature": None}`` for a model that takes none); a Model object is used as
    made.

    An answer without a usable line gives its tool an empty list; an answer cut off at
    the output cap loses its unfinished last line; a provider error is raised as the
    adapter raises it.

    >>> import asyncio
    >>> from statetools import Tool
    >>> from statetools.models import ScriptedModel
    >>> ls = Tool.create("ls", "List the files of a folder.", lambda folder: folder)
    >>> model = ScriptedModel(["What is in my Downloads folder?\\nShow me my files."])
    >>> asyncio.run(aexample_requests([ls], model, per_tool=2))
    {'ls': ['What is in my Downloads folder?', 'Show me my files.']}
    """
    per_tool = _check_per_tool(per_tool)
    concurrency = _check_per_tool(concurrency, "concurrency")
    checked = _check_tools(tools)
    made = _model(model, per_tool, model_options)
    documents = documents_for(checked)
    gate = asyncio.Semaphore(concurrency)
    failed: list[str] = []

    async def ask(tool: BaseTool, focus: str) -> list[str]:
        text = PROMPT.format(name=tool.name, focus=focus, per_tool=per_tool)
        async with gate:
            if failed:  # another request failed: what is waiting never starts
                return []
            try:
                response = await made.complete(ModelRequest((UserMessage(text),)))
            except BaseException:
                failed.append(tool.name)
                raise
        return requests_in(_answer(response), tool.name, per_tool, description=tool.description)

    tasks = [
        asyncio.ensure_future(ask(tool, document.focus))
        for tool, document in zip(checked, documents, strict=True)
    ]
    try:
        found = await asyncio.gather(*tasks)
    except BaseException:  # the first failure is raised as is; the other requests stop
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return {tool.name: requests for tool, requests in zip(checked, found, strict=True)}


def example_requests(
    tools: Sequence[BaseTool],
    model: Model | str,
    *,
    per_tool: int = 4,
    concurrency: int = 4,
    model_options: Mapping[str, Any] | None = None,
) -> dict[str, list[str]]:
    """:func:`aexample_requests` run to the end (outside async code).

    >>> from statetools import Tool
    >>> from statetools.models import ScriptedModel
    >>> cd = Tool.create("cd", "Change the current directory.", lambda folder: folder)
    >>> model = ScriptedModel(["Please go to my Documents folder.\\n"
    ...                        "Open the Pictures directory."])
    >>> example_requests([cd], model, per_tool=2)
    {'cd': ['Please go to my Documents folder.', 'Open the Pictures directory.']}
    >>> print(model.requests[0].messages[0].content.splitlines()[1])
    What it does: cd. Change the current directory. folder
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(
            aexample_requests(
                tools,
                model,
                per_tool=per_tool,
                concurrency=concurrency,
                model_options=model_options,
            )
        )
    raise StatetoolsError(
        "example_requests() was called inside a running event loop",
        path=_WHERE,
        hint="use 'await aexample_requests(...)' in async code",
    )
