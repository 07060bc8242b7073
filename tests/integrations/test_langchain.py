"""The LangChain bridge inside a real ``create_agent`` graph, driven by a chat model
subclass that supports tools."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import tool as langchain_tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

import statetools as st
from statetools.integrations.langchain import StatetoolsMiddleware
from tests.integrations import dynamic
from tests.integrations.scenario import ANSWERS, LOCKED, RAN, REQUESTS, SCRIPT, design


class ScriptChat(BaseChatModel):
    """Follows a script per conversation (told apart by the first human message) and
    notes the tools each request carried and the tool results it read."""

    script: list[Any] = SCRIPT
    tools_seen: dict[str, list[list[str]]] = Field(default_factory=dict)
    answers: dict[str, list[str]] = Field(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "script"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, BaseMessage]:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = next(str(m.content) for m in messages if isinstance(m, HumanMessage))
        names = [t["function"]["name"] for t in kwargs.get("tools", [])]
        self.tools_seen.setdefault(prompt, []).append(names)
        after = messages[-1]
        if isinstance(after, ToolMessage):
            self.answers.setdefault(prompt, []).append(str(after.content))
        turns = [m for m in messages if isinstance(m, AIMessage)]
        step = self.script[len(turns)]
        if isinstance(step, str):
            message = AIMessage(content=step)
        else:
            calls = [
                {
                    "name": name,
                    "args": arguments,
                    "id": f"c{len(messages)}_{i}",
                    "type": "tool_call",
                }
                for i, (name, arguments) in enumerate(step if isinstance(step, list) else [step])
            ]
            message = AIMessage(content="", tool_calls=calls)
        return ChatResult(generations=[ChatGeneration(message=message)])


def model(script: list[Any] = SCRIPT) -> ScriptChat:
    return ScriptChat(script=script)


def test_each_model_call_carries_the_visible_tools_and_a_locked_call_gets_our_text() -> None:
    ran: list[str] = []
    chat = model()
    middleware = StatetoolsMiddleware(design(ran))
    agent = create_agent(chat, tools=middleware.tools, middleware=[middleware])
    result = agent.invoke({"messages": [HumanMessage("order")]})
    assert result["messages"][-1].content == "All done."
    assert chat.tools_seen["order"] == REQUESTS
    assert chat.answers["order"] == ANSWERS
    assert ran == RAN
    blocked = result["messages"][2]
    assert (blocked.content, blocked.status) == (LOCKED, "error")


def test_concurrent_threads_keep_separate_states_and_own_tools_stay() -> None:
    ran: list[str] = []
    chat = model()
    middleware = StatetoolsMiddleware(design(ran))

    @langchain_tool
    def note(text: str) -> str:
        """Take a note."""
        return "noted"

    agent = create_agent(chat, tools=[note, *middleware.tools], middleware=[middleware])

    async def both() -> list[Any]:
        return await asyncio.gather(
            agent.ainvoke({"messages": [HumanMessage("first")]}),
            agent.ainvoke({"messages": [HumanMessage("second")]}),
        )

    results = asyncio.run(both())
    assert [r["messages"][-1].content for r in results] == ["All done.", "All done."]
    expected = [["note", *tools] for tools in REQUESTS]
    assert chat.tools_seen == {"first": expected, "second": expected}
    assert chat.answers == {"first": ANSWERS, "second": ANSWERS}
    assert sorted(ran) == sorted(RAN * 2)


def test_a_checkpointed_thread_keeps_its_state_between_invocations() -> None:
    ran: list[str] = []
    chat = model([("search", {"q": "x"}), "searched", ("analyze", {}), "analyzed"])
    middleware = StatetoolsMiddleware(design(ran))
    agent = create_agent(
        chat, tools=middleware.tools, middleware=[middleware], checkpointer=InMemorySaver()
    )
    thread = {"configurable": {"thread_id": "t1"}}
    agent.invoke({"messages": [HumanMessage("go")]}, thread)
    middleware._runs.clear()  # as in another process: only the checkpoint is left
    again = agent.invoke({"messages": [HumanMessage("more")]}, thread)
    assert again["messages"][-1].content == "analyzed"
    assert chat.tools_seen["go"] == [
        ["search", "add_item", "confirm", "github"],
        ["search", "add_item", "confirm", "github", "analyze"],
        ["search", "add_item", "confirm", "github", "analyze"],
        ["search", "add_item", "confirm", "github", "analyze"],
    ]
    assert ran == ["search", "analyze"]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_call_locked_by_an_earlier_call_of_the_same_step_is_refused(mode: str) -> None:
    ran: list[str] = []
    chat = model([[("confirm", {}), ("add_item", {"sku": "x"})], "ok"])
    middleware = StatetoolsMiddleware(design(ran))
    agent = create_agent(chat, tools=middleware.tools, middleware=[middleware])
    prompt = {"messages": [HumanMessage("both")]}
    result = agent.invoke(prompt) if mode == "sync" else asyncio.run(agent.ainvoke(prompt))
    answers = [m.content for m in result["messages"] if isinstance(m, ToolMessage)]
    assert answers == [
        "confirmed\n[now available: ship; state is now CONFIRMED]",
        "Tool 'add_item' is not available in state CONFIRMED (it is available in: DRAFT).",
    ]
    assert ran == ["confirm"]
    assert chat.tools_seen["both"][1] == ["search", "github", "ship"]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_tools_added_during_the_run_are_offered_and_answered(mode: str) -> None:
    repos: dict[str, dynamic.Repo] = {}
    customers = dynamic.people()
    chat = model(dynamic.SCRIPT)
    middleware = StatetoolsMiddleware(dynamic.design(repos, customers))
    agent = create_agent(chat, tools=middleware.tools, middleware=[middleware])
    prompt = {"messages": [HumanMessage("go")]}
    result = agent.invoke(prompt) if mode == "sync" else asyncio.run(agent.ainvoke(prompt))
    assert result["messages"][-1].content == "All done."
    assert chat.tools_seen["go"] == dynamic.REQUESTS
    answers = chat.answers["go"]
    assert answers[3] == (
        "Error: customer_c1_profile is not a valid tool, "
        "try one of [open_repo, star, search_customers]."
    )
    assert [None if i == 3 else a for i, a in enumerate(answers)] == dynamic.ANSWERS
    assert repos["tides"].stars == 1
    assert [c.notes for c in customers] == [[], ["call back"], []]


class SchemaChat(ScriptChat):
    """Also notes the description and properties of ``close`` in each request."""

    closes: list[Any] = Field(default_factory=list)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        close = [t["function"] for t in kwargs.get("tools", []) if t["function"]["name"] == "close"]
        self.closes.append(
            (close[0]["description"], close[0]["parameters"]["properties"]) if close else None
        )
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_a_name_reused_with_another_schema_is_offered_with_the_new_one() -> None:
    chat = SchemaChat(script=dynamic.SCRIPT_ANY)
    middleware = StatetoolsMiddleware(dynamic.design_any())
    agent = create_agent(chat, tools=middleware.tools, middleware=[middleware])
    result = agent.invoke({"messages": [HumanMessage("go")]})
    assert result["messages"][-1].content == "Both closed."
    assert chat.tools_seen["go"] == dynamic.REQUESTS_ANY
    assert chat.closes == dynamic.CLOSE_SCHEMAS
    assert chat.answers["go"] == dynamic.ANSWERS_ANY


class Lockstep(SchemaChat):
    """A script per thread (by prompt); the threads' model calls meet at a barrier, so
    they make each request at the same time."""

    scripts: dict[str, list[Any]] = Field(default_factory=dict)
    barrier: Any = None

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = next(str(m.content) for m in messages if isinstance(m, HumanMessage))
        self.barrier.wait(5)
        close = [t["function"] for t in kwargs.get("tools", []) if t["function"]["name"] == "close"]
        self.tools_seen.setdefault(prompt, []).append(
            [t["function"]["name"] for t in kwargs.get("tools", [])]
        )
        self.answers.setdefault(prompt, []).append(str(close[0]["description"]) if close else "-")
        step = self.scripts[prompt][sum(isinstance(m, AIMessage) for m in messages)]
        if isinstance(step, str):
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=step))])
        name, arguments = step
        call = {"name": name, "args": arguments, "id": f"c{len(messages)}", "type": "tool_call"}
        message = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=message)])


def test_threads_at_the_same_step_each_get_their_own_run_time_tools() -> None:
    chat = Lockstep(
        scripts={
            "door": [("open_door", {}), ("close", {}), "done"],
            "box": [("open_box", {}), ("close", {"force": True}), "done"],
        },
        barrier=threading.Barrier(2),
    )
    middleware = StatetoolsMiddleware(dynamic.design_any())
    agent = create_agent(chat, tools=middleware.tools, middleware=[middleware])
    inputs = [{"messages": [HumanMessage("door")]}, {"messages": [HumanMessage("box")]}]
    results = agent.batch(inputs, {"max_concurrency": 2})  # one thread each
    assert [r["messages"][-1].content for r in results] == ["done", "done"]
    steps = [["open_door", "open_box"], *[["open_door", "open_box", "close"]] * 2]
    assert chat.tools_seen == {"door": steps, "box": steps}
    assert chat.answers == {
        "door": ["-", "Close the door.", "Close the door."],
        "box": ["-", "Close the box.", "Close the box."],
    }
    answers = {
        prompt: [m.content for m in r["messages"] if isinstance(m, ToolMessage)]
        for prompt, r in zip(["door", "box"], results, strict=True)
    }
    assert answers == {
        "door": ['{"id": "front"}\n[now available: close]', "door closed"],
        "box": ['{"id": "b1"}\n[now available: close]', "box forced shut"],
    }


def test_a_slow_tool_in_one_thread_does_not_hold_up_another_threads_calls() -> None:
    started, other_ran = threading.Event(), threading.Event()

    def wait_for_other() -> str:
        """Wait for the other thread's call."""
        started.set()
        return "the other ran" if other_ran.wait(5) else "waited alone"

    def signal() -> str:
        """Signal the other thread."""
        other_ran.set()
        return "signalled"

    class Paced(Lockstep):
        """The "other" thread makes its call once the slow tool has started."""

        def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
            if str(messages[0].content) == "other" and len(messages) == 1:
                assert started.wait(5)
            return super()._generate(messages, *args, **kwargs)

    chat = Paced(
        scripts={"slow": [("wait_for_other", {}), "done"], "other": [("signal", {}), "done"]},
        barrier=threading.Barrier(1),
    )
    tools = [st.Tool.from_function(wait_for_other), st.Tool.from_function(signal)]
    middleware = StatetoolsMiddleware(tools)
    agent = create_agent(chat, tools=middleware.tools, middleware=[middleware])
    inputs = [{"messages": [HumanMessage("slow")]}, {"messages": [HumanMessage("other")]}]
    results = agent.batch(inputs, {"max_concurrency": 2})
    answers = [[m.content for m in r["messages"] if isinstance(m, ToolMessage)] for r in results]
    assert answers == [["the other ran"], ["signalled"]]


def test_a_thread_goes_on_in_another_event_loop() -> None:
    async def fetch_a() -> str:
        """Fetch a."""
        await asyncio.sleep(0.01)
        return "a"

    async def fetch_b() -> str:
        """Fetch b."""
        await asyncio.sleep(0.01)
        return "b"

    both = [("fetch_a", {}), ("fetch_b", {})]  # two calls in one step: they take turns
    chat = model([both, "one", both, "two"])
    middleware = StatetoolsMiddleware(
        [st.Tool.from_function(fetch_a), st.Tool.from_function(fetch_b)]
    )
    agent = create_agent(
        chat, tools=middleware.tools, middleware=[middleware], checkpointer=InMemorySaver()
    )
    thread = {"configurable": {"thread_id": "t1"}}
    first = asyncio.run(agent.ainvoke({"messages": [HumanMessage("go")]}, thread))
    again = asyncio.run(agent.ainvoke({"messages": [HumanMessage("more")]}, thread))  # a new loop
    assert [first["messages"][-1].content, again["messages"][-1].content] == ["one", "two"]
    answers = [m.content for m in again["messages"] if isinstance(m, ToolMessage)]
    assert answers == ["a", "b", "a", "b"]
