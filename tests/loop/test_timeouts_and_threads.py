"""Per-tool timeouts, and synchronous handlers that never block the event loop."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import statetools as st
from statetools.engine.events import ToolCalled
from statetools.models import ScriptedModel


async def hang() -> str:
    """Wait for an answer that never comes."""
    await asyncio.Event().wait()
    return "never"


def test_a_call_past_the_loops_tool_timeout_is_an_error_result_and_the_run_goes_on() -> None:
    slow = st.Tool.create("slow", "A slow tool.", hang)
    model = ScriptedModel([("slow", {}), "It timed out."])

    result = st.ToolLoop(model, tool_timeout=1.0).run("go", tools=[slow])

    assert result.messages[2] == st.ToolMessage(
        "call_1", "slow", "Tool 'slow' timed out after 1.0 s.", True
    )
    assert result.output == "It timed out."
    assert [e.outcome for e in result.trace.of_type(ToolCalled)] == ["error"]


def test_a_tools_own_timeout_wins_over_the_loops_and_a_sync_handler_is_abandoned() -> None:
    release = threading.Event()

    def stuck() -> str:
        release.wait(5)
        return "late"

    sync_slow = st.Tool.create(
        "sync_slow", "Slow, synchronously.", stuck, metadata={"timeout": 0.05}
    )
    quick = st.Tool.create("quick", "Quick.", lambda: "done", metadata={"timeout": 0.5})

    def answer(request: object) -> str:
        release.set()  # the abandoned thread ends; run() waits for worker threads at its end
        return "ok"

    model = ScriptedModel([[("sync_slow", {}), ("quick", {})], answer])

    result = st.ToolLoop(model, tool_timeout=30).run("go", tools=[sync_slow, quick])

    assert result.messages[2:4] == (
        st.ToolMessage("call_1", "sync_slow", "Tool 'sync_slow' timed out after 0.05 s.", True),
        st.ToolMessage("call_2", "quick", "done"),
    )


def test_a_tool_raising_timeout_error_itself_is_a_failure_not_a_timeout() -> None:
    def fails() -> str:
        raise TimeoutError("the database did not answer")

    tool = st.Tool.create("db", "Query.", fails)
    result = st.ToolLoop(ScriptedModel([("db", {}), "ok"]), tool_timeout=5).run("go", tools=[tool])
    assert result.messages[2].content == "Tool 'db' failed: the database did not answer"


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "1", True])
def test_an_invalid_timeout_is_a_definition_error(bad: object) -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.ToolLoop(ScriptedModel([]), tool_timeout=bad)  # type: ignore[arg-type]
    assert str(caught.value) == (
        f"ToolLoop(tool_timeout=...): invalid timeout {bad!r} Hint: give the timeout in "
        "seconds, a number greater than 0 (or none)"
    )
    with pytest.raises(st.DefinitionError, match=r"metadata\.timeout: invalid timeout"):
        st.ToolMetadata(timeout=bad)  # type: ignore[arg-type]


def test_a_timeout_past_a_billion_seconds_counts_as_a_billion() -> None:
    assert st.ToolMetadata(timeout=10**400).timeout == 1e9
    assert st.ToolLoop(ScriptedModel([]), tool_timeout=float("inf")).tool_timeout == 1e9
    with pytest.raises(st.DefinitionError, match=r"^metadata\.timeout: invalid timeout a huge"):
        st.ToolMetadata(timeout=-(10**400))


def test_sync_handlers_run_in_worker_threads_so_concurrent_runs_overlap() -> None:
    barrier = threading.Barrier(4, timeout=10)
    threads: list[int] = []

    def meet() -> str:
        threads.append(threading.get_ident())
        barrier.wait()  # only passes when all four runs are in their handler at once
        return "met"

    tool = st.Tool.create("meet", "Meet the others.", meet)

    async def main() -> list[st.LoopResult]:
        runs = [
            st.ToolLoop(ScriptedModel([("meet", {}), "done"])).arun("go", tools=[tool])
            for _ in range(4)
        ]
        return await asyncio.gather(*runs)

    results = asyncio.run(main())

    assert [r.messages[2].content for r in results] == ["met"] * 4
    assert threading.get_ident() not in threads


def test_on_loop_thread_keeps_a_sync_handler_on_the_event_loops_thread() -> None:
    seen: list[bool] = []

    def needs_the_loop() -> str:
        asyncio.get_running_loop()  # raises RuntimeError in a worker thread
        seen.append(True)
        return "on the loop"

    pinned = st.Tool.create(
        "pinned", "Uses the loop.", needs_the_loop, metadata={"on_loop_thread": True}
    )
    free = st.Tool.create("free", "Does not.", needs_the_loop)
    model = ScriptedModel([[("pinned", {}), ("free", {})], "ok"])

    result = st.ToolLoop(model).run("go", tools=[pinned, free])

    assert [m.content for m in result.messages[2:4]] == [
        "on the loop",
        "Tool 'free' failed: no running event loop",
    ]
    assert seen == [True]


def test_llm_tool_takes_timeout_and_on_loop_thread() -> None:
    @st.llm_tool("Slow.", timeout=2.5, on_loop_thread=True)
    def slow() -> str:
        time.sleep(0)
        return "x"

    assert st.as_tool(slow).metadata == st.ToolMetadata(timeout=2.5, on_loop_thread=True)
