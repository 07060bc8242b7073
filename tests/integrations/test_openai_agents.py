"""The openai-agents bridge inside a real Runner, driven by a Model implementation."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, ModelResponse, Runner, Usage, function_tool
from agents.models.interface import Model
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

import statetools as st
from statetools.integrations.openai_agents import StatetoolsTools
from tests.integrations.scenario import ANSWERS, RAN, REQUESTS, SCRIPT, design


class ScriptModel(Model):
    """Follows a script per run (told apart by the prompt) and notes each request's
    tools and the tool outputs it read."""

    def __init__(self, script: list[Any] = SCRIPT) -> None:
        self.script = script
        self.tools: dict[str, list[list[str]]] = {}
        self.answers: dict[str, list[str]] = {}

    async def get_response(  # type: ignore[override]
        self,
        system_instructions: Any,
        input: Any,
        model_settings: Any,
        tools: Any,
        *_: Any,
        **__: Any,
    ) -> ModelResponse:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        prompt = str(items[0]["content"])
        self.tools.setdefault(prompt, []).append([t.name for t in tools])
        outputs = [
            i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"
        ]
        answers = self.answers.setdefault(prompt, [])
        answers.extend(str(o["output"]) for o in outputs[len(answers) :])
        turns = len(self.tools[prompt]) - 1
        step = self.script[turns]
        if isinstance(step, str):
            text = ResponseOutputText(type="output_text", text=step, annotations=[])
            message = ResponseOutputMessage(
                id="m", type="message", role="assistant", status="completed", content=[text]
            )
            return ModelResponse(output=[message], usage=Usage(), response_id=None)
        calls = step if isinstance(step, list) else [step]
        output = [
            ResponseFunctionToolCall(
                type="function_call",
                name=name,
                arguments=json.dumps(arguments),
                call_id=f"c{turns}_{index}",
                id=f"fc{turns}_{index}",
                status="completed",
            )
            for index, (name, arguments) in enumerate(calls)
        ]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


# ``is_enabled`` filters the agent's own list, so the tools keep the order they were
# registered in (analyze, unlocked later, stays in its place).
IN_ORDER = [
    ["search", "add_item", "confirm", "github"],
    ["search", "add_item", "confirm", "github"],
    ["search", "analyze", "add_item", "confirm", "github"],
    ["search", "analyze", "ship", "github"],
    ["search", "analyze", "ship", "whoami", "list_issues"],
    ["search", "analyze", "ship", "whoami", "list_issues"],
]
assert [sorted(names) for names in IN_ORDER] == [sorted(names) for names in REQUESTS]


def run(bridge: StatetoolsTools, agent: Agent[Any], prompt: str) -> Any:
    config = dataclasses.replace(bridge.run_config, tracing_disabled=True)
    return Runner.run(agent, prompt, hooks=bridge.hooks, run_config=config)


def test_each_request_carries_the_visible_tools_and_a_hidden_call_gets_our_text() -> None:
    ran: list[str] = []
    model = ScriptModel()
    bridge = StatetoolsTools(design(ran))
    agent = Agent(name="helper", model=model, tools=bridge.tools)
    result = asyncio.run(run(bridge, agent, "order"))
    assert result.final_output == "All done."
    assert model.tools["order"] == IN_ORDER
    assert model.answers["order"] == ANSWERS
    assert ran == RAN


def test_a_call_locked_by_an_earlier_call_of_the_same_response_is_refused() -> None:
    ran: list[str] = []
    model = ScriptModel()
    bridge = StatetoolsTools(design(ran))
    agent = Agent(name="helper", model=model, tools=bridge.tools)
    # confirm leaves DRAFT; add_item, offered with it, is locked when it comes to run
    model.script = [[("confirm", {}), ("add_item", {"sku": "x"})], "ok"]
    assert asyncio.run(run(bridge, agent, "both")).final_output == "ok"
    assert model.answers["both"] == [
        "confirmed\n[now available: ship; state is now CONFIRMED]",
        "Tool 'add_item' is not available in state CONFIRMED (it is available in: DRAFT).",
    ]
    assert ran == ["confirm"]


def test_concurrent_runs_keep_separate_states_and_own_tools_stay() -> None:
    ran: list[str] = []
    model = ScriptModel()
    bridge = StatetoolsTools(design(ran))

    @function_tool
    def note(text: str) -> str:
        """Take a note."""
        return "noted"

    agent = Agent(name="helper", model=model, tools=[note, *bridge.tools])

    async def both() -> list[Any]:
        return await asyncio.gather(run(bridge, agent, "first"), run(bridge, agent, "second"))

    results = asyncio.run(both())
    assert [r.final_output for r in results] == ["All done.", "All done."]
    expected = [["note", *tools] for tools in IN_ORDER]
    assert model.tools == {"first": expected, "second": expected}
    assert model.answers == {"first": ANSWERS, "second": ANSWERS}
    assert sorted(ran) == sorted(RAN * 2)


def test_an_unknown_tool_gets_the_list_of_visible_tools() -> None:
    model = ScriptModel([("serach", {"q": "x"}), "ok"])
    bridge = StatetoolsTools([st.Tool.create("search", "Search.", lambda q: "found")])
    agent = Agent(name="helper", model=model, tools=bridge.tools)
    assert asyncio.run(run(bridge, agent, "typo")).final_output == "ok"
    assert model.answers["typo"] == [
        "Tool 'serach' does not exist. Did you mean 'search'? Available tools: search."
    ]


def test_a_when_condition_is_checked_again_before_each_request() -> None:
    door = {"open": False}
    taken: list[str] = []

    @function_tool
    def open_door() -> str:
        """Open the vault door."""
        door["open"] = True
        return "door open"

    def close_door() -> str:
        """Close the vault door."""
        door["open"] = False
        return "door closed"

    def take(item: str) -> str:
        """Take an item from the vault."""
        taken.append(item)
        return f"took {item}"

    vault = (
        st.PlaybookTool("vault", "The vault")
        .with_tool(st.Tool.from_function(take))
        .unlocked_when(lambda view: door["open"], "the door is open")
    )
    model = ScriptModel(
        [
            ("take", {"item": "gold"}),
            ("open_door", {}),  # the agent's own tool opens it: our condition holds now
            ("take", {"item": "gold"}),
            ("close_door", {}),
            ("take", {"item": "silver"}),
            "done",
        ]
    )
    bridge = StatetoolsTools([vault, st.Tool.from_function(close_door)])
    agent = Agent(name="helper", model=model, tools=[open_door, *bridge.tools])
    assert asyncio.run(run(bridge, agent, "vault")).final_output == "done"
    closed, opened = ["open_door", "close_door"], ["open_door", "take", "close_door"]
    assert model.tools["vault"] == [closed, closed, opened, opened, closed, closed]
    locked = "Tool 'take' is locked. It unlocks when the door is open."
    assert model.answers["vault"] == [locked, "door open", "took gold", "door closed", locked]
    assert taken == ["gold"]


def test_each_request_starts_a_turn_even_when_no_tool_ran_in_the_last_one() -> None:
    door = {"open": False}

    class Opening(ScriptModel):
        """The door opens (elsewhere) while the model answers its first request."""

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            response = await super().get_response(*args, **kwargs)
            door["open"] = True
            return response

    def take(item: str) -> str:
        """Take an item from the vault."""
        return f"took {item}"

    vault = (
        st.PlaybookTool("vault", "The vault")
        .with_tool(st.Tool.from_function(take))
        .unlocked_when(lambda view: door["open"], "the door is open")
    )
    look = st.Tool.create("look", "Look around.", lambda: "a vault")
    model = Opening([("take", {"item": "gold"}), ("take", {"item": "gold"}), "done"])
    bridge = StatetoolsTools([look, vault])
    agent = Agent(name="helper", model=model, tools=bridge.tools)
    assert asyncio.run(run(bridge, agent, "vault")).final_output == "done"
    # the first call was refused (no tool ran): the next request still re-checks the door
    assert model.tools["vault"] == [["look"], ["look", "take"], ["look", "take"]]
    assert model.answers["vault"] == [
        "Tool 'take' was not offered in this request; it is available now.",
        "took gold",
    ]
