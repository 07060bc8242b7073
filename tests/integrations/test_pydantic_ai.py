"""The pydantic-ai bridge inside a real pydantic-ai agent, driven by FunctionModel."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset

import statetools as st
from statetools.integrations.pydantic_ai import StatetoolsCapability, StatetoolsToolset
from tests.integrations import dynamic
from tests.integrations.scenario import ANSWERS, LOCKED, RAN, REQUESTS, SCRIPT, design


class Recorder:
    """A FunctionModel that follows SCRIPT in each run (runs told apart by prompt) and
    notes each request's tools and the tool results it read."""

    def __init__(self, script: list[Any] = SCRIPT) -> None:
        self.script = script
        self.tools: dict[str, list[list[str]]] = {}
        self.answers: dict[str, list[str]] = {}

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = next(
            str(part.content) for part in messages[0].parts if isinstance(part, UserPromptPart)
        )
        self.tools.setdefault(prompt, []).append([t.name for t in info.function_tools])
        last = messages[-1]
        if isinstance(last, ModelRequest):
            for part in last.parts:
                if isinstance(part, ToolReturnPart):
                    self.answers.setdefault(prompt, []).append(str(part.content))
        step = self.script[sum(isinstance(m, ModelResponse) for m in messages)]
        if isinstance(step, str):
            return ModelResponse(parts=[TextPart(step)])
        name, arguments = step
        return ModelResponse(
            parts=[ToolCallPart(name, arguments, tool_call_id=f"c{len(messages)}")]
        )


class PerPrompt(Recorder):
    """A Recorder with a script per run (by prompt); ``before[(prompt, i)]`` is awaited
    before answering request ``i`` of that run (so runs interleave at known points)."""

    def __init__(self, scripts: dict[str, list[Any]]) -> None:
        super().__init__()
        self.scripts = scripts
        self.before: dict[tuple[str, int], Callable[[], Awaitable[object]]] = {}

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = next(
            str(part.content) for part in messages[0].parts if isinstance(part, UserPromptPart)
        )
        wait = self.before.get((prompt, sum(isinstance(m, ModelResponse) for m in messages)))
        if wait is not None:
            await wait()
        self.script = self.scripts[prompt]
        return self(messages, info)


def test_each_request_carries_the_visible_tools_and_a_locked_call_gets_our_text() -> None:
    ran: list[str] = []
    model = Recorder()
    agent = Agent(FunctionModel(model), capabilities=[StatetoolsCapability(design(ran))])
    result = agent.run_sync("order")
    assert result.output == "All done."
    assert model.tools["order"] == REQUESTS
    assert model.answers["order"] == ANSWERS
    assert ran == RAN  # analyze, called while locked, never ran


def test_the_agents_own_tools_stay_and_runs_keep_separate_states() -> None:
    ran: list[str] = []
    model = Recorder()
    agent = Agent(FunctionModel(model), capabilities=[StatetoolsCapability(design(ran))])

    @agent.tool_plain
    def note(text: str) -> str:
        """Take a note."""
        return "noted"

    async def both() -> list[Any]:
        return await asyncio.gather(agent.run("first"), agent.run("second"))

    outputs = [r.output for r in asyncio.run(both())]
    assert outputs == ["All done.", "All done."]
    expected = [["note", *tools] for tools in REQUESTS]
    assert model.tools == {"first": expected, "second": expected}
    assert model.answers == {"first": ANSWERS, "second": ANSWERS}
    assert sorted(ran) == sorted(RAN * 2)
    assert agent.run_sync("third").output == "All done."  # a later run starts fresh
    assert model.tools["third"] == expected


def test_iter_goes_through_the_same_hooks() -> None:
    ran: list[str] = []
    model = Recorder()
    agent = Agent(FunctionModel(model), capabilities=[StatetoolsCapability(design(ran))])

    async def walk() -> str:
        async with agent.iter("iter") as run:
            async for _node in run:
                pass
        assert run.result is not None
        return run.result.output

    assert asyncio.run(walk()) == "All done."
    assert model.tools["iter"] == REQUESTS
    assert model.answers["iter"] == ANSWERS


def test_a_call_of_an_unknown_tool_gets_the_list_of_tools() -> None:
    ran: list[str] = []
    model = Recorder([("serach", {"q": "x"}), "ok"])
    agent = Agent(FunctionModel(model), capabilities=[StatetoolsCapability(design(ran))])
    agent.run_sync("typo")
    # pydantic-ai answers names it does not know itself (every registered tool is known)
    assert model.answers["typo"][0].startswith("Unknown tool name: 'serach'")
    assert ran == []


def test_the_plain_toolset_enforces_without_filtering() -> None:
    ran: list[str] = []
    model = Recorder([("analyze", {}), "ok"])
    agent = Agent(FunctionModel(model), toolsets=[StatetoolsToolset(design(ran))])
    agent.run_sync("plain")
    assert model.tools["plain"][0] == [
        "search",
        "analyze",
        "add_item",
        "confirm",
        "ship",
        "github",
        "whoami",
        "list_issues",
    ]
    assert model.answers["plain"] == [LOCKED]
    assert ran == []


