"""A host that reads the final answer as the output type itself (Temporal reads it on a
worker) and one that carries a run over (continue-as-new) get the run a local loop gives:
the same messages, trace and errors, with the answer read where the host reads it."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import statetools as st
from statetools.engine import Conversation
from statetools.engine.run_result import OutputProblem, correction_message, parse_output
from statetools.models import ScriptedModel


@attrs.frozen
class Grade:
    letter: str
    score: int


def echo(text: str) -> str:
    """Echo the text."""
    return text


def _clock() -> float:
    return 0.0


def host_reading(steps: list[Any]) -> Conversation:
    """Drive a conversation whose host reads each final answer as a Grade (as the
    Temporal worker does, with the same reader), until it ends."""
    model = ScriptedModel(steps)
    conv = Conversation(
        [echo], "Grade Ada.", output_type=Grade, reads_output=False, run_id="r1", clock=_clock
    )
    while not conv.finished:
        for call in conv.take(model.respond(conv.next_request())):
            conv.answer(call, call.tool.call(dict(call.arguments), conv.context))
        text = conv.unread_answer
        if text is None:
            continue
        try:
            conv.output_read(parse_output(text, Grade))
        except OutputProblem as problem:
            error = st.OutputValidationError(f"not a Grade: {problem}", path="output")
            conv.output_unreadable(correction_message(problem, Grade), error)
    return conv


def local(steps: list[Any]) -> st.LoopResult:
    loop = st.ToolLoop(ScriptedModel(steps), id_factory=lambda: "r1", clock=_clock)
    return loop.run("Grade Ada.", tools=[echo], output_type=Grade)


def test_an_answer_read_by_the_host_ends_the_run_as_a_local_run_ends() -> None:
    steps: list[Any] = [("echo", {"text": "B"}), '{"letter": "B"}', '{"letter": "B", "score": 7}']
    conv = host_reading(steps)
    unbroken = local(steps)
    assert conv.result.output == unbroken.output == Grade("B", 7)
    assert conv.result.messages == unbroken.messages
    assert conv.result.trace == unbroken.trace
    assert conv.result.state == unbroken.state
    assert conv.result.messages[4].content == (
        "Your answer could not be read as Grade: missing required field 'score'. Answer "
        'again with only a JSON value matching this schema: {"type":"object","properties":'
        '{"letter":{"type":"string"},"score":{"type":"integer"}},"required":["letter",'
        '"score"],"additionalProperties":false}'
    )


def test_a_second_answer_the_host_cannot_read_ends_the_run_with_the_hosts_error() -> None:
    with pytest.raises(st.OutputValidationError) as failed:
        host_reading(['{"letter": "B"}', '{"score": 7}'])
    assert str(failed.value) == "output: not a Grade: missing required field 'letter'"
    result = failed.value.result
    assert result is not None
    assert (result.outcome, result.iterations, result.trace[-1].error) == (
        "OutputValidationError",
        2,
        "output: not a Grade: missing required field 'letter'",
    )


def test_the_host_must_read_the_answer_before_going_on() -> None:
    conv = Conversation([echo], "Grade Ada.", output_type=Grade, reads_output=False, run_id="r1")
    conv.take(ScriptedModel(['{"letter": "B", "score": 7}']).respond(conv.next_request()))
    with pytest.raises(st.StatetoolsError) as refused:
        conv.next_request()
    assert str(refused.value) == (
        "Conversation.next_request: the final answer has not been read Hint: read "
        "conv.unread_answer: conv.output_read(value) or output_unreadable(...)"
    )
    with pytest.raises(st.StatetoolsError) as nothing:
        Conversation([echo], "Hi", run_id="r1").output_read(1)
    assert str(nothing.value).startswith("Conversation.output_read: no final answer is waiting")


def test_a_carried_over_run_counts_the_model_calls_already_made_and_words_its_error() -> None:
    first = Conversation([echo], "Go.", max_iterations=3, run_id="r1", clock=_clock)
    model = ScriptedModel([("echo", {"text": "a"})] * 3)
    for call in first.take(model.respond(first.next_request())):
        first.answer(call, call.tool.call(dict(call.arguments), first.context))
    assert first.asked == 1
    carried = Conversation(
        [echo],
        list(first.messages),
        state=first.record.state(),
        events=first.events,
        max_iterations=3,
        asked=first.asked,
        run_id="r1",
        clock=_clock,
        start=False,
        wording=lambda error: error.message,
    )
    for _ in range(2):
        for call in carried.take(model.respond(carried.next_request())):
            carried.answer(call, call.tool.call(dict(call.arguments), carried.context))
    with pytest.raises(st.MaxIterationsExceeded) as failed:
        carried.next_request()
    assert carried.asked == 3
    assert failed.value.result is not None
    trace = failed.value.result.trace
    assert trace[: len(first.events)] == tuple(first.events)
    assert (trace[-1].outcome, trace[-1].error) == (
        "MaxIterationsExceeded",
        "no final answer after 3 model calls",
    )
