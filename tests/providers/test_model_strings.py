"""Model strings wherever a model goes: ToolLoop, with_model, YAML and the CLI."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import statetools as st
from statetools.cli import main
from statetools.models import OpenAIChatModel, OpenAIResponsesModel, ScriptedModel
from tests.providers.provider_streams import chat_stream, responses_stream
from tests.providers.provider_wire import (
    SEARCH,
    WireServer,
    chat_completion,
    openai_call,
    output_message,
    response,
)

UNKNOWN = (
    "model: unknown model provider 'nope' in 'nope:x' Hint: write "
    "'openai:MODEL', 'openai-chat:MODEL', 'anthropic:MODEL' or 'scripted:PATH.yaml'"
)


def test_a_tool_loop_on_a_string_talks_to_the_server_of_openai_base_url(
    wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{wire.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    wire.reply(chat_completion(tool_calls=[openai_call("c1", "search", '{"query": "tides"}')]))
    wire.reply(chat_completion("Tides follow the moon."))

    loop = st.ToolLoop("openai-chat:gpt-4o-mini")
    result = loop.run("Why tides?", tools=[SEARCH])

    assert isinstance(loop.model, OpenAIChatModel)
    assert result.output == "Tides follow the moon."
    assert [(r.path, r.body["model"]) for r in wire.requests] == [
        ("/v1/chat/completions", "gpt-4o-mini"),
        ("/v1/chat/completions", "gpt-4o-mini"),
    ]
    assert wire.requests[0].headers["authorization"] == "Bearer sk-env"
    assert wire.bodies[1]["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "3 hits for tides",
    }


def test_openai_strings_talk_to_the_responses_api(
    wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{wire.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    wire.reply(response(output_message("Tides follow the moon.")))

    loop = st.ToolLoop("openai:gpt-4o-mini")
    result = loop.run("Why tides?")

    assert isinstance(loop.model, OpenAIResponsesModel)
    assert result.output == "Tides follow the moon."
    assert [(r.path, r.body) for r in wire.requests] == [
        (
            "/v1/responses",
            {"model": "gpt-4o-mini", "input": [{"role": "user", "content": "Why tides?"}]},
        )
    ]


def test_an_unknown_provider_is_an_error_at_construction() -> None:
    with pytest.raises(st.StatetoolsError) as caught:
        st.ToolLoop("nope:x")

    assert str(caught.value) == UNKNOWN


def test_a_missing_key_is_an_error_at_construction() -> None:
    with pytest.raises(st.StatetoolsError) as caught:
        st.ToolLoop("openai:gpt-4o-mini")

    assert str(caught.value) == (
        "OpenAIResponsesModel: no OpenAI API key for model 'gpt-4o-mini' "
        "Hint: set the OPENAI_API_KEY environment variable or pass api_key=..."
    )


def test_something_that_is_not_a_model_is_refused_at_construction() -> None:
    with pytest.raises(st.StatetoolsError) as caught:
        st.ToolLoop(42)  # type: ignore[arg-type]

    assert str(caught.value) == (
        "ToolLoop: cannot use int as a model Hint: pass a Model (e.g. "
        "statetools.models.OpenAIChatModel(...)) or a string such as 'openai:gpt-4o-mini'"
    )


def test_with_model_takes_a_string_and_checks_it_at_once(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("- call: {name: search, arguments: {query: x}}\n- answer: Found it.\n")
    playbook = st.PlaybookTool("research", "Research a topic").with_tools(SEARCH)

    agentic = playbook.with_model(f"scripted:{script}")

    assert isinstance(agentic.agent.model, ScriptedModel)
    assert (
        st.ToolLoop(ScriptedModel([("research", {"task": "x"}), "done"]))
        .run("go", tools=[agentic])
        .messages[2]
        .content
        == "Found it."
    )
    for make in (
        lambda: playbook.with_model("nope:x"),
        lambda: st.SimpleAgenticTool("a", "A").with_model("nope:x"),
    ):
        with pytest.raises(st.StatetoolsError) as caught:
            make()
        assert str(caught.value) == UNKNOWN


def test_yaml_names_the_model_of_an_agentic_definition_and_dump_keeps_it(
    tmp_path: Path,
) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("- answer: Nested answer.\n")
    text = (
        "kind: playbook\nname: research\ndescription: Research a topic\n"
        "tools: [tests.providers.provider_wire:SEARCH]\n"
        f"agent:\n  model: scripted:{script}\n"
    )

    playbook = st.load_playbook(text)
    result = st.ToolLoop(ScriptedModel([("research", {"task": "x"}), "done"])).run(
        "go", tools=[playbook]
    )

    assert playbook.agent.model == f"scripted:{script}"
    assert result.messages[2].content == "Nested answer."
    assert st.dump_playbook(playbook) == text.replace(
        "tools: [tests.providers.provider_wire:SEARCH]\n",
        "tools:\n  - tests.providers.provider_wire:search\n",
    )


def test_a_bad_model_string_in_yaml_is_a_spec_error_with_its_line() -> None:
    text = "kind: playbook\nname: r\ndescription: R\nagent:\n  model: nope:x\n"

    with pytest.raises(st.SpecError) as caught:
        st.load_playbook(text)

    assert "$.agent.model (line 5): unknown model provider 'nope' in 'nope:x'" in str(caught.value)


def test_the_cli_says_how_a_cli_user_gives_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "d.yaml"
    design.write_text(
        "kind: playbook\nname: p\ndescription: d\ntools: [tests.providers.provider_wire:SEARCH]\n"
        "prompt: hi\n"
    )

    status = main(["run", str(design), "--model", "openai:gpt-4o-mini"], io.StringIO())

    assert (status, capsys.readouterr().err) == (
        2,
        "statetools run: error: OpenAIResponsesModel: no OpenAI API key for model "
        "'gpt-4o-mini' "
        "Hint: set the OPENAI_API_KEY environment variable or pass --api-key KEY\n",
    )


def test_the_cli_passes_api_key_to_the_model(
    wire: WireServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{wire.url}/v1")
    wire.stream(chat_stream(chat_completion("Hello."), ["Hel", "lo."]))
    design = tmp_path / "d.yaml"
    design.write_text(
        "kind: playbook\nname: p\ndescription: d\ntools: [tests.providers.provider_wire:SEARCH]\n"
        "prompt: hi\n"
    )

    out = io.StringIO()
    status = main(
        ["run", str(design), "--model", "openai-chat:gpt-4o-mini", "--api-key", "sk-cli"], out
    )

    assert status == 0
    assert wire.requests[0].headers["authorization"] == "Bearer sk-cli"
    assert wire.bodies[0]["stream"] is True
    assert out.getvalue() == (
        "user: hi\n"
        "(< a call's result, x an error, + tools added, - tools hidden, > a state entered)\n"
        "turn 1\n"
        "  visible (1 tool, 45 tokens): search\n"
        "  model: Hello.\n"
        "finished (answer) after 1 model call\n"
    )


def test_the_cli_runs_a_model_in_the_disclosure_mode_given(
    wire: WireServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{wire.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    wire.stream(responses_stream(response(output_message("Hello.")), ["Hello."]))
    design = tmp_path / "d.yaml"
    design.write_text(
        "kind: playbook\nname: p\ndescription: d\ntools: [tests.providers.provider_wire:SEARCH]\n"
        "prompt: hi\n"
    )

    status = main(
        ["run", str(design), "--model", "openai:gpt-5-mini", "--disclosure", "allowed_tools"],
        io.StringIO(),
    )

    assert status == 0
    assert wire.bodies[0]["tool_choice"] == {
        "type": "allowed_tools",
        "mode": "auto",
        "tools": [{"type": "function", "name": "search"}],
    }


def test_the_cli_refuses_a_mode_the_provider_does_not_have(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "d.yaml"
    design.write_text(
        "kind: playbook\nname: p\ndescription: d\ntools: [tests.providers.provider_wire:SEARCH]\n"
        "prompt: hi\n"
    )

    status = main(
        [
            "run",
            str(design),
            "--model",
            "anthropic:claude-test",
            "--api-key",
            "k",
            "--disclosure",
            "allowed_tools",
        ],
        io.StringIO(),
    )

    assert (status, capsys.readouterr().err) == (
        2,
        "statetools run: error: AnthropicModel(disclosure=...): unknown disclosure mode "
        "'allowed_tools' Hint: use 'tools' or 'deferred' or 'tool_search'\n",
    )
