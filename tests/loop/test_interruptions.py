"""Cancellation, Ctrl-C and SystemExit keep the run: every call answered, listeners told,
the run so far on the exception (and on ``loop.last_result``), the exception raised again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import statetools as st
from statetools.engine.events import RunFinished, ToolAnswered
from statetools.models import ModelCapabilities, ModelRequest, ModelResponse, ScriptedModel

NOT_RUN = "No result: the run stopped before this call was answered."


def echo(text: str) -> str:
    """Echo the text."""
    return text


ECHO = st.Tool.from_function(echo)


def raising(exc: BaseException, *, on_loop_thread: bool = False) -> st.Tool:
    def stop() -> str:
        raise exc

    return st.Tool.create(
        "stop", "Stop everything.", stop, metadata={"on_loop_thread": on_loop_thread}
    )


def answered(events: list[st.Event]) -> list[tuple[str, str, bool]]:
    return [(e.call_id, e.text, e.is_error) for e in events if isinstance(e, ToolAnswered)]


def test_cancelling_the_task_during_a_tool_call_keeps_the_run() -> None:
    events: list[st.Event] = []
    started = asyncio.Event()

    async def wait() -> str:
        """Wait for a long time."""
        started.set()
        await asyncio.sleep(60)
        return "never"

    model = ScriptedModel([[("echo", {"text": "a"}), ("wait", {}), ("echo", {"text": "b"})]])
    loop = st.ToolLoop(model, listeners=[events.append])

    async def main() -> asyncio.CancelledError:
        task = asyncio.create_task(loop.arun("go", tools=[ECHO, st.Tool.from_function(wait)]))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as caught:
            await task
        assert task.cancelled()
        return caught.value

    cancelled = asyncio.run(main())

    result = cancelled.result  # type: ignore[attr-defined]
    assert result is loop.last_result
    assert result.outcome == "cancelled"
    assert result.messages[2:] == (
        st.ToolMessage("call_1", "echo", "a"),
        st.ToolMessage("call_2", "wait", NOT_RUN, True),
        st.ToolMessage("call_3", "echo", NOT_RUN, True),
    )
    assert answered(events) == [
        ("call_1", "a", False),
        ("call_2", NOT_RUN, True),
        ("call_3", NOT_RUN, True),
    ]
    assert isinstance(events[-1], RunFinished)
    assert (events[-1].iterations, events[-1].outcome) == (1, "cancelled")
    assert list(result.trace) == events
    # the call that was running started and never returned; the one after never started
    assert [(e.type, getattr(e, "call_id", None)) for e in events[3:]] == [
        ("tool_started", "call_1"),
        ("tool_called", "call_1"),
        ("tool_answered", "call_1"),
        ("tool_started", "call_2"),
        ("tool_answered", "call_2"),
        ("tool_answered", "call_3"),
        ("run_finished", None),
    ]


class Hanging:
    """A model whose request never returns."""

    capabilities = ModelCapabilities()

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.started.set()
        await asyncio.sleep(60)
        raise AssertionError("unreachable")


def test_cancelling_during_the_model_request_keeps_the_history_and_can_be_awaited_as_usual() -> (
    None
):
    model = Hanging()
    loop = st.ToolLoop(model)

    async def main() -> Any:
        task = asyncio.create_task(loop.arun("go"))
        await model.started.wait()
        task.cancel("user stopped")
        await asyncio.wait([task])
        return task

    task = asyncio.run(main())
    assert task.cancelled()
    assert loop.last_result is not None
    assert loop.last_result.messages == (st.UserMessage("go"),)
    assert loop.last_result.outcome == "cancelled"
    assert loop.last_result.trace[-1].outcome == "cancelled"


@pytest.mark.parametrize("on_loop_thread", [False, True])
@pytest.mark.parametrize("exc_type", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_or_system_exit_from_a_handler_is_raised_with_the_run(
    exc_type: type[BaseException], on_loop_thread: bool
) -> None:
    events: list[st.Event] = []
    original = exc_type(3)
    model = ScriptedModel([[("echo", {"text": "a"}), ("stop", {}), ("echo", {"text": "b"})]])
    loop = st.ToolLoop(model, listeners=[events.append])

    with pytest.raises(exc_type) as caught:
        loop.run("go", tools=[ECHO, raising(original, on_loop_thread=on_loop_thread)])

    assert caught.value is original
    result = caught.value.result  # type: ignore[attr-defined]
    assert result is loop.last_result
    assert (result.outcome, result.output, result.iterations) == ("interrupted", None, 1)
    assert answered(events) == [
        ("call_1", "a", False),
        ("call_2", NOT_RUN, True),
        ("call_3", NOT_RUN, True),
    ]
    assert isinstance(events[-1], RunFinished)
    assert events[-1].outcome == "interrupted"


class Interrupted:
    capabilities = ModelCapabilities()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise KeyboardInterrupt


def test_keyboard_interrupt_from_the_model_is_raised_with_the_run() -> None:
    events: list[st.Event] = []
    loop = st.ToolLoop(Interrupted(), listeners=[events.append])
    with pytest.raises(KeyboardInterrupt) as caught:
        loop.run("go")
    result = caught.value.result  # type: ignore[attr-defined]
    assert result.messages == (st.UserMessage("go"),)
    assert [e.type for e in events] == ["run_started", "iteration_started", "run_finished"]
    assert result.trace.to_json()[-1]["outcome"] == "interrupted"


def test_a_listener_failing_while_the_run_is_cancelled_does_not_hide_the_cancellation() -> None:
    def listener(event: st.Event) -> None:
        if event.type == "run_finished":
            raise ValueError("listener bug")

    loop = st.ToolLoop(Interrupted(), listeners=[listener])
    with pytest.raises(KeyboardInterrupt):
        loop.run("go")
    assert loop.last_result is not None
    assert loop.last_result.outcome == "interrupted"


def test_errors_that_end_a_run_also_set_last_result_and_outcome() -> None:
    loop = st.ToolLoop(ScriptedModel([("echo", {"text": "a"})] * 2), max_iterations=1)
    with pytest.raises(st.MaxIterationsExceeded) as caught:
        loop.run("go", tools=[ECHO])
    assert caught.value.result is loop.last_result
    assert loop.last_result is not None
    assert loop.last_result.outcome == "MaxIterationsExceeded"
    fine = st.ToolLoop(ScriptedModel(["Hi."]))
    assert fine.run("go") is fine.last_result


def test_ctrl_c_during_the_sync_run_raises_keyboard_interrupt_with_the_run() -> None:
    import signal

    seen: list[object] = []

    async def press_ctrl_c() -> str:
        """Wait for the user."""
        # what Ctrl-C meets: asyncio.run's own handler, and SIGINT not blocked
        seen.append(signal.getsignal(signal.SIGINT))
        seen.append(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))
        signal.raise_signal(signal.SIGINT)  # asyncio.run cancels the run's task
        await asyncio.sleep(5)
        return "never"

    tool = st.Tool.from_function(press_ctrl_c)
    loop = st.ToolLoop(ScriptedModel([[("press_ctrl_c", {}), ("echo", {"text": "b"})]]))

    # Ctrl-C as a fresh interpreter has it, whatever a test before this one left behind
    # (asyncio.run only installs its handler over Python's default one)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    try:
        loop.run("go", tools=[tool, ECHO])
    except KeyboardInterrupt as interrupt:
        caught = interrupt
    except Exception as other:
        pytest.fail(f"Ctrl-C did not stop the run ({other!r}); SIGINT handler, blocked: {seen}")
    else:
        pytest.fail(f"Ctrl-C did not stop the run; SIGINT handler, blocked: {seen}")
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        signal.signal(signal.SIGINT, previous)

    assert getattr(seen[0], "func", None) is not None, seen  # asyncio's partial handler
    assert seen[1] is False
    result = caught.result  # type: ignore[attr-defined]
    assert result is loop.last_result
    assert result.outcome == "cancelled"
    assert result.messages[2:] == (
        st.ToolMessage("call_1", "press_ctrl_c", NOT_RUN, True),
        st.ToolMessage("call_2", "echo", NOT_RUN, True),
    )


def test_asyncio_timeout_around_a_run_still_raises_timeout_error() -> None:
    model = Hanging()
    loop = st.ToolLoop(model)

    async def main() -> None:
        async with asyncio.timeout(0.05):
            await loop.arun("go")

    with pytest.raises(TimeoutError) as caught:
        asyncio.run(main())

    cancelled = caught.value.__context__
    assert isinstance(cancelled, asyncio.CancelledError)
    assert cancelled.result is loop.last_result  # type: ignore[attr-defined]
    assert loop.last_result is not None
    assert loop.last_result.outcome == "cancelled"
