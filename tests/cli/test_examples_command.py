"""statetools examples: a model writes example requests for the tools below a design's
search facades (every tool without one), as JSON, through the real openai SDK."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from statetools.cli import main
from tests.providers.provider_wire import PROVIDER_ENVIRONMENT, WireServer, chat_completion

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "cd",
            "description": "Change the current directory.",
            "parameters": {"type": "object", "properties": {"folder": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {"name": "ls", "description": "List the files of the current folder."},
    },
    {
        "type": "function",
        "function": {"name": "post_tweet", "description": "Post a tweet."},
    },
]

SEARCH_DESIGN = """\
tools_from: tools.json
definitions:
  - kind: facade
    name: find_tools
    description: Find tools by what they do
    search: {max_results: 2}
    tools: [cd, ls]
  - kind: facade
    name: social
    description: Social tools
    tools: [post_tweet]
"""

FLAT_DESIGN = "tools_from: tools.json\n"


def prompt(name: str, focus: str, per_tool: int) -> str:
    return (
        f"Tool: {name}\nWhat it does: {focus}\n\nWrite {per_tool} different requests, each a "
        "full English sentence, that a person might say to an assistant when this tool is "
        "needed (alone or as one step of a bigger task). Everyday words, no code, no tool "
        "names. One request per line, no numbering."
    )


def design(tmp_path: Path, text: str) -> str:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS), encoding="utf-8")
    path = tmp_path / "design.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_the_tools_below_the_search_facades_get_requests_from_a_local_server(
    wire: WireServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wire.reply(chat_completion("1. Take me to my Documents folder.\n2. Use cd to go home."))
    wire.reply(chat_completion("- What is in this folder?\n- Show me my files."))
    out = tmp_path / "requests.json"
    status, text = run_cli(
        "examples",
        design(tmp_path, SEARCH_DESIGN),
        "--model",
        "openai-chat:qwen",
        "--base-url",
        f"{wire.url}/v1",
        "--per-tool",
        "2",
        "--concurrency",
        "1",
        "--out",
        str(out),
    )
    assert (status, text) == (0, f"3 requests for 2 tools written to {out}\n")
    assert json.loads(out.read_text(encoding="utf-8")) == {
        "cd": ["Take me to my Documents folder."],
        "ls": ["What is in this folder?", "Show me my files."],
    }
    assert wire.bodies == [
        {
            "model": "qwen",
            "messages": [{"role": "user", "content": prompt(name, focus, 2)}],
            "temperature": 0,
            "max_tokens": 150,
        }
        for name, focus in (
            ("cd", "cd. Change the current directory. folder"),
            ("ls", "ls. List the files of the current folder"),
        )
    ]
    assert wire.requests[0].headers["authorization"] == "Bearer none"
    assert capsys.readouterr().err == (
        "asking openai-chat:qwen for example requests of 2 tools below 1 search facade\n"
    )


def test_without_a_search_facade_every_tool_and_the_json_on_standard_output(
    wire: WireServer, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wire.reply(chat_completion("Go to my music folder."))
    wire.reply(chat_completion(""))
    wire.reply(chat_completion("Tell everyone the shop is open."))
    status, text = run_cli(
        "examples",
        design(tmp_path, FLAT_DESIGN),
        "--model",
        "openai-chat:qwen",
        "--base-url",
        f"{wire.url}/v1",
        "--no-temperature",
        "--per-tool",
        "1",
        "--concurrency",
        "1",  # the server answers in the order requests arrive
    )
    assert status == 0
    assert text == (
        "{\n"
        '  "cd": [\n    "Go to my music folder."\n  ],\n'
        '  "ls": [],\n'
        '  "post_tweet": [\n    "Tell everyone the shop is open."\n  ]\n'
        "}\n"
    )
    assert [body["messages"][0]["content"].splitlines()[0] for body in wire.bodies] == [
        "Tool: cd",
        "Tool: ls",
        "Tool: post_tweet",
    ]
    assert all("temperature" not in body for body in wire.bodies)
    assert capsys.readouterr().err == (
        "asking openai-chat:qwen for example requests of 3 tools (no search facade: all)\n"
        "warning: no usable request for tool 'ls'\n"
    )


def test_a_scripted_model_file(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("- answer: Open my photos folder.\n- answer: What files do I have?\n")
    status, text = run_cli(
        "examples", design(tmp_path, SEARCH_DESIGN), "--model", f"scripted:{script}"
    )
    assert status == 0
    assert json.loads(text) == {"cd": ["Open my photos folder."], "ls": ["What files do I have?"]}


def test_a_provider_error_is_one_line_and_status_2(
    wire: WireServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wire.reply({"error": {"message": "model not loaded", "type": "x"}}, status=400)
    status, text = run_cli(
        "examples",
        design(tmp_path, SEARCH_DESIGN),
        "--model",
        "openai-chat:qwen",
        "--base-url",
        f"{wire.url}/v1",
        "--concurrency",
        "1",
    )
    assert (status, text) == (2, "")
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.startswith("statetools examples: error: ")
    assert "model not loaded" in error


def test_bad_per_tool_and_missing_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in PROVIDER_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    path = design(tmp_path, SEARCH_DESIGN)
    with pytest.raises(SystemExit) as exited:
        run_cli("examples", path, "--model", "openai-chat:qwen", "--per-tool", "0")
    assert exited.value.code == 2
    assert "expected a whole number of at least 1, not '0'" in capsys.readouterr().err
    status, _ = run_cli("examples", path, "--model", "openai:gpt-test")
    assert status == 2
    assert "--api-key KEY" in capsys.readouterr().err.splitlines()[-1]
