"""st.search.example_requests: one request to the model per tool with the measured prompt,
the answer read one request per line, and bad input refused with a hint."""

from __future__ import annotations

import asyncio

import pytest

import statetools as st
from statetools.messages import AssistantMessage, UserMessage
from statetools.models import ModelRequest, ModelResponse, OpenAIChatModel, ScriptedModel
from statetools.search import aexample_requests, example_requests
from statetools.search.examples import requests_in
from tests.providers.provider_wire import (
    WireServer,
    anthropic_message,
    chat_completion,
    openai_error,
    output_message,
    response,
    text,
)

SHARED = "This tool belongs to the Gorilla file system of the benchmark. "


def cd(folder: str) -> str:
    """This tool belongs to the Gorilla file system of the benchmark. Change the
    current directory.

    Args:
        folder: The folder to go to.
    """
    return folder


def find(name: str) -> str:
    """This tool belongs to the Gorilla file system of the benchmark. Find files by name."""
    return name


def post_tweet(content: str) -> str:
    """Post a tweet for the user."""
    return content


CD, FIND, POST = (st.Tool.from_function(f) for f in (cd, find, post_tweet))


def prompt(name: str, focus: str, per_tool: int = 4) -> str:
    return (
        f"Tool: {name}\n"
        f"What it does: {focus}\n"
        "\n"
        f"Write {per_tool} different requests, each a full English sentence, that a person "
        "might say to an assistant when this tool is needed (alone or as one step of a "
        "bigger task). Everyday words, no code, no tool names. One request per line, no "
        "numbering."
    )


CD_ALONE = (
    "cd. This tool belongs to the Gorilla file system of the benchmark. Change the current "
    "directory. folder. The folder to go to"
)
"""The focus of cd in a catalogue of its own: no other tool shares its opening."""
CD_PROMPT = prompt("cd", CD_ALONE)


def test_one_request_per_tool_with_the_measured_prompt_and_no_tools() -> None:
    model = ScriptedModel(
        [
            "Take me to my Documents folder.\nGo up one level.",
            "Where is my file called notes?\nLook for the budget spreadsheet.",
            "Tell my followers I am on holiday.\nShare that the shop opens at nine.",
        ]
    )
    found = example_requests([CD, FIND, POST], model, per_tool=2)
    assert found == {
        "cd": ["Take me to my Documents folder.", "Go up one level."],
        "find": ["Where is my file called notes?", "Look for the budget spreadsheet."],
        "post_tweet": ["Tell my followers I am on holiday.", "Share that the shop opens at nine."],
    }
    assert [request.tools for request in model.requests] == [(), (), ()]
    assert [request.messages for request in model.requests] == [
        (UserMessage(prompt(name, focus, 2)),)
        for name, focus in (
            ("cd", "cd. Change the current directory. folder. The folder to go to"),
            ("find", "find. Find files by name. name"),
            ("post_tweet", "post tweet. Post a tweet for the user. content"),
        )
    ]
    # the opening the file-system tools share is left out of what the model reads
    assert SHARED.strip() in CD.description
    assert all(SHARED.strip() not in r.messages[0].content for r in model.requests)


def test_the_focus_is_computed_over_the_whole_catalogue() -> None:
    """Alone, cd shares its opening with no other tool: the model reads all of it."""
    model = ScriptedModel(["Open my music folder."])
    assert example_requests([CD], model, per_tool=1) == {"cd": ["Open my music folder."]}
    assert model.requests[0].messages[0].content == prompt("cd", CD_ALONE, 1)


def test_the_default_asks_for_four_requests() -> None:
    answer = "\n".join(f"Open folder number {n}." for n in range(1, 7))
    model = ScriptedModel([answer])
    assert example_requests([CD], model) == {
        "cd": [f"Open folder number {n}." for n in range(1, 5)]
    }
    assert model.requests[0].messages[0].content.startswith("Tool: cd\n")
    assert "Write 4 different requests," in model.requests[0].messages[0].content


def test_markers_quotes_blank_lines_names_repeats_and_the_limit() -> None:
    answer = (
        "\n"
        "  - Go to my Documents folder.  \n"
        "* 'Open the Pictures directory.'\n"
        "\n"
        "\u2022 \u201cSwitch to the downloads folder.\u201d\n"
        "1. Run cd to reach the desktop.\n"
        "2) go to my documents   FOLDER.\n"
        '3. ""\n'
        "   \n"
        "-\n"
        '4) "Move into the projects folder, then list it."\n'
        "10. Head back to my home folder.\n"
        "Change to the music folder.\n"
    )
    assert requests_in(answer, "cd", 5, description=CD.description) == [
        "Go to my Documents folder.",
        "Open the Pictures directory.",
        "Switch to the downloads folder.",
        "Move into the projects folder, then list it.",
        "Head back to my home folder.",
    ]
    assert requests_in(answer, "cd", 2, description=CD.description) == [
        "Go to my Documents folder.",
        "Open the Pictures directory.",
    ]


