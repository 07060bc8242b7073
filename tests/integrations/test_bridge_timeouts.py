"""Tool timeouts in every bridge, each inside its real framework: a tool's own
``metadata.timeout`` holds, the bridge's ``tool_timeout`` applies to a tool without one
(and to each call of a code-mode script), a call past it is answered with the loop's
text and the run goes on."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage

import statetools as st
from statetools.integrations.bridge import BridgeRun, compile_items
from statetools.integrations.langchain import StatetoolsMiddleware
from statetools.integrations.openai_agents import StatetoolsTools
from statetools.integrations.pydantic_ai import StatetoolsCapability, StatetoolsToolset
from statetools.messages import ToolCall
from tests.integrations.test_langchain import ScriptChat
from tests.integrations.test_openai_agents import ScriptModel
from tests.integrations.test_openai_agents import run as run_openai_agents
from tests.integrations.test_pydantic_ai import Recorder

SCRIPT: list[Any] = [("slow", {}), ("lazy", {}), ("stuck", {}), ("ping", {}), "done"]
ANSWERS = [
    "Tool 'slow' timed out after 0.2 s.",
    "Tool 'lazy' timed out after 0.3 s.",
    "Tool 'stuck' timed out after 0.3 s.",
    "pong",
]
CODE = "try:\n    lazy()\nexcept RuntimeError as error:\n    print(error)\nprint(ping())"
CODE_SCRIPT: list[Any] = [("run_code", {"code": CODE}), "done"]
CODE_ANSWER = "Tool 'lazy' timed out after 0.3 s.\npong"


async def _asleep() -> str:
    await asyncio.sleep(5)
    return "late"


class Tools:
    """``slow`` (its own timeout, 0.2 s), ``lazy`` (none of its own) and ``stuck`` (a
    synchronous handler, none of its own), each taking 5 s if left alone (``stuck``
    until released), and ``ping``."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.stuck_ended = threading.Event()
        self.slow = st.Tool.create("slow", "Wait a long time.", _asleep, metadata={"timeout": 0.2})
        self.lazy = st.Tool.create("lazy", "Wait a long time.", _asleep)
        self.stuck = st.Tool.create("stuck", "Wait for a release.", self._stuck)
        self.ping = st.Tool.create("ping", "Ping.", lambda: "pong")

    def _stuck(self) -> str:
        self.release.wait(5)
        self.stuck_ended.set()
        return "released"

    def items(self) -> list[st.Tool]:
        return [self.slow, self.lazy, self.stuck, self.ping]

    def let_go(self) -> bool:
        """Release ``stuck``; True if it was still running (the run did not wait)."""
        still_running = not self.stuck_ended.is_set()
        self.release.set()
        return still_running


def test_pydantic_ai_capability() -> None:
    tools = Tools()
    model = Recorder(SCRIPT)
    from pydantic_ai import Agent
    from pydantic_ai.models.function import FunctionModel

    capability = StatetoolsCapability(tools.items(), tool_timeout=0.3)
    agent = Agent(FunctionModel(model), capabilities=[capability])

    async def main() -> tuple[str, bool]:
        result = await agent.run("go")
        return result.output, tools.let_go()

    assert asyncio.run(main()) == ("done", True)
    assert model.answers["go"] == ANSWERS


def test_pydantic_ai_toolset() -> None:
    tools = Tools()
    from pydantic_ai import Agent
    from pydantic_ai.models.function import FunctionModel

    plain = Recorder(SCRIPT)
    toolset = StatetoolsToolset(tools.items(), tool_timeout=0.3)

    async def main() -> bool:
        await Agent(FunctionModel(plain), toolsets=[toolset]).run("go")
        return tools.let_go()

    assert asyncio.run(main()) is True
    assert plain.answers["go"] == ANSWERS


def test_pydantic_ai_code_mode_script() -> None:
    tools = Tools()
    from pydantic_ai import Agent
    from pydantic_ai.models.function import FunctionModel

    scripted = Recorder(CODE_SCRIPT)
    capability = StatetoolsCapability([st.CodeMode(tools.lazy, tools.ping)], tool_timeout=0.3)
    agent = Agent(FunctionModel(scripted), capabilities=[capability])
    assert agent.run_sync("code").output == "done"
    assert scripted.answers["code"] == [CODE_ANSWER]


def _tool_messages(result: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m.content, m.status) for m in result["messages"] if isinstance(m, ToolMessage)]


LANGCHAIN_ANSWERS = [(text, "success" if text == "pong" else "error") for text in ANSWERS]


def test_langchain_middleware_in_a_synchronous_agent() -> None:
    tools = Tools()
    middleware = StatetoolsMiddleware(tools.items(), tool_timeout=0.3)
    agent = create_agent(ScriptChat(script=SCRIPT), tools=middleware.tools, middleware=[middleware])

    result = agent.invoke({"messages": [HumanMessage("go")]})

    assert tools.let_go() is True  # the handler's thread runs on; the agent did not wait
    assert _tool_messages(result) == LANGCHAIN_ANSWERS


