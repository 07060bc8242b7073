"""Programmatic tool calling: the model writes code that the provider runs, and the code
calls the run's tools, each call answered by the run under its locks.

Anthropic's programmatic tool calling, on the Messages API: Claude writes code that
Anthropic runs in a container, and the code calls the run's tools.

With ``AnthropicModel(..., code_execution=True)`` every tool of a request may be called
both directly and from code (``allowed_callers``), and the code execution tool is
declared. A call made by the code arrives as an ordinary ``tool_use`` block (with a
``caller`` naming the code execution), so the run answers it as any call: a tool that
is locked now does not run, and the code gets the usual guidance as an error result.
Only the tools visible now are declared, so the code can name no other. The answer's
blocks go back verbatim (``AssistantMessage.native``), with the container's id, which
the next request names so the code goes on where it stopped.

OpenAI's Programmatic Tool Calling, on the Responses API: the model writes a program
(JavaScript) that OpenAI runs, and the program calls the run's tools.

With ``OpenAIResponsesModel(..., code_execution=True)`` every function tool of a
request may be called both directly and from a program (``allowed_callers``), and the
``programmatic_tool_calling`` tool is declared. The answer holds a ``program`` item (its
code, its ``call_id`` and a ``fingerprint``) and the calls the program makes, each an
ordinary ``function_call`` item with ``caller: {"type": "program", "caller_id": ...}``;
the run answers them as any call (a tool that is locked now does not run, and the
program gets the usual guidance as the call's output). The answer's output items go
back verbatim (``AssistantMessage.native``: the program, its fingerprint and the calls,
in order), and each output of a program's call names its caller again, so the program
goes on where it stopped; its ``program_output`` item comes back with the answer that
ends it.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

from statetools.errors import StatetoolsError
from statetools.messages import AssistantMessage, Message

__all__ = [
    "ANTHROPIC_CALLER",
    "CODE_EXECUTION",
    "PROGRAMMATIC_TOOL",
    "ProgrammaticTools",
    "anthropic_programmatic",
    "container_of",
    "from_code",
    "native_output",
    "replayed",
    "responses_programmatic",
    "with_caller",
]

ANTHROPIC_CALLER = "code_execution_20250825"
"""The caller type of a call made by Claude's code."""
CODE_EXECUTION = {"type": ANTHROPIC_CALLER, "name": "code_execution"}
"""The code execution tool, as the Messages API takes it."""