def test_a_number_that_starts_a_sentence_is_not_a_marker() -> None:
    assert requests_in("3.5 stars is my rating, post it.\n2024 was great.", "x", 4) == [
        "3.5 stars is my rating, post it.",
        "2024 was great.",
    ]


def test_lines_that_name_the_tool_are_left_out() -> None:
    answer = (
        "Use post_tweet to share my news.\n"
        "Call POST_TWEET with hello.\n"
        "Post a tweet saying hello.\n"
        "Share my news with my followers.\n"
        "Run post_tweet() now."
    )
    assert requests_in(answer, "post_tweet", 4, description=POST.description) == [
        "Post a tweet saying hello.",
        "Share my news with my followers.",
    ]


def test_a_name_that_is_a_word_of_its_description_counts_only_as_code() -> None:
    answer = (
        "Find my tax notes.\n"
        "Can you find the holiday photos?\n"
        "Run `find` on the whole disk.\n"
        "Please call find(name) for me.\n"
        "Where did I put the budget file?"
    )
    assert requests_in(answer, "find", 4, description=FIND.description) == [
        "Find my tax notes.",
        "Can you find the holiday photos?",
        "Where did I put the budget file?",
    ]
    # a name that is no word of its description is left out wherever it stands
    assert requests_in("Please cd into my notes.\nAbcd is my folder.", "cd", 4) == [
        "Abcd is my folder."
    ]


def test_an_answer_without_a_usable_line_gives_an_empty_list_and_the_others_go_on() -> None:
    model = ScriptedModel(["", "Use `find` to look.\n- \n\n", "Tell everyone I am home."])
    assert example_requests([CD, FIND, POST], model, per_tool=3) == {
        "cd": [],
        "find": [],
        "post_tweet": ["Tell everyone I am home."],
    }
    assert len(model.requests) == 3


def test_an_answer_cut_at_the_output_cap_loses_its_unfinished_last_line() -> None:
    cut = ModelResponse(
        AssistantMessage("Go to my Documents folder.\nOpen the Pictures"),
        stop_reason="max_tokens",
    )
    alone = ModelResponse(AssistantMessage("Go to my Docu"), stop_reason="max_tokens")
    model = ScriptedModel([cut, alone])
    assert example_requests([CD, POST], model) == {
        "cd": ["Go to my Documents folder."],
        "post_tweet": [],
    }


def test_no_tools_means_no_requests() -> None:
    model = ScriptedModel([])
    assert example_requests([], model) == {}
    assert model.requests == []


@pytest.mark.parametrize("per_tool", [0, -2, 2.5, True, "4", None])
def test_per_tool_must_be_a_whole_number_of_at_least_one(per_tool: object) -> None:
    model = ScriptedModel(["Go home."])
    with pytest.raises(st.DefinitionError) as caught:
        example_requests([CD], model, per_tool=per_tool)  # type: ignore[arg-type]
    assert str(caught.value) == (
        f"example_requests: per_tool must be a whole number of at least 1, not {per_tool!r} "
        "Hint: pass per_tool=4 (the default), or another number such as 2 or 8"
    )
    assert model.requests == []


def test_concurrency_is_checked_too() -> None:
    with pytest.raises(st.DefinitionError, match="concurrency must be a whole number"):
        example_requests([CD], ScriptedModel(["Go home."]), concurrency=0)


def test_two_tools_of_one_name_are_refused_before_any_request() -> None:
    model = ScriptedModel(["Go home.", "Go home."])
    other = st.Tool.create("cd", "Change the drive.", lambda drive: drive)
    with pytest.raises(st.DefinitionError) as caught:
        example_requests([CD, other], model)
    assert str(caught.value) == (
        "example_requests.cd: two tools are named 'cd' Hint: give every tool of one call "
        "its own name: the result maps names to requests"
    )
    assert model.requests == []


def test_what_is_not_a_tool_is_refused() -> None:
    with pytest.raises(st.DefinitionError, match=r"item 1 is str, not a tool"):
        example_requests([CD, "find"], ScriptedModel([]))  # type: ignore[list-item]
    with pytest.raises(st.DefinitionError, match=r"expected a list of tools, not str"):
        example_requests("cd", ScriptedModel([]))  # type: ignore[arg-type]
    with pytest.raises(st.StatetoolsError, match="cannot make a model from int"):
        example_requests([CD], 3)  # type: ignore[arg-type]


def test_options_for_a_model_object_are_refused() -> None:
    with pytest.raises(st.DefinitionError, match="model_options only apply to a model given"):
        example_requests([CD], ScriptedModel(["x"]), model_options={"temperature": 0})


def test_inside_a_running_event_loop_it_says_to_await_the_async_form() -> None:
    model = ScriptedModel(["Go home."])

    async def inside() -> None:
        with pytest.raises(st.StatetoolsError) as caught:
            example_requests([CD], model)
        assert str(caught.value) == (
            "example_requests: example_requests() was called inside a running event loop "
            "Hint: use 'await aexample_requests(...)' in async code"
        )
        assert await aexample_requests([CD], model, per_tool=1) == {"cd": ["Go home."]}

    asyncio.run(inside())
    assert len(model.requests) == 1