def test_a_tool_that_raises_is_an_answer_not_the_end_of_the_run() -> None:
    def boom() -> str:
        raise RuntimeError("disk full")

    model = Recorder([("boom", {}), "ok"])
    tool = st.Tool.create("boom", "Fails.", boom)
    agent = Agent(FunctionModel(model), capabilities=[StatetoolsCapability([tool])])
    assert agent.run_sync("fail").output == "ok"
    assert model.answers["fail"] == ["Tool 'boom' failed: disk full"]


def test_tools_added_during_the_run_are_offered_and_answered() -> None:
    repos: dict[str, dynamic.Repo] = {}
    customers = dynamic.people()
    model = Recorder(dynamic.SCRIPT)
    capability = StatetoolsCapability(dynamic.design(repos, customers))
    agent = Agent(FunctionModel(model), capabilities=[capability])
    assert agent.run_sync("go").output == "All done."
    assert model.tools["go"] == dynamic.REQUESTS
    answers = model.answers["go"]
    assert answers[3].startswith("Unknown tool name: 'customer_c1_profile'")
    assert [None if i == 3 else a for i, a in enumerate(answers)] == dynamic.ANSWERS
    assert repos["tides"].stars == 1  # star ran on the repo open_repo returned
    assert [c.notes for c in customers] == [[], ["call back"], []]


def test_runs_discover_their_own_objects() -> None:
    made: list[list[dynamic.Customer]] = []

    def search_customers(name: str) -> list[dynamic.Customer]:
        """Find customers by name."""
        made.append([c for c in dynamic.people() if c.name.startswith(name)])
        return made[-1]

    model = Recorder(
        [("search_customers", {"name": "An"}), ("customer_c2_add_note", {"text": "hi"}), "ok"]
    )
    tool = st.Tool.from_function(search_customers)
    agent = Agent(FunctionModel(model), capabilities=[StatetoolsCapability([tool])])

    async def both() -> list[Any]:
        return await asyncio.gather(agent.run("first"), agent.run("second"))

    asyncio.run(both())
    assert agent.run_sync("third").output == "ok"
    # each run's call reached the object its own search returned
    assert [[c.notes for c in found] for found in made] == [[[], ["hi"]]] * 3
    assert model.answers["third"][1] == "noted for Andy"


