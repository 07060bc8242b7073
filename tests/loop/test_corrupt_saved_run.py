"""A corrupt saved history or disclosure state is a SpecError naming where, never a crash."""

from __future__ import annotations

import enum
from typing import Any

import pytest

import statetools as st
from statetools.models import ScriptedModel

HINT = "Hint: pass the list that messages_to_json (or result.messages saved as JSON) gave"


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ([{"content": "hi"}], "messages[0].role: the role is missing"),
        ([None], "messages[0]: expected a message (a mapping), got null"),
        ([{"role": "user"}], "messages[0].content: required field missing"),
        (
            [{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}],
            "messages[1].role: the role is 'bot', not one of system, user, assistant, tool",
        ),
        (
            [{"role": ["user"]}],
            "messages[0].role: the role is list, not one of system, user, assistant, tool",
        ),
        (
            [{"role": "user", "content": None}],
            "messages[0].content: invalid value for type, expected str",
        ),
        (
            [{"role": "user", "content": "a", "colour": 1}],
            "messages[0]: extra fields found (colour)",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"id": "c1", "name": "n", "arguments": [1]}]}],
            "messages[0].tool_calls[0].arguments: expected a mapping",
        ),
        (
            [{"role": "tool", "tool_call_id": "c1", "name": "n", "content": "x", "is_error": "no"}],
            "messages[0].is_error: invalid value for type, expected bool",
        ),
        ("hi", "messages: expected a list of messages, got 'hi'"),
        ({"role": "user"}, "messages: expected a list of messages, got dict"),
    ],
)
def test_a_corrupt_history_is_a_spec_error_with_the_path(data: Any, text: str) -> None:
    with pytest.raises(st.SpecError) as caught:
        st.messages_from_json(data)
    assert str(caught.value) == f"{text} {HINT}"
    assert caught.value.path == text.split(":")[0]


def test_every_problem_of_the_first_bad_message_is_listed() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.messages_from_json([{"role": "assistant", "tool_calls": [{"id": 1}]}])
    assert caught.value.problems == (
        "messages[0].tool_calls[0].id: invalid value for type, expected str",
        "messages[0].tool_calls[0].name: required field missing",
    )


def test_a_saved_history_still_round_trips() -> None:
    messages = [
        st.UserMessage("hi"),
        st.AssistantMessage("", (st.ToolCall("c1", "go", {"n": 1}),)),
        st.ToolMessage("c1", "go", "ok", is_error=True),
    ]
    assert st.messages_from_json(st.messages_to_json(messages)) == messages


class Stage(enum.Enum):
    DRAFT = "DRAFT"
    DONE = "DONE"


def test_a_saved_state_naming_a_state_the_machine_lacks_is_refused() -> None:
    go = st.Tool.create("go", "Finish the order.", lambda: "ok")
    order = st.StateMachineTool("order", "Handle an order.", Stage).in_state(Stage.DRAFT)
    order = order.with_tool(go).transitions_to(Stage.DONE)
    saved = st.DisclosureState.from_json('{"machine_states": {"order": "SHIPPED"}}')
    model = ScriptedModel(["Done."])

    with pytest.raises(st.SpecError) as caught:
        st.ToolLoop(model).run("Finish", tools=[order], state=saved)

    assert str(caught.value) == (
        "state.machine_states.order: machine 'order' has no state 'SHIPPED' "
        "Hint: its states are DRAFT, DONE; resume with the state saved from this design"
    )
    assert model.requests == []


STATE_HINT = "Hint: pass the text of result.state.to_json()"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '{"call_counts": {"search": "two"}}',
            "state.call_counts['search']: expected an integer, got str",
        ),
        (
            '{"call_counts": {"search": true}}',
            "state.call_counts['search']: expected an integer, got bool",
        ),
        (
            '{"machine_states": {"order": 3}}',
            "state.machine_states['order']: expected text, got int",
        ),
        ('{"iteration": "two"}', "state.iteration: expected an integer, got str"),
        ('{"colour": 1}', "state: unknown fields: colour"),
        ("[1]", "state: expected a JSON object, got list"),
        ("null", "state: expected a JSON object, got null"),
        ("not json", "state: not JSON (Expecting value: line 1 column 1 (char 0))"),
    ],
)
def test_a_corrupt_saved_state_is_a_spec_error_naming_the_field(text: str, problem: str) -> None:
    with pytest.raises(st.SpecError) as caught:
        st.DisclosureState.from_json(text)
    assert str(caught.value) == f"{problem} {STATE_HINT}"
    assert caught.value.problems == (problem,)


def test_a_saved_state_still_round_trips() -> None:
    state = st.DisclosureState(
        call_counts={"search": 2}, machine_states={"order": "DONE"}, iteration=3
    )
    assert st.DisclosureState.from_json(state.to_json()) == state
