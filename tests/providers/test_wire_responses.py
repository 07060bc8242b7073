"""Hostile responses through the real SDKs: what enters the history can be sent again,
a cut-off call never runs, a refusal ends the run as a refusal."""

from __future__ import annotations

from typing import Any

import statetools as st
from statetools.engine.events import (
    ModelResponded,
    OutputRejected,
    RunFinished,
    ToolAnswered,
    ToolCalled,
)
from statetools.models import AnthropicModel, OpenAIChatModel
from tests.providers.provider_wire import (
    WireServer,
    anthropic_message,
    chat_completion,
    openai_call,
    text,
    tool_use,
)

CUT_OFF = (
    "Tool 'wipe' was not run: your response was cut off by the token limit before the "
    "call was complete. Call it again, with a shorter response."
)
NOT_A_NUMBER = (
    "Invalid arguments for tool 'measure': argument 'x' must be a number, got \"NaN\". "
    "Call it again with corrected arguments."
)


def anthropic(wire: WireServer) -> AnthropicModel:
    return AnthropicModel("claude-test", base_url=wire.url, api_key="sk-ant", max_retries=0)


def openai(wire: WireServer) -> OpenAIChatModel:
    return OpenAIChatModel("gpt-test", base_url=f"{wire.url}/v1", api_key="sk", max_retries=0)