def test_a_name_reused_with_another_schema_is_offered_with_the_new_one() -> None:
    model = Recorder(dynamic.SCRIPT_ANY)
    closes: list[Any] = []

    def recording(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        close = [t for t in info.function_tools if t.name == "close"]
        closes.append(
            (close[0].description, close[0].parameters_json_schema["properties"]) if close else None
        )
        return model(messages, info)

    agent = Agent(
        FunctionModel(recording), capabilities=[StatetoolsCapability(dynamic.design_any())]
    )
    assert agent.run_sync("go").output == "Both closed."
    assert model.tools["go"] == dynamic.REQUESTS_ANY
    assert closes == dynamic.CLOSE_SCHEMAS
    assert model.answers["go"] == dynamic.ANSWERS_ANY


def test_a_tool_another_run_added_leaves_the_agents_own_tool_of_that_name() -> None:
    model = PerPrompt(
        {"builds": [("shop", {"store": "books"}), "ok"], "own": [("books_0", {}), "ok"]}
    )
    capability = StatetoolsCapability(dynamic.shop_design({"open": True}))
    agent = Agent(FunctionModel(model.respond), capabilities=[capability])
    agent.run_sync("builds")  # its shop built books_0, a tool of that run only

    def books_0() -> str:
        """The agent's own books."""
        return "own books"

    assert agent.run_sync("own", toolsets=[FunctionToolset([books_0])]).output == "ok"
    assert model.tools["builds"] == [["shop"], ["books_0"]]
    assert model.tools["own"] == [["books_0", "shop"], ["books_0", "shop"]]
    assert model.answers["own"] == ["own books"]


def test_a_tool_added_in_this_run_and_hidden_again_is_not_sent_whatever_other_runs_add() -> None:
    door = {"open": True}
    model = PerPrompt(
        {
            "first": [("shop", {"store": "books"}), ("close_door", {}), "done"],
            "second": [("shop", {"store": "toys", "count": 1100}), "done"],
        }
    )
    agent = Agent(
        FunctionModel(model.respond), capabilities=[StatetoolsCapability(dynamic.shop_design(door))]
    )

    @agent.tool_plain
    def close_door() -> str:
        """Close the door."""
        door["open"] = False
        return "door closed"

    async def second() -> object:
        return await agent.run("second")  # adds 1,100 tools while the first run waits

    model.before[("first", 1)] = second
    assert agent.run_sync("first").output == "done"
    assert model.tools["first"] == [
        ["close_door", "shop"],
        ["close_door", "books_0"],
        ["close_door"],  # the door closed: the desk, its shop and what it built are hidden
    ]
    assert [len(tools) for tools in model.tools["second"]] == [2, 1101]
    assert model.answers["first"] == ["Tools now available: books_0.", "door closed"]


def test_a_tool_added_in_the_run_comes_back_with_its_condition_on_the_first_request() -> None:
    door = {"open": True}
    model = Recorder(
        [
            ("shop", {"store": "books"}),
            ("close_door", {}),
            ("open_door", {}),
            ("books_0", {}),
            "done",
        ]
    )
    agent = Agent(
        FunctionModel(model), capabilities=[StatetoolsCapability(dynamic.shop_design(door))]
    )

    @agent.tool_plain
    def close_door() -> str:
        """Close the door."""
        door["open"] = False
        return "door closed"

    @agent.tool_plain
    def open_door() -> str:
        """Open the door."""
        door["open"] = True
        return "door open"

    assert agent.run_sync("doors").output == "done"
    own = ["close_door", "open_door"]
    assert model.tools["doors"] == [
        [*own, "shop"],
        [*own, "books_0"],
        own,
        [*own, "books_0"],  # the door is open again: what the shop built is back
        [*own, "books_0"],
    ]
    assert model.answers["doors"] == [
        "Tools now available: books_0.",
        "door closed",
        "door open",
        "books item",
    ]


def test_a_toolset_from_a_factory_keeps_each_runs_state_apart() -> None:
    ran: list[str] = []
    model = PerPrompt(
        {
            "first": [("search", {"q": "tides"}), ("analyze", {}), "ok"],
            "second": [("analyze", {}), "ok"],
        }
    )
    toolset = StatetoolsToolset(design(ran))
    agent = Agent(FunctionModel(model.respond))

    @agent.toolset
    def statetools_tools(ctx: RunContext[None]) -> StatetoolsToolset:
        return toolset  # pydantic-ai does not ask it for a toolset per run (for_run)

    agent.run_sync("first")
    agent.run_sync("second")
    assert model.answers == {
        "first": ["found 3 pages\n[now available: analyze]", "analysis done"],
        "second": [LOCKED],  # the first run's search unlocked nothing here
    }
    assert ran == ["search", "analyze"]


def test_a_toolset_from_a_factory_offers_and_answers_the_tools_its_run_added() -> None:
    customers = dynamic.people()
    model = Recorder(
        [("search_customers", {"name": "An"}), ("customer_c2_add_note", {"text": "hi"}), "ok"]
    )
    toolset = StatetoolsToolset(dynamic.design({}, customers))
    agent = Agent(FunctionModel(model))

    @agent.toolset
    def statetools_tools(ctx: RunContext[None]) -> StatetoolsToolset:
        return toolset

    assert agent.run_sync("found").output == "ok"
    every = ["open_repo", "star", "search_customers"]  # a plain toolset lists every tool
    assert model.tools["found"] == [every, dynamic.FOUND, dynamic.FOUND]
    assert model.answers["found"] == [dynamic.CUSTOMERS, "noted for Andy"]
    assert [c.notes for c in customers] == [[], ["hi"], []]


def test_a_when_condition_is_checked_once_per_request() -> None:
    checks: list[int] = []

    def door_open(context: Any) -> bool:
        checks.append(len(checks))
        return True

    enter = st.Tool.create("enter", "Enter.", lambda: "inside")
    model = Recorder([("enter", {}), ("enter", {}), "done"])
    playbook = st.PlaybookTool("house", "House").with_tool(enter).unlocked_when(door_open)
    agent = Agent(FunctionModel(model), capabilities=[StatetoolsCapability([playbook])])
    assert agent.run_sync("go").output == "done"
    assert model.tools["go"] == [["enter"], ["enter"], ["enter"]]
    assert len(checks) == 1 + 3  # the run's start, then each of the 3 requests once


def test_the_agents_prepare_tools_hooks_see_its_own_tools_and_the_design_decides_its_own() -> None:
    from pydantic_ai.capabilities import PrepareTools
    from pydantic_ai.tools import ToolDefinition

    ran: list[str] = []
    model = Recorder()
    prepared: list[list[str]] = []

    async def keep_nothing(
        ctx: RunContext[Any], tools: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        prepared.append([t.name for t in tools])
        return []

    agent = Agent(
        FunctionModel(model),
        capabilities=[PrepareTools(keep_nothing), StatetoolsCapability(design(ran))],
    )

    @agent.tool_plain
    def note(text: str) -> str:
        """Take a note."""
        return "noted"

    assert agent.run_sync("order").output == "All done."
    assert model.tools["order"] == REQUESTS  # `note` was prepared away, ours were not
    assert prepared == [["note"]] * len(REQUESTS)
    assert model.answers["order"] == ANSWERS


def test_an_agent_tool_named_like_a_design_tool_is_refused_by_pydantic_ai() -> None:
    from pydantic_ai.exceptions import UserError

    ran: list[str] = []
    agent = Agent(FunctionModel(Recorder()), capabilities=[StatetoolsCapability(design(ran))])

    @agent.tool_plain
    def search(q: str) -> str:
        """Search."""
        return "mine"

    with pytest.raises(UserError, match="conflicts with existing tool"):
        agent.run_sync("order")
    assert ran == []
