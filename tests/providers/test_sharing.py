"""One model object shared by threads and event loops: every run works, clients are closed."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Callable
from typing import Any

import pytest

import statetools as st
from statetools.models import AnthropicModel, OpenAIChatModel
from tests.providers.provider_wire import WireServer, anthropic_message, chat_completion, text

RUNS_PER_THREAD = 10  # half one after another (a loop each), half at once on one loop


def openai(wire: WireServer) -> tuple[Any, Callable[[], dict[str, Any]]]:
    model = OpenAIChatModel("gpt-test", base_url=f"{wire.url}/v1", api_key="sk", max_retries=0)
    return model, lambda: chat_completion("ok")


def anthropic(wire: WireServer) -> tuple[Any, Callable[[], dict[str, Any]]]:
    model = AnthropicModel("claude-test", base_url=wire.url, api_key="sk-ant", max_retries=0)
    return model, lambda: anthropic_message(text("ok"))


@pytest.mark.parametrize(("make", "threads"), [(openai, 8), (anthropic, 4)])
def test_one_model_shared_by_threads_and_event_loops_serves_every_run(
    wire: WireServer,
    make: Callable[[WireServer], tuple[Any, Callable[[], dict[str, Any]]]],
    threads: int,
) -> None:
    model, reply = make(wire)
    for _ in range(threads * RUNS_PER_THREAD):
        wire.reply(reply())
    outputs: list[str] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def worker() -> None:
        loop = st.ToolLoop(model)
        half = RUNS_PER_THREAD // 2
        try:
            start.wait()
            done = [loop.run("Say ok.").output for _ in range(half)]

            async def together() -> list[st.LoopResult]:
                return await asyncio.gather(*(loop.arun("Say ok.") for _ in range(half)))

            done += [result.output for result in asyncio.run(together())]
        except BaseException as exc:
            with lock:
                failures.append(exc)
            return
        with lock:
            outputs.extend(done)

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(60)

    assert failures == []
    assert outputs == ["ok"] * (threads * RUNS_PER_THREAD)
    assert len(wire.requests) == threads * RUNS_PER_THREAD
    gc.collect()
    assert model._clients.open_clients == 0  # every loop's client was closed with its loop


def test_a_given_client_is_used_as_is_and_never_closed(wire: WireServer) -> None:
    from openai import AsyncOpenAI

    wire.reply(chat_completion("one"))
    wire.reply(chat_completion("two"))
    client = AsyncOpenAI(base_url=f"{wire.url}/v1", api_key="sk", max_retries=0)
    model = OpenAIChatModel("gpt-test", client=client)

    async def main() -> list[Any]:
        loop = st.ToolLoop(model)
        return [(await loop.arun("a")).output, (await loop.arun("b")).output]

    assert asyncio.run(main()) == ["one", "two"]
    assert model.client is client
    assert not client.is_closed()
