"""A pydantic-ai conversation of several runs continues its disclosure: each run leaves
its state in its last response's metadata and the next run (message_history=...)
starts from it. Real pydantic-ai agents, driven by FunctionModel."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCalls, FunctionModel

import statetools as st
from statetools.integrations.pydantic_ai import StatetoolsCapability
from tests.integrations.scenario import FIRST, LOCKED, design

RESEARCHED = ["search", "add_item", "confirm", "github", "analyze"]


class Turns:
    """A FunctionModel following a script per run, the run told apart by its own user
    prompt (the last one in the messages); notes each request's tools and the tool
    results it read."""

    def __init__(self, scripts: dict[str, list[Any]]) -> None:
        self.scripts = scripts
        self.tools: dict[str, list[list[str]]] = {}
        self.answers: dict[str, list[str]] = {}

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt, step = self._turn(messages)
        self.tools.setdefault(prompt, []).append([t.name for t in info.function_tools])
        last = messages[-1]
        if isinstance(last, ModelRequest):
            for part in last.parts:
                if isinstance(part, ToolReturnPart):
                    self.answers.setdefault(prompt, []).append(str(part.content))
        move = self.scripts[prompt][step]
        if isinstance(move, str):
            return ModelResponse(parts=[TextPart(move)])
        calls = move if isinstance(move, list) else [move]
        return ModelResponse(
            parts=[
                ToolCallPart(name, arguments, tool_call_id=f"{prompt}-{step}-{i}")
                for i, (name, arguments) in enumerate(calls)
            ]
        )

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> Any:
        response = self(messages, info)
        for part in response.parts:
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield {0: DeltaToolCalls(part.tool_name, part.args_as_json_str(), part.tool_call_id)}

    def _turn(self, messages: list[ModelMessage]) -> tuple[str, int]:
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if isinstance(message, ModelRequest):
                for part in message.parts:  # pydantic-ai adds prompts of its own (tool notices)
                    if isinstance(part, UserPromptPart) and part.content in self.scripts:
                        later = messages[index:]
                        return str(part.content), sum(isinstance(m, ModelResponse) for m in later)
        raise AssertionError("no user prompt")


def agent_for(model: Turns, ran: list[str]) -> Agent[None, str]:
    return Agent(
        FunctionModel(model, stream_function=model.stream),
        capabilities=[StatetoolsCapability(design(ran))],
    )


def round_trip(messages: list[ModelMessage]) -> list[ModelMessage]:
    return ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(messages))


@pytest.mark.parametrize("carry", [list, round_trip], ids=["direct", "json"])
def test_a_tool_unlocked_in_one_run_is_offered_on_the_next_runs_first_request(
    carry: Any,
) -> None:
    ran: list[str] = []
    model = Turns({"q1": [("search", {"q": "tides"}), "found"], "q2": [("analyze", {}), "done"]})
    agent = agent_for(model, ran)
    first = agent.run_sync("q1")
    second = agent.run_sync("q2", message_history=carry(first.all_messages()))
    assert second.output == "done"
    assert model.tools == {"q1": [FIRST, RESEARCHED], "q2": [RESEARCHED, RESEARCHED]}
    assert model.answers["q2"] == ["analysis done"]
    assert ran == ["search", "analyze"]


def test_a_state_machine_and_an_unfolded_facade_continue_where_they_were() -> None:
    ran: list[str] = []
    model = Turns(
        {
            "q1": [("confirm", {}), ("github", {}), "confirmed"],
            "q2": [("ship", {}), ("list_issues", {}), "shipped"],
        }
    )
    agent = agent_for(model, ran)
    first = agent.run_sync("q1")
    agent.run_sync("q2", message_history=round_trip(first.all_messages()))
    continued = ["search", "ship", "whoami", "list_issues"]
    assert model.tools == {
        "q1": [FIRST, ["search", "github", "ship"], continued],
        "q2": [continued, continued, continued],
    }
    assert model.answers["q2"] == ["shipped", "none open"]
    assert ran == ["confirm", "ship", "list_issues"]


def test_the_state_goes_on_the_runs_last_response_beside_other_keys() -> None:
    ran: list[str] = []
    model = Turns({"q1": [("search", {"q": "tides"}), "found"]})

    def with_metadata(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        response = model(messages, info)
        response.metadata = {"mine": len(messages)}
        return response

    agent = Agent(FunctionModel(with_metadata), capabilities=[StatetoolsCapability(design(ran))])
    messages = agent.run_sync("q1").all_messages()
    assert [m.metadata for m in messages if isinstance(m, ModelResponse)][0] == {"mine": 1}
    last = messages[-1]
    assert isinstance(last, ModelResponse) and last.metadata is not None
    assert sorted(last.metadata) == ["mine", "statetools"]
    state = st.DisclosureState.from_json(last.metadata["statetools"])
    assert state.call_counts == {"search": 1}
    assert state.machine_states == {"order": "DRAFT"}
    assert state.visible_order == tuple(RESEARCHED)


def test_a_history_without_saved_state_starts_afresh() -> None:
    ran: list[str] = []
    model = Turns({"q1": [("search", {"q": "tides"}), "found"], "q2": [("analyze", {}), "no"]})
    agent = agent_for(model, ran)
    history = agent.run_sync("q1").all_messages()
    for message in history:
        if isinstance(message, ModelResponse):
            message.metadata = None
    agent.run_sync("q2", message_history=history)
    assert model.tools["q2"] == [FIRST, FIRST]
    assert model.answers["q2"] == [LOCKED]
    assert ran == ["search"]


def test_runs_continued_from_one_history_at_once_keep_separate_states() -> None:
    ran: list[str] = []
    model = Turns(
        {
            "q1": [("search", {"q": "tides"}), "found"],
            "a": [("confirm", {}), "confirmed"],
            "b": [("add_item", {"sku": "x"}), "added"],
        }
    )
    agent = agent_for(model, ran)
    history = agent.run_sync("q1").all_messages()
    saved = history[-1].metadata

    async def both() -> list[Any]:
        return await asyncio.gather(
            agent.run("a", message_history=history), agent.run("b", message_history=history)
        )

    a, b = asyncio.run(both())
    assert model.tools["a"] == [RESEARCHED, ["search", "github", "analyze", "ship"]]
    assert model.tools["b"] == [RESEARCHED, RESEARCHED]
    assert history[-1].metadata == saved  # the shared history is left as it was
    states = [st.DisclosureState.from_json(r.all_messages()[-1].metadata["statetools"]) for r in (a, b)]
    assert [dict(s.call_counts) for s in states] == [
        {"confirm": 1, "search": 1},
        {"add_item": 1, "search": 1},
    ]


def test_a_run_that_ended_waiting_for_an_approval_continues() -> None:
    ran: list[str] = []
    model = Turns(
        {
            "q1": [[("search", {"q": "tides"}), ("delete", {})]],
            "q2": [("analyze", {}), "done"],
        }
    )
    agent = Agent(
        FunctionModel(model),
        capabilities=[StatetoolsCapability(design(ran))],
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def delete() -> str:
        """Delete everything."""
        ran.append("delete")
        return "deleted"

    first = agent.run_sync("q1")
    assert isinstance(first.output, DeferredToolRequests)
    approvals = DeferredToolResults(approvals={"q1-0-1": True})
    history = round_trip(first.all_messages())
    second = agent.run_sync(
        "q2", message_history=history, deferred_tool_results=approvals
    )
    assert second.output == "done"
    assert model.tools == {"q1": [["delete", *FIRST]], "q2": [["delete", *RESEARCHED]] * 2}
    assert ran == ["search", "delete", "analyze"]
