"""models.resolve() and what happens without the optional SDKs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import statetools as st
from statetools.models import (
    AnthropicModel,
    OpenAIChatModel,
    OpenAIResponsesModel,
    ScriptedModel,
    resolve,
)


def test_openai_and_anthropic_strings_make_adapters_with_the_options() -> None:
    openai_model = resolve("openai:gpt-4o-mini", api_key="sk-test", temperature=0)
    chat_model = resolve("openai-chat:gpt-4o-mini", api_key="sk-test", disclosure="allowed_tools")
    anthropic_model = resolve("anthropic:claude-sonnet-4-6", api_key="sk-ant", max_tokens=100)

    assert isinstance(openai_model, OpenAIResponsesModel)
    assert (openai_model.model, dict(openai_model.request_options)) == (
        "gpt-4o-mini",
        {"temperature": 0},
    )
    assert isinstance(chat_model, OpenAIChatModel)
    assert (chat_model.model, chat_model.disclosure) == ("gpt-4o-mini", "allowed_tools")
    assert isinstance(anthropic_model, AnthropicModel)
    assert (anthropic_model.model, anthropic_model.max_tokens) == ("claude-sonnet-4-6", 100)


def test_a_scripted_string_reads_the_yaml_script(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("- answer: Scripted hello.\n", encoding="utf-8")

    model = resolve(f"scripted:{script}")

    assert isinstance(model, ScriptedModel)
    assert st.ToolLoop(model).run("Hi").output == "Scripted hello."


def test_a_model_passes_through_unchanged() -> None:
    model = ScriptedModel(["x"])

    assert resolve(model) is model


@pytest.mark.parametrize(
    ("spec", "text"),
    [
        (
            "gpt-4o-mini",
            "model: invalid model 'gpt-4o-mini': expected PROVIDER:NAME Hint: write "
            "'openai:MODEL', 'openai-chat:MODEL', 'anthropic:MODEL' or "
            "'scripted:PATH.yaml'",
        ),
        (
            "openai: ",
            "model: invalid model 'openai: ': expected PROVIDER:NAME Hint: write "
            "'openai:MODEL', 'openai-chat:MODEL', 'anthropic:MODEL' or "
            "'scripted:PATH.yaml'",
        ),
        (
            "mistral:large",
            "model: unknown model provider 'mistral' in 'mistral:large' Hint: write "
            "'openai:MODEL', 'openai-chat:MODEL', 'anthropic:MODEL' or "
            "'scripted:PATH.yaml'",
        ),
    ],
)
def test_bad_strings_say_what_is_expected(spec: str, text: str) -> None:
    with pytest.raises(st.StatetoolsError) as caught:
        resolve(spec)

    assert str(caught.value) == text


def test_a_missing_script_is_a_spec_error(tmp_path: Path) -> None:
    with pytest.raises(st.SpecError) as caught:
        resolve(f"scripted:{tmp_path / 'none.yaml'}")

    assert caught.value.path == str(tmp_path / "none.yaml")


def test_a_missing_key_through_resolve_names_the_variable() -> None:
    with pytest.raises(st.StatetoolsError, match="OPENAI_API_KEY"):
        resolve("openai:gpt-4o-mini")


@pytest.mark.parametrize(
    ("module", "make"),
    [
        ("openai", lambda: OpenAIChatModel("gpt-4o-mini", api_key="k")),
        ("anthropic", lambda: AnthropicModel("claude", api_key="k")),
    ],
)
def test_without_the_sdk_an_adapter_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, module: str, make: object
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    adapter = "OpenAIChatModel" if module == "openai" else "AnthropicModel"

    with pytest.raises(st.StatetoolsError) as caught:
        make()  # type: ignore[operator]

    assert str(caught.value) == (
        f"{adapter}: {adapter} needs the '{module}' package, which is not installed "
        f"Hint: pip install statetools[{module}]"
    )


def test_statetools_imports_without_the_sdks() -> None:
    code = (
        "import sys\n"
        "sys.modules['openai'] = None\n"
        "sys.modules['anthropic'] = None\n"
        "import statetools\n"
        "print(statetools.models.OpenAIChatModel.__name__, statetools.models.resolve.__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=30
    )

    assert (done.returncode, done.stdout, done.stderr) == (0, "OpenAIChatModel resolve\n", "")