def test_langchain_code_mode_script_in_a_synchronous_agent() -> None:
    tools = Tools()
    scripted = StatetoolsMiddleware([st.CodeMode(tools.lazy, tools.ping)], tool_timeout=0.3)
    agent = create_agent(
        ScriptChat(script=CODE_SCRIPT), tools=scripted.tools, middleware=[scripted]
    )
    result = agent.invoke({"messages": [HumanMessage("code")]})
    assert _tool_messages(result) == [(CODE_ANSWER, "success")]


def test_langchain_middleware_in_an_asynchronous_agent() -> None:
    tools = Tools()
    middleware = StatetoolsMiddleware(tools.items(), tool_timeout=0.3)
    agent = create_agent(ScriptChat(script=SCRIPT), tools=middleware.tools, middleware=[middleware])

    async def main() -> tuple[dict[str, Any], bool]:
        result = await agent.ainvoke({"messages": [HumanMessage("go")]})
        return result, tools.let_go()

    result, still_running = asyncio.run(main())
    assert still_running is True
    assert _tool_messages(result) == LANGCHAIN_ANSWERS


def test_openai_agents_tools() -> None:
    from agents import Agent

    tools = Tools()
    model = ScriptModel(SCRIPT)
    bridge = StatetoolsTools(tools.items(), tool_timeout=0.3)
    agent = Agent(name="helper", model=model, tools=bridge.tools)

    async def main() -> tuple[str, bool]:
        result = await run_openai_agents(bridge, agent, "go")
        return result.final_output, tools.let_go()

    assert asyncio.run(main()) == ("done", True)
    assert model.answers["go"] == ANSWERS


def test_openai_agents_code_mode_script() -> None:
    from agents import Agent

    tools = Tools()
    scripted = StatetoolsTools([st.CodeMode(tools.lazy, tools.ping)], tool_timeout=0.3)
    code_model = ScriptModel(CODE_SCRIPT)
    agent = Agent(name="coder", model=code_model, tools=scripted.tools)
    assert asyncio.run(run_openai_agents(scripted, agent, "code")).final_output == "done"
    assert code_model.answers["code"] == [CODE_ANSWER]


def test_a_tools_own_timeout_wins_over_the_bridges() -> None:
    async def brief() -> str:
        await asyncio.sleep(0.1)
        return "in time"

    patient = st.Tool.create("patient", "Wait briefly.", brief, metadata={"timeout": 2})
    run = BridgeRun(compile_items([patient]), tool_timeout=0.02)
    assert asyncio.run(run.answer(ToolCall("c1", "patient"))).text == "in time"
    assert run.answer_sync(ToolCall("c2", "patient")).text == "in time"


def test_a_synchronous_handler_without_a_timeout_runs_in_the_callers_thread() -> None:
    threads: list[str] = []
    here = st.Tool.create("here", "Say where.", lambda: threads.append("x") or "ok")
    record = st.Tool.create(
        "where", "Say where.", lambda: threading.current_thread().name, metadata={"timeout": 5}
    )
    run = BridgeRun(compile_items([here, record]))
    assert run.answer_sync(ToolCall("c1", "here")).text == "ok"
    assert run.answer_sync(ToolCall("c2", "where")).text == "statetools-tool-where"
    assert threads == ["x"]


SHOWN = (
    "{where}: invalid timeout {value} "
    "Hint: give the timeout in seconds, a number greater than 0 (or none)"
)


@pytest.mark.parametrize(
    ("make", "where"),
    [
        (lambda items, t: StatetoolsCapability(items, tool_timeout=t), "StatetoolsCapability"),
        (lambda items, t: StatetoolsToolset(items, tool_timeout=t), "StatetoolsToolset"),
        (lambda items, t: StatetoolsMiddleware(items, tool_timeout=t), "StatetoolsMiddleware"),
        (lambda items, t: StatetoolsTools(items, tool_timeout=t), "StatetoolsTools"),
        (lambda items, t: BridgeRun(compile_items(items), tool_timeout=t), "BridgeRun"),
    ],
)
@pytest.mark.parametrize(("value", "shown"), [(0, "0"), (-1, "-1"), ("5", "'5'"), (True, "True")])
def test_an_invalid_tool_timeout_is_refused(make: Any, where: str, value: Any, shown: str) -> None:
    ping = st.Tool.create("ping", "Ping.", lambda: "pong")
    with pytest.raises(st.DefinitionError) as caught:
        make([ping], value)
    assert str(caught.value) == SHOWN.format(where=f"{where}(tool_timeout=...)", value=shown)
    assert caught.value.path == f"{where}(tool_timeout=...)"


def test_a_tools_own_timeout_holds_without_a_bridge_default() -> None:
    tools = Tools()
    run = BridgeRun(compile_items(tools.items()))
    assert asyncio.run(run.answer(ToolCall("c1", "slow"))).text == ANSWERS[0]
    assert run.answer_sync(ToolCall("c2", "slow")).text == ANSWERS[0]
    assert run.answer_sync(ToolCall("c3", "ping")).text == "pong"
    assert dict(run.snapshot().call_counts) == {
        "ping": 1
    }  # as in the loop: an error counts for nothing
