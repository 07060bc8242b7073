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
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

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
                yield {
                    0: DeltaToolCall(
                        part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id
                    )
                }

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
    assert next(m.metadata for m in messages if isinstance(m, ModelResponse)) == {"mine": 1}
    last = messages[-1]
    assert isinstance(last, ModelResponse)
    assert last.metadata is not None
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
    states = [
        st.DisclosureState.from_json(r.all_messages()[-1].metadata["statetools"]) for r in (a, b)
    ]
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
    second = agent.run_sync("q2", message_history=history, deferred_tool_results=approvals)
    assert second.output == "done"
    assert model.tools == {"q1": [["delete", *FIRST]], "q2": [["delete", *RESEARCHED]] * 2}
    assert ran == ["search", "delete", "analyze"]


def saved_with(text: object) -> list[ModelMessage]:
    return [
        ModelRequest(parts=[UserPromptPart("q1")]),
        ModelResponse(parts=[TextPart("hi")], metadata={"statetools": text, "mine": 1}),
    ]


PATH = "message_history[1].metadata['statetools']"
FRESH = "remove the 'statetools' key from that message's metadata to start the disclosure afresh"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            "{not json",
            f"{PATH}: state: not a disclosure state this statetools can read (not JSON "
            "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))) "
            f"Hint: it was saved by another statetools version or edited; {FRESH}",
        ),
        (
            '{"call_counts": {"search": 1}, "colour": "blue"}',
            f"{PATH}: state: not a disclosure state this statetools can read (unknown fields: "
            f"colour) Hint: it was saved by another statetools version or edited; {FRESH}",
        ),
        (
            7,
            f"{PATH}: expected the text of a disclosure state, got int Hint: {FRESH}",
        ),
        (
            '{"machine_states": {"billing": "OPEN"}}',
            f"{PATH}: the saved disclosure state is of another design: it has a state machine "
            "'billing', which this agent's design does not Hint: continue the conversation "
            f"with the agent that had that design, or {FRESH}",
        ),
        (
            '{"unfolds": [["slack", "{}"]]}',
            f"{PATH}: the saved disclosure state is of another design: it has a facade "
            "'slack', which this agent's design does not Hint: continue the conversation "
            f"with the agent that had that design, or {FRESH}",
        ),
        (
            '{"machine_states": {"order": "PAID"}}',
            f"{PATH}: state.machine_states.order: machine 'order' has no state 'PAID' "
            f"Hint: its states are DRAFT, CONFIRMED; {FRESH}",
        ),
    ],
    ids=["not-json", "newer-format", "not-text", "other-machine", "other-facade", "no-such-state"],
)
def test_a_saved_state_that_does_not_fit_the_design_is_an_error(text: object, error: str) -> None:
    ran: list[str] = []
    model = Turns({"q2": ["never asked"]})
    agent = agent_for(model, ran)
    with pytest.raises(st.SpecError) as raised:
        agent.run_sync("q2", message_history=saved_with(text))
    assert str(raised.value) == error
    assert model.tools == {}


def test_calls_made_after_the_saved_state_are_an_error() -> None:
    ran: list[str] = []
    model = Turns({"q1": ["hello"], "q2": ["never asked"]})
    agent = agent_for(model, ran)
    history = agent.run_sync("q1").all_messages()
    history += [  # an edited history: a call of ours the saved state does not count
        ModelResponse(parts=[ToolCallPart("search", {"q": "x"}, tool_call_id="e1")]),
        ModelRequest(parts=[ToolReturnPart("search", "found 3 pages", tool_call_id="e1")]),
        ModelResponse(parts=[TextPart("ok")]),
    ]
    with pytest.raises(st.SpecError) as raised:
        agent.run_sync("q2", message_history=history)
    assert str(raised.value) == (
        "message_history[1].metadata['statetools']: the history has calls of search after "
        "the saved disclosure state, which does not count them Hint: runs of this agent save "
        "the state when they end (agent.run, run_sync, iter; not run_stream); continue from a "
        f"history whose last run saved it, or {FRESH}"
    )


def test_iter_saves_the_state_too() -> None:
    ran: list[str] = []
    model = Turns({"q1": [("search", {"q": "tides"}), "found"], "q2": [("analyze", {}), "done"]})
    agent = agent_for(model, ran)

    async def walk(prompt: str, history: list[ModelMessage] | None) -> list[ModelMessage]:
        async with agent.iter(prompt, message_history=history) as run:
            async for _node in run:
                pass
        assert run.result is not None
        return run.result.all_messages()

    history = asyncio.run(walk("q1", None))
    asyncio.run(walk("q2", history))
    assert model.tools == {"q1": [FIRST, RESEARCHED], "q2": [RESEARCHED, RESEARCHED]}
    assert ran == ["search", "analyze"]


def test_run_stream_starts_from_the_saved_state_but_cannot_save_its_own() -> None:
    ran: list[str] = []
    model = Turns(
        {
            "q1": [("search", {"q": "tides"}), "found"],
            "q2": [("confirm", {}), "confirmed"],
            "q3": ["never asked"],
        }
    )
    agent = agent_for(model, ran)
    history = agent.run_sync("q1").all_messages()

    async def streamed() -> list[ModelMessage]:
        async with agent.run_stream("q2", message_history=history) as stream:
            assert await stream.get_output() == "confirmed"
        return stream.all_messages()

    streamed_history = asyncio.run(streamed())
    assert model.tools["q2"] == [RESEARCHED, ["search", "github", "analyze", "ship"]]
    # pydantic-ai builds run_stream's messages before the run ends: no state of q2 in them
    assert [sorted(m.metadata or {}) for m in streamed_history if isinstance(m, ModelResponse)] == [
        [],
        ["statetools"],
        [],
        [],
    ]
    with pytest.raises(st.SpecError, match="the history has calls of confirm after"):
        agent.run_sync("q3", message_history=streamed_history)


def test_a_run_streamed_through_an_event_handler_saves_the_state() -> None:
    ran: list[str] = []
    model = Turns({"q1": [("search", {"q": "tides"}), "found"], "q2": [("analyze", {}), "done"]})
    agent = agent_for(model, ran)
    kinds: list[str] = []

    async def handler(ctx: Any, events: Any) -> None:
        async for event in events:
            kinds.append(event.event_kind)

    async def turns() -> None:
        first = await agent.run("q1", event_stream_handler=handler)
        await agent.run("q2", message_history=first.all_messages(), event_stream_handler=handler)

    asyncio.run(turns())
    assert "part_start" in kinds  # the model was streamed
    assert model.tools == {"q1": [FIRST, RESEARCHED], "q2": [RESEARCHED, RESEARCHED]}
    assert ran == ["search", "analyze"]