def anthropic_programmatic(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``tools`` (a request's ``tools`` array) callable from code as well as directly,
    then the code execution tool; server tools (with a ``type``) are left as they are.

    >>> anthropic_programmatic([{"name": "ping", "description": "Ping.", "input_schema": {}}])
    [{'name': 'ping', 'description': 'Ping.', 'input_schema': {}, 'allowed_callers': ['direct', 'code_execution_20250825']}, {'type': 'code_execution_20250825', 'name': 'code_execution'}]
    """  # noqa: E501
    wire = [
        dict(tool) if "type" in tool else {**tool, "allowed_callers": ["direct", ANTHROPIC_CALLER]}
        for tool in tools
    ]
    return [*wire, dict(CODE_EXECUTION)]


def from_code(block: Mapping[str, Any]) -> bool:
    """Whether a content block (as JSON) is a tool call made by Claude's code.

    >>> from_code({"type": "tool_use", "caller": {"type": "code_execution_20250825"}})
    True
    >>> from_code({"type": "tool_use", "caller": {"type": "direct"}})
    False
    """
    caller = block.get("caller")
    kind = caller.get("type") if isinstance(caller, Mapping) else None
    return block.get("type") == "tool_use" and kind not in (None, "direct")


def container_of(messages: Sequence[Message]) -> str | None:
    """The id of the code execution container of the latest answer that used one.

    >>> native = {"anthropic": {"content": [], "container": "container_1"}}
    >>> container_of([AssistantMessage("", native=native), AssistantMessage("Done.")])
    'container_1'
    """
    for message in reversed(messages):
        if not isinstance(message, AssistantMessage) or not message.native:
            continue
        kept = message.native.get("anthropic")
        container = kept.get("container") if isinstance(kept, Mapping) else None
        if isinstance(container, str):
            return container
    return None


PROGRAMMATIC_TOOL = {"type": "programmatic_tool_calling"}
"""The tool that lets the model write programs, as the Responses API takes it."""
RESPONSES_CALLERS = ["direct", "programmatic"]
"""Who may call a declared function: the model itself and its programs."""
PROGRAM_ITEMS = ("program", "program_output")


def responses_programmatic(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``tools`` (a request's ``tools`` array) with every ``function`` callable from a
    program as well as directly, then the ``programmatic_tool_calling`` tool; other
    tools are left as they are. No tools, no programs: an empty array stays empty.

    >>> responses_programmatic([{"type": "function", "name": "ping", "parameters": {}}])
    [{'type': 'function', 'name': 'ping', 'parameters': {}, 'allowed_callers': \
['direct', 'programmatic']}, {'type': 'programmatic_tool_calling'}]
    >>> responses_programmatic([])
    []
    """
    if not tools:
        return []
    wire = [
        {**tool, "allowed_callers": list(RESPONSES_CALLERS)}
        if tool.get("type") == "function"
        else dict(tool)
        for tool in tools
    ]
    return [*wire, dict(PROGRAMMATIC_TOOL)]


def _from_program(item: Any) -> bool:
    caller = item.get("caller") if isinstance(item, Mapping) else getattr(item, "caller", None)
    kind = caller.get("type") if isinstance(caller, Mapping) else getattr(caller, "type", None)
    return kind == "program"


def native_output(output: Sequence[Any]) -> dict[str, Any] | None:
    """What an answer's output items (the SDK's) keep in ``AssistantMessage.native``, as
    JSON: all of them, in order, when a program, its output or a call made by a program
    is among them; None otherwise.

    >>> from openai.types.responses import ResponseFunctionToolCall
    >>> call = ResponseFunctionToolCall.model_validate({
    ...     "type": "function_call", "call_id": "call_2", "name": "ping", "arguments": "{}",
    ...     "caller": {"type": "program", "caller_id": "call_1"}})
    >>> native_output([call])["openai"]["output"][0]["caller"] == call.caller.to_dict()
    True
    >>> native_output([call.model_copy(update={"caller": None})]) is None
    True
    """
    if not any(
        getattr(item, "type", None) in PROGRAM_ITEMS or _from_program(item) for item in output
    ):
        return None
    try:
        return {
            "openai": {"output": [item.to_dict(mode="json", warnings=False) for item in output]}
        }
    except ValueError:  # a value the SDK cannot write as JSON: built from the calls instead
        return None


def replayed(
    native: Mapping[str, Any] | None,
    call_ids: Sequence[str],
    callers: MutableMapping[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    """The input items to send back for an answer kept with ``native`` output items, when
    they still fit its tool calls (the same ``function_call`` ids, in order); else an
    empty list (the answer is built from its text and calls, as without them). The
    ``caller`` of each call a program made goes into ``callers``, by call id.

    >>> kept = {"openai": {"output": [
    ...     {"type": "program", "call_id": "call_1"},
    ...     {"type": "function_call", "call_id": "call_2",
    ...      "caller": {"type": "program", "caller_id": "call_1"}}]}}
    >>> callers = {}
    >>> [item["type"] for item in replayed(kept, ["call_2"], callers)]
    ['program', 'function_call']
    >>> callers
    {'call_2': {'type': 'program', 'caller_id': 'call_1'}}
    >>> replayed(kept, ["call_3"], callers), replayed(None, [], callers)
    ([], [])
    """
    kept = (native or {}).get("openai")
    output = kept.get("output") if isinstance(kept, Mapping) else None
    if not isinstance(output, list) or not all(isinstance(item, Mapping) for item in output):
        return []
    calls = [item for item in output if item.get("type") == "function_call"]
    if [item.get("call_id") for item in calls] != list(call_ids):
        return []
    callers.update(
        (str(item["call_id"]), dict(item["caller"])) for item in calls if _from_program(item)
    )
    return [dict(item) for item in output]


def with_caller(output: dict[str, Any], callers: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """A ``function_call_output`` item, naming the ``caller`` of its call when a program
    made it (the program gets the output then).

    >>> output = {"type": "function_call_output", "call_id": "call_2", "output": "pong"}
    >>> with_caller(output, {"call_2": {"type": "program", "caller_id": "call_1"}})["caller"]
    {'type': 'program', 'caller_id': 'call_1'}
    >>> with_caller(output, {}) == output
    True
    """
    caller = callers.get(str(output.get("call_id")))
    return output if caller is None else {**output, "caller": caller}


class ProgrammaticTools:
    """:func:`responses_programmatic` for the requests of one model, made again only when the
    tools array is another list than the last one (the wire caches keep it while the
    tools are the same).

    >>> tools = [{"type": "function", "name": "ping"}]
    >>> wrap = ProgrammaticTools()
    >>> wrap(tools) is wrap(tools)
    True
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[object, list[dict[str, Any]]] | None = None

    @classmethod
    def of(cls, code_execution: bool, disclosure: str) -> ProgrammaticTools | None:
        """The wrapper an ``OpenAIResponsesModel`` uses, None without ``code_execution``;
        a disclosure mode other than ``tools`` is refused with a StatetoolsError.

        >>> ProgrammaticTools.of(False, "tool_search") is None
        True
        >>> ProgrammaticTools.of(True, "allowed_tools")
        Traceback (most recent call last):
        statetools.errors.StatetoolsError: OpenAIResponsesModel(code_execution=...): ...
        """
        if not code_execution:
            return None
        if disclosure != "tools":
            raise StatetoolsError(
                f"code_execution=True works with disclosure='tools', not {disclosure!r}",
                path="OpenAIResponsesModel(code_execution=...)",
                hint="leave disclosure at 'tools'; ToolLoop(visibility='declared') declares "
                "the locked tools too, so a program can call them once they open",
            )
        return cls()

    def __call__(self, tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        last = self._last
        if last is not None and last[0] is tools:
            return last[1]
        wire = responses_programmatic(tools)
        self._last = (tools, wire)
        return wire