def test_at_most_concurrency_requests_at_once_and_results_in_tool_order() -> None:
    running: list[int] = [0, 0]  # now, most

    def step(answer: str, delay: float):  # type: ignore[no-untyped-def]
        async def answer_later(request: ModelRequest) -> str:
            running[0] += 1
            running[1] = max(running)
            await asyncio.sleep(delay)
            running[0] -= 1
            return answer

        return answer_later

    tools = [st.Tool.create(f"tool_{n}", f"Does thing {n}.", lambda: None) for n in range(5)]
    model = ScriptedModel([step(f"Do thing {n}.", 0.05 - n * 0.01) for n in range(5)])
    found = example_requests(tools, model, concurrency=2)
    assert found == {f"tool_{n}": [f"Do thing {n}."] for n in range(5)}
    assert running[1] == 2
    assert [r.messages[0].content.splitlines()[0] for r in model.requests] == [
        f"Tool: tool_{n}" for n in range(5)
    ]


def test_a_failing_request_raises_the_models_error_and_stops_the_others() -> None:
    started: list[str] = []

    async def slow(request: ModelRequest) -> str:
        started.append("slow")
        await asyncio.sleep(5)
        return "never"

    def fail(request: ModelRequest) -> str:
        raise st.ProviderError("rate limited", status=429, path="openai")

    model = ScriptedModel([slow, fail, "Tell everyone."])
    with pytest.raises(st.ProviderError) as caught:
        example_requests([CD, FIND, POST], model, concurrency=2)
    assert (caught.value.status, str(caught.value)) == (429, "openai: rate limited")
    assert started == ["slow"]
    assert len(model.requests) == 2  # the third never started


# ---- the real SDK clients against a local server ----------------------------------------


def test_openai_chat_model_on_a_local_server(wire: WireServer) -> None:
    wire.reply(
        chat_completion("1. Take me to my Documents folder.\n2. Use cd to go home.\n3. Go up.")
    )
    wire.reply(chat_completion('- "Look for my tax notes."\n- Find the budget file.'))
    model = OpenAIChatModel(
        "qwen", base_url=f"{wire.url}/v1", api_key="none", max_retries=0, temperature=0
    )
    found = example_requests([CD, FIND], model, per_tool=3, concurrency=1)
    assert found == {
        "cd": ["Take me to my Documents folder.", "Go up."],
        "find": ["Look for my tax notes.", "Find the budget file."],
    }
    assert [r.path for r in wire.requests] == ["/v1/chat/completions"] * 2
    assert wire.bodies == [
        {
            "model": "qwen",
            "messages": [{"role": "user", "content": prompt(name, focus, 3)}],
            "temperature": 0,
        }
        for name, focus in (
            ("cd", "cd. Change the current directory. folder. The folder to go to"),
            ("find", "find. Find files by name. name"),
        )
    ]


def test_a_model_string_is_made_at_temperature_zero_with_an_output_cap(wire: WireServer) -> None:
    wire.reply(chat_completion("Take me home."))
    found = example_requests(
        [CD],
        "openai-chat:qwen",
        model_options={"base_url": f"{wire.url}/v1", "api_key": "none", "max_retries": 0},
    )
    assert found == {"cd": ["Take me home."]}
    assert wire.bodies == [
        {
            "model": "qwen",
            "messages": [{"role": "user", "content": CD_PROMPT}],
            "temperature": 0,
            "max_tokens": 150,
        }
    ]


def test_the_cap_grows_past_four_requests_and_options_replace_the_defaults(
    wire: WireServer,
) -> None:
    wire.reply(response(output_message("Take me home.")))
    wire.reply(anthropic_message(text("Go to my desktop.")))
    assert example_requests(
        [CD],
        "openai:gpt-test",
        per_tool=6,
        model_options={"base_url": f"{wire.url}/v1", "api_key": "k", "temperature": 0.3},
    ) == {"cd": ["Take me home."]}
    assert example_requests(
        [CD],
        "anthropic:claude-test",
        model_options={"base_url": wire.url, "api_key": "k"},
    ) == {"cd": ["Go to my desktop."]}
    responses, messages = wire.bodies
    assert wire.requests[0].path == "/v1/responses"
    assert (responses["temperature"], responses["max_output_tokens"]) == (0.3, 230)
    assert responses["input"][0]["content"] == prompt("cd", CD_ALONE, 6)
    assert wire.requests[1].path == "/v1/messages"
    assert (messages["temperature"], messages["max_tokens"]) == (0, 150)
    assert messages["messages"] == [{"role": "user", "content": CD_PROMPT}]
    assert "tools" not in responses
    assert "tools" not in messages


def test_a_provider_error_is_raised_as_the_adapter_raises_it(wire: WireServer) -> None:
    wire.reply(openai_error("the model is loading"), status=503)
    model = OpenAIChatModel("qwen", base_url=f"{wire.url}/v1", api_key="none", max_retries=0)
    with pytest.raises(st.ProviderError) as caught:
        example_requests([CD], model)
    assert caught.value.status == 503
    assert "the model is loading" in str(caught.value)
