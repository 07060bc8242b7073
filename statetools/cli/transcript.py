"""The live transcript of ``statetools run``: turns, visible tools, streamed text, calls."""

from __future__ import annotations

from collections import deque
from typing import Any, TextIO, cast

from statetools.cli.terminal import Output
from statetools.engine.events import (
    ConversationRestarted,
    Event,
    IterationStarted,
    ModelResponded,
    RunFinished,
    StateEntered,
    ToolAnswered,
    ToolsHidden,
    ToolsInjected,
    ToolsRemoved,
)
from statetools.engine.run_result import StreamEvent, TextDelta
from statetools.loop.streaming import ask_model
from statetools.models.base import (
    Model,
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    StreamSink,
)
from statetools.review.tokens import tools_tokens
from statetools.wording import counted


def _cut(line: str, width: int) -> str:
    """``line`` cut to ``width`` characters at a word boundary, marked ``...``."""
    if len(line) <= width:
        return line
    head = line[: width - 3]
    space = head.rfind(" ")
    if space > width // 2:
        head = head[:space]
    return head.rstrip() + "..."


class Transcript:
    """Prints a run's events as a readable transcript, in the order of the stream.

    What a call changed (tools hidden, states entered, injections) is printed after the
    call's answer, which already ends with the announcement the model reads. The
    model's text is printed as it streams in.

    >>> transcript = Transcript(sys.stdout)  # doctest: +SKIP
    >>> async for event in loop.stream(prompt, tools=tools): transcript(event)  # doctest: +SKIP
    """

    WIDTH = 240
    """Plain text cuts result lines longer than this (at a word boundary)."""
    LEGEND = "(< a call's result, x an error, + tools added, - tools hidden, > a state entered)"

    def __init__(self, out: TextIO | Output) -> None:
        self.output = out if isinstance(out, Output) else Output(out)
        self.pending: list[tuple[str, str]] = []
        self.requests: deque[str] = deque()
        """Lines about requests (see :class:`Watched`), printed after their turn line."""
        self.streaming = False
        self.last_text = ""
        """The model's text of the last response (the final answer, at the end)."""
        self.last_result = ""
        """The text of the last tool result (the answer of a return_direct tool)."""

    @property
    def out(self) -> TextIO:
        """The stream written to."""
        return self.output.out

    def legend(self) -> None:
        """The line that explains the markers."""
        self.output.line(self.LEGEND, "legend")

    def __call__(self, event: StreamEvent) -> None:
        if isinstance(event, TextDelta):
            if not self.streaming:
                self.output.write("  model: ", "model")
                self.streaming = True
                self.last_text = ""
            self.last_text += event.text
            self.output.write(event.text, "model")
            return
        if isinstance(event, ModelResponded):
            if self.streaming:
                self.output.write("\n")
                self.streaming = False
                event = ModelResponded(event.iteration, "", event.tool_calls, event.stop_reason)
            else:
                self.last_text = event.text
        line = self._line(cast(Event, event))
        if line is None:
            return
        kind = _KINDS.get(type(event), "")
        if isinstance(event, ToolAnswered):
            self.last_result = event.text
            kind = "failed" if event.is_error else kind
        if isinstance(event, ToolsHidden | StateEntered | ToolsInjected | ToolsRemoved):
            self.pending.append((line, kind))
            return
        self.output.line(line, kind)
        if isinstance(event, IterationStarted) and self.requests:
            self.output.line(self.requests.popleft().rstrip("\n"), "visible")
        if isinstance(event, ToolAnswered):
            for later, later_kind in self.pending:
                self.output.line(later, later_kind)
            self.pending.clear()
        self.output.flush()

    def shown(self, answer: str) -> bool:
        """Whether ``answer`` was already printed (as the model's text or a tool result)."""
        return bool(answer.strip()) and answer.strip() in (
            self.last_text.strip(),
            self.last_result.strip(),
        )

    def _short(self, text: str) -> str:
        if self.output.rich:  # a terminal wraps long lines to its width, indented
            return "\n  ".join(text.splitlines())
        return "\n      ".join(_cut(line, self.WIDTH) for line in text.splitlines())

    def _line(self, event: Event) -> str | None:
        match event:
            case IterationStarted(iteration=n):
                return f"turn {n}"
            case ModelResponded(text=text, tool_calls=calls):
                lines = [f"  model: {text}"] if text else []
                if calls:
                    lines.append(f"  model calls: {', '.join(calls)}")
                return "\n".join(lines) or None
            case ToolAnswered(name=name, text=text, is_error=is_error):
                return f"    {'x' if is_error else '<'} {name}: {self._short(text)}"
            case ToolsHidden(names=names):
                return f"    - hidden: {', '.join(names)}"
            case ToolsInjected(names=names):
                return f"    + injected: {', '.join(names)}"
            case ToolsRemoved(names=names):
                return f"    - removed: {', '.join(names)}"
            case StateEntered(machine=machine, state=state, previous=previous, final=final):
                return f"    > {machine}: {previous} -> {state}{' (final)' if final else ''}"
            case ConversationRestarted(conversation=number):
                return f"  (conversation restarted: #{number})"
            case RunFinished(outcome=outcome, iterations=iterations):
                return f"finished ({outcome}) after {counted(iterations, 'model call')}"
        return None


_KINDS: dict[type, str] = {
    IterationStarted: "turn",
    ModelResponded: "calls",
    ToolAnswered: "answered",
    ToolsHidden: "change",
    ToolsInjected: "change",
    ToolsRemoved: "change",
    StateEntered: "change",
    ConversationRestarted: "note",
    RunFinished: "note",
}


class Watched:
    """Wraps the run's model to note each request's visible tools and their tokens in
    the transcript (printed under the turn's line), and streams when the model can.

    >>> ToolLoop(Watched(model, transcript, "openai"))  # doctest: +SKIP
    """

    def __init__(self, model: Model, transcript: Transcript, provider: str) -> None:
        self.model = model
        self.transcript = transcript
        self.provider = provider

    @property
    def capabilities(self) -> ModelCapabilities:
        """The wrapped model's capabilities."""
        return self.model.capabilities

    def _note(self, request: ModelRequest) -> None:
        tokens = tools_tokens(cast(Any, request.tools), cast(Any, self.provider))
        names = ", ".join(request.tool_names) or "(none)"
        count = len(request.tools)
        noun = "tool" if count == 1 else "tools"
        self.transcript.requests.append(f"  visible ({count} {noun}, {tokens:,} tokens): {names}\n")

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Note the request, then ask the wrapped model."""
        self._note(request)
        return await self.model.complete(request)

    async def stream(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        """Note the request, then ask the wrapped model, streaming if it can."""
        self._note(request)
        return await ask_model(self.model, request, sink)
