"""Models that cannot take new tools mid-conversation: bounded conversation restarts."""

from __future__ import annotations

import asyncio

import pytest

import statetools as st
from statetools.engine.events import ConversationRestarted
from statetools.models import ModelCapabilities, ModelRequest, ScriptedModel, ToolDefinition

STATIC = ModelCapabilities(supports_dynamic_tools=False)


def chain(length: int) -> st.PlaybookTool:
    playbook = st.PlaybookTool("chain", "A chain").with_tool(
        st.Tool.create("t0", "Step 0", lambda: "ok")
    )
    for i in range(1, length):
        tool = st.Tool.create(f"t{i}", f"Step {i}", lambda: "ok")
        playbook = playbook.with_tool(tool).unlocked_by(f"t{i - 1}")
    return playbook


def test_an_unlock_starts_a_new_conversation_with_the_history() -> None:
    model = ScriptedModel([("t0", {}), ("t1", {}), "done"], capabilities=STATIC)
    result = st.ToolLoop(model).run("go", tools=[chain(3)])

    assert [(r.conversation, r.tool_names) for r in model.requests] == [
        (0, ["t0"]),
        (1, ["t0", "t1"]),
        (2, ["t0", "t1", "t2"]),
    ]
    assert model.requests[1].messages == result.messages[:3]
    assert result.trace.of_type(ConversationRestarted) == [
        ConversationRestarted(2, 1, ("t0", "t1")),
        ConversationRestarted(3, 2, ("t0", "t1", "t2")),
    ]


def test_a_dynamic_model_never_restarts() -> None:
    model = ScriptedModel([("t0", {}), "done"])
    result = st.ToolLoop(model).run("go", tools=[chain(3)])
    assert [r.conversation for r in model.requests] == [0, 0]
    assert result.trace.of_type(ConversationRestarted) == []


def test_more_than_ten_restarts_is_a_clear_error_with_the_run() -> None:
    steps = [(f"t{i}", {}) for i in range(12)]
    model = ScriptedModel([*steps, "done"], capabilities=STATIC)
    with pytest.raises(st.RestartLimitExceeded) as caught:
        st.ToolLoop(model).run("go", tools=[chain(13)])
    assert str(caught.value) == (
        "iteration 12: the tools changed more than 10 times and the model cannot take new "
        "tools within a conversation Hint: use a model with dynamic tools, or a design that "
        "discloses in fewer steps"
    )
    assert caught.value.result is not None
    assert len(caught.value.result.trace.of_type(ConversationRestarted)) == 10
    assert caught.value.result.messages[-1] == st.ToolMessage(
        "call_11", "t10", "ok\n[now available: t11]"
    )


def test_the_static_scripted_model_refuses_changed_tools_in_one_conversation() -> None:
    model = ScriptedModel(["a", "b"], capabilities=STATIC)
    one = (ToolDefinition("a", "A", {"type": "object"}),)
    asyncio.run(model.complete(ModelRequest((st.UserMessage("x"),), one)))
    with pytest.raises(st.ProviderError, match=r"the tools changed within conversation 0"):
        asyncio.run(model.complete(ModelRequest((st.UserMessage("x"),), ())))