class Calls:
    """Tools that record what they were called with."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    def tools(self) -> list[st.Tool]:
        def echo(text: str) -> str:
            """Echo the text."""
            self.seen.append(("echo", text))
            return f"echo: {text}"

        def glyph() -> str:
            """A glyph from a broken font table."""
            self.seen.append(("glyph", None))
            return "glyph \udfff"

        def measure(x: float) -> str:
            """Measure x."""
            self.seen.append(("measure", x))
            return "ok"

        def wipe(confirm: bool = True) -> str:
            """Wipe the disk."""
            self.seen.append(("wipe", confirm))
            return "wiped"

        return [st.Tool.from_function(f) for f in (echo, glyph, measure, wipe)]


def result_block(call_id: str, content: str, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


def test_anthropic_lone_surrogates_and_nan_are_cleaned_and_the_run_continues(
    wire: WireServer,
) -> None:
    wire.reply(
        anthropic_message(
            text("Trying \ud800."),
            tool_use("toolu_1", "echo", {"text": "a\ud800b"}),
            tool_use("toolu_2", "glyph", {}),
            tool_use("toolu_3", "measure", {"x": float("nan")}),
        )
    )
    wire.reply(anthropic_message(text("Done.")))
    calls = Calls()

    result = st.ToolLoop(anthropic(wire)).run("Go.", tools=calls.tools())

    assert result.output == "Done."
    assert calls.seen == [("echo", "a\ufffdb"), ("glyph", None)]
    assert wire.bodies[1]["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Trying \ufffd."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "echo",
                    "input": {"text": "a\ufffdb"},
                },
                {"type": "tool_use", "id": "toolu_2", "name": "glyph", "input": {}},
                {"type": "tool_use", "id": "toolu_3", "name": "measure", "input": {"x": "NaN"}},
            ],
        },
        {
            "role": "user",
            "content": [
                result_block("toolu_1", "echo: a\ufffdb"),
                result_block("toolu_2", "glyph \ufffd"),
                result_block("toolu_3", NOT_A_NUMBER, is_error=True),
            ],
        },
    ]
    assert result.trace.of_type(ToolAnswered)[1].text == "glyph \ufffd"
    assert st.Trace.from_json(result.trace.to_json()) == result.trace


def test_openai_lone_surrogates_and_nan_are_cleaned_and_the_run_continues(
    wire: WireServer,
) -> None:
    wire.reply(
        chat_completion(
            "Trying \udbff.",
            tool_calls=[
                openai_call("call_1", "echo", '{"text": "\\ud800"}'),
                openai_call("call_2", "measure", '{"x": NaN}'),
                openai_call("call_3", "glyph", "{}"),
            ],
        )
    )
    wire.reply(chat_completion("Done."))
    calls = Calls()

    result = st.ToolLoop(openai(wire)).run("Go \udc00.", tools=calls.tools())

    assert result.output == "Done."
    assert calls.seen == [("echo", "\ufffd"), ("glyph", None)]
    assert wire.bodies[0]["messages"] == [{"role": "user", "content": "Go \ufffd."}]
    assert wire.bodies[1]["messages"][1:] == [
        {
            "role": "assistant",
            "content": "Trying \ufffd.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "echo", "arguments": '{"text": "\\ufffd"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "measure", "arguments": '{"x": "NaN"}'},
                },
                {
                    "id": "call_3",
                    "type": "function",
                    "function": {"name": "glyph", "arguments": "{}"},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "echo: \ufffd"},
        {"role": "tool", "tool_call_id": "call_2", "content": NOT_A_NUMBER},
        {"role": "tool", "tool_call_id": "call_3", "content": "glyph \ufffd"},
    ]


def test_anthropic_a_call_cut_off_by_max_tokens_is_not_run_and_the_model_asked_again(
    wire: WireServer,
) -> None:
    wire.reply(anthropic_message(tool_use("toolu_1", "wipe", {}), stop_reason="max_tokens"))
    wire.reply(anthropic_message(text("I will not wipe anything.")))
    calls = Calls()

    result = st.ToolLoop(anthropic(wire)).run("Clean up.", tools=calls.tools())

    assert calls.seen == []
    assert result.output == "I will not wipe anything."
    assert wire.bodies[1]["messages"][2] == {
        "role": "user",
        "content": [result_block("toolu_1", CUT_OFF, is_error=True)],
    }
    assert result.trace.of_type(ToolCalled) == []
    assert [e.stop_reason for e in result.trace.of_type(ModelResponded)] == [
        "max_tokens",
        "end_turn",
    ]


def test_openai_a_call_cut_off_by_length_is_not_run_and_the_model_asked_again(
    wire: WireServer,
) -> None:
    wire.reply(
        chat_completion(
            tool_calls=[
                openai_call("call_1", "wipe", "{}"),
                openai_call("call_2", "wipe", '{"confirm": fal'),
            ],
            finish_reason="length",
        )
    )
    wire.reply(chat_completion("Stopped."))
    calls = Calls()

    result = st.ToolLoop(openai(wire)).run("Clean up.", tools=calls.tools())

    assert calls.seen == []
    assert wire.bodies[1]["messages"][2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": CUT_OFF},
        {"role": "tool", "tool_call_id": "call_2", "content": CUT_OFF},
    ]
    assert (result.output, result.outcome, result.stop_reason) == ("Stopped.", "answer", "end_turn")


def test_openai_a_refusal_ends_the_run_as_a_refusal(wire: WireServer) -> None:
    body = chat_completion(None)
    body["choices"][0]["message"]["refusal"] = "I can't help with that."
    wire.reply(body)
    finished: list[st.Event] = []

    result = st.ToolLoop(openai(wire), listeners=[finished.append]).run("Do harm.")

    assert (result.output, result.outcome, result.stop_reason) == (
        "I can't help with that.",
        "refusal",
        "refusal",
    )
    assert finished[-1].type == "run_finished"
    assert finished[-1].outcome == "refusal"  # type: ignore[union-attr]


def test_anthropic_a_refusal_with_a_call_answers_the_call_and_ends_as_a_refusal(
    wire: WireServer,
) -> None:
    wire.reply(
        anthropic_message(
            text("I won't continue."), tool_use("toolu_1", "wipe", {}), stop_reason="refusal"
        )
    )
    calls = Calls()

    result = st.ToolLoop(anthropic(wire)).run("Wipe it.", tools=calls.tools())

    assert calls.seen == []
    assert (result.output, result.outcome, result.stop_reason) == (
        "I won't continue.",
        "refusal",
        "refusal",
    )
    assert result.messages[-1] == st.ToolMessage(
        "toolu_1", "wipe", "Tool 'wipe' was not run: the response was a refusal.", True
    )
    assert result.trace[-1] == RunFinished(result.trace[-1].at, 1, "refusal")


def test_a_refusal_with_an_output_type_gives_no_output(wire: WireServer) -> None:
    wire.reply(anthropic_message(text("No."), stop_reason="refusal"))

    result = st.ToolLoop(anthropic(wire)).run("Count.", output_type=int)

    assert (result.output, result.outcome) == (None, "refusal")
    assert result.trace.of_type(OutputRejected) == []
