"""The calls of one model response, handed to the host one at a time.

A call may open or close the tools of the calls after it (a playbook step unlocks the
next one; a state machine moves on), so a call is checked only once the calls before
it are answered: iterate in order and answer each call before taking the next one.
A call of a tool that is unknown or locked is never handed out: it is answered with
its guidance text on the way.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from statetools.errors import StatetoolsError
from statetools.messages import ToolCall
from statetools.tools.tool import BaseTool

__all__ = ["Call", "Calls"]


@attrs.frozen
class Call:
    """One call for the host to run: the model's ``call`` of ``tool``, and the clock's
    reading when it was handed out (a call's duration is measured from it).

    >>> from statetools.tools.tool import Tool
    >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
    >>> call = Call(ToolCall("c1", "ping", {"host": "a"}), ping, 0.0)
    >>> call.id, call.name, call.arguments, call.tool.name
    ('c1', 'ping', {'host': 'a'}, 'ping')
    """

    call: ToolCall
    tool: BaseTool
    started: float = 0.0

    @property
    def id(self) -> str:
        """The call's id, as the model sent it.

        >>> Call(ToolCall("c1", "ping"), Tool.create("ping", "Ping.", lambda: "")).id
        'c1'
        """
        return self.call.id

    @property
    def name(self) -> str:
        """The name of the tool called.

        >>> Call(ToolCall("c1", "ping"), Tool.create("ping", "Ping.", lambda: "")).name
        'ping'
        """
        return self.call.name

    @property
    def arguments(self) -> Mapping[str, Any]:
        """The arguments the model sent.

        >>> tool = Tool.create("ping", "Ping.", lambda: "")
        >>> Call(ToolCall("c1", "ping", {"n": 1}), tool).arguments
        {'n': 1}
        """
        return self.call.arguments

    @property
    def invalid_arguments(self) -> str | None:
        """Why the arguments could not be read (not JSON, say), or None: such a call is
        answered with this text as an error result, without running the tool.

        >>> bad = ToolCall("c1", "ping", {}, invalid_arguments="arguments are not JSON")
        >>> Call(bad, Tool.create("ping", "Ping.", lambda: "")).invalid_arguments
        'arguments are not JSON'
        """
        return self.call.invalid_arguments


class Calls(Iterator[Call]):
    """The calls of one response still to run, in order (see the module's docstring).

    Taking the next call before the one handed out is answered is refused: the answer
    may change whether the next call may run.

    >>> from statetools.engine import Conversation
    >>> from statetools.models.base import ModelResponse
    >>> from statetools.messages import AssistantMessage
    >>> from statetools.tools.calling import ToolResult
    >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
    >>> conv = Conversation([ping], "Is the host up?", run_id="r1", clock=lambda: 0.0)
    >>> _ = conv.next_request()
    >>> both = (ToolCall("c1", "pnig"), ToolCall("c2", "ping"))
    >>> calls = conv.take(ModelResponse(AssistantMessage("", both), stop_reason="tool_use"))
    >>> for call in calls:
    ...     print(call.id, call.name, conv.answer(call, ToolResult.text("pong"))[-1].text)
    c2 ping pong
    >>> conv.messages[2].content
    "Tool 'pnig' does not exist. Did you mean 'ping'? Available tools: ping."
    """

    def __init__(
        self,
        pending: list[ToolCall],
        open_call: Callable[[ToolCall], Call | None],
        after: Callable[[], None],
    ) -> None:
        self._pending = deque(pending)
        self._open = open_call
        """Hands out a call, or answers it when it may not run (then None)."""
        self._after = after
        """Takes the end of the response, once every call is answered."""
        self._current: Call | None = None
        self._handed = False

    def __iter__(self) -> Calls:
        return self

    def __next__(self) -> Call:
        current = self._current
        if current is None:
            raise StopIteration
        if self._handed:
            raise StatetoolsError(
                f"call {current.id!r} ({current.name}) has no answer yet",
                path="Conversation.take",
                hint="answer each call before taking the next: conv.answer(call, result)",
            )
        self._handed = True
        return current

    def current(self) -> Call | None:
        """The call waiting for its answer (None when every call is answered).

        >>> Calls([], lambda call: None, lambda: None).current() is None
        True
        """
        return self._current

    def advance(self) -> None:
        """Go to the next call that may run: calls that may not are answered with their
        guidance on the way; once none is left, the response's end is taken (the run
        may finish, or fail after too many unknown tools).

        >>> ended = []
        >>> Calls([ToolCall("c1", "nope")], lambda call: None, lambda: ended.append(1)).advance()
        >>> ended
        [1]
        """
        self._current, self._handed = None, False
        while self._pending:
            opened = self._open(self._pending.popleft())
            if opened is not None:
                self._current = opened
                return
        self._after()
