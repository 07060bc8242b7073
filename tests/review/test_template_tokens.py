"""Counting tool tokens as a local model reads them: the chat template and tokenizer of a
llama.cpp server (here a stand-in on 127.0.0.1 with the real server's shapes)."""

from __future__ import annotations

import io
import json
import re
import socket
from pathlib import Path

import pytest

from statetools.cli import main
from statetools.engine.graph import disclosure_graph
from statetools.review.explore import flat_tools
from statetools.review.template_tokens import PROBE, TemplateTokens, TokenServerError
from statetools.review.tokens import wire_entries
from statetools.spec.design import load_design
from statetools.tools.tool import BaseTool, Tool
from tests.cli.test_terminal import ANSI, Terminal
from tests.review.llama_server import LlamaServer, tokenize

TOOLS = [
    {
        "type": "function",
        "function": {"name": "ping", "description": "Ping the host.", "parameters": {}},
    },
    {
        "type": "function",
        "function": {
            "name": "echo",
            "description": "Say a text back.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "What to say"}},
                "required": ["text"],
            },
        },
    },
]
DESIGN = """\
tools_from: tools.json
system_prompt: Be brief.
kind: playbook
name: net
description: Network checks
tools:
  - ping
  - tool: echo
    unlocked_by: ping
"""


@pytest.fixture
def design(tmp_path: Path) -> str:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    path = tmp_path / "net.yaml"
    path.write_text(DESIGN)
    return str(path)


def ping() -> Tool:
    return Tool.create("ping", "Ping the host.", lambda: "pong")


def test_the_tools_cost_what_the_template_adds_in_the_models_tokens() -> None:
    with LlamaServer() as server:
        counter = TemplateTokens(server.url + "/v1/")
        tokens = counter.tools_tokens([ping()])

    entry = wire_entries([ping()])[0]
    # the template's tools block: 11 tokens before the tools ('# Tools Call one of these
    # functions: <tools>'), 4 after ('</tools>'), and the tool as JSON with spaces
    assert len(tokenize(json.dumps(entry))) == 68
    assert tokens == 11 + 68 + 4
    messages = [{"role": "user", "content": PROBE}]
    assert server.requests == [
        ("/apply-template", {"messages": messages}),
        ("/tokenize", {"content": server.requests[1][1]["content"], **FLAGS}),
        ("/apply-template", {"messages": messages, "tools": [entry]}),
        ("/tokenize", {"content": server.requests[3][1]["content"], **FLAGS}),
    ]
    assert server.requests[1][1]["content"] == (
        "<|im_start|>system\nYou are a tiny model.<|im_end|>\n"
        "<|im_start|>user\nHello.<|im_end|>\n<|im_start|>assistant\n"
    )


FLAGS = {"add_special": False, "parse_special": True}


def test_each_set_of_tools_is_asked_once() -> None:
    echo = Tool.create("echo", "Say a text back.", lambda text: text)
    with LlamaServer() as server:
        counter = TemplateTokens(server.url)
        first = [counter.tools_tokens(tools) for tools in ([ping()], [ping(), echo], [ping()])]
        asked = len(server.requests)
        assert counter.tools_tokens([]) == 0

    assert first[0] == first[2] == 83
    assert first[1] > first[0]
    assert asked == 6  # the prompt without tools, then one render and count per set
    assert len(server.requests) == 6


def test_tokens_counts_the_first_set_and_flat_in_the_models_template(design: str) -> None:
    out = io.StringIO()
    with LlamaServer() as server:
        status = main(["tokens", design, "--vs-flat", "--base-url", server.url + "/v1"], out)

    assert status == 0
    assert out.getvalue() == (
        "first visible set: 1 tool, 23 tokens (openai, o200k_base); 56 in the model's "
        "template (tiny-chat-q4_k_m.gguf)\n"
        "flat (every tool at once, no facades): 2 tools, 67 tokens; 145 in the model's "
        "template\n"
        "first request saves 65.7% of the flat tool tokens (61.4% in the model's template)\n"
    )
    # 15 tokens of the tools block, and each tool's JSON: 41 for ping, 89 for echo
    entries = rendered_tools(server)
    assert [len(tokenize(json.dumps(entry))) for entry in entries[-1]] == [41, 89]
    assert entries == [[], wire_entries(flat(design))[:1], wire_entries(flat(design))]
    # the design's system prompt opens every rendered request
    rendered = [body for path, body in server.requests if path == "/apply-template"]
    assert [body["messages"][0] for body in rendered] == [
        {"role": "system", "content": "Be brief."}
    ] * 3


def rendered_tools(server: LlamaServer) -> list[list[dict[str, object]]]:
    return [body.get("tools", []) for path, body in server.requests if path == "/apply-template"]


def flat(design: str) -> list[BaseTool]:
    return flat_tools(disclosure_graph(*load_design(Path(design)).tools))


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_an_unreachable_server_is_a_clear_error(
    design: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(TokenServerError) as caught:
        TemplateTokens(url).tools_tokens([ping()])
    assert caught.value.path == f"{url}/apply-template"
    assert caught.value.message.startswith("cannot reach the server that counts tokens (")
    assert caught.value.hint == (
        "start it with `llama-server -m MODEL.gguf --jinja --port 8080` and pass its URL"
    )

    assert main(["tokens", design, "--base-url", url], io.StringIO()) == 2
    assert capsys.readouterr().err.startswith(
        f"statetools tokens: error: {url}/apply-template: cannot reach the server"
    )


def test_a_server_without_the_template_endpoint_is_named(design: str) -> None:
    with LlamaServer(endpoints=("tokenize",)) as server, pytest.raises(TokenServerError) as caught:
        TemplateTokens(server.url).tools_tokens([ping()])

    assert str(caught.value) == (
        f"{server.url}/apply-template: the server has no apply-template endpoint "
        "(HTTP 404: File Not Found) Hint: counting with a model's template needs "
        "llama.cpp's llama-server (started with --jinja); other servers count with o200k only"
    )


def test_a_refused_request_says_what_the_server_said() -> None:
    with LlamaServer() as server, pytest.raises(TokenServerError) as caught:
        # what the real server answers to a body it cannot read
        TemplateTokens(server.url)._post("apply-template", {"messages": "Hello."})

    assert caught.value.message == (
        "the server refused the request (HTTP 400: Expected 'messages' to be an array)"
    )


def test_on_a_terminal_the_models_count_is_a_column(
    design: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    out = Terminal()
    with LlamaServer() as server:
        assert main(["tokens", design, "--vs-flat", "--base-url", server.url], out) == 0
    lines = ANSI.sub("", out.getvalue()).splitlines()

    def cells(line: str) -> list[str]:
        return [cell.strip() for cell in re.split("[┃│]", line)[1:-1]]

    assert cells(lines[1]) == [
        "tool set",
        "tools",
        "tokens (openai, o200k_base)",
        "tokens (tiny-chat-q4_k_m.gguf)",
    ]
    assert cells(lines[3]) == ["first visible set", "1", "23", "56"]
    assert cells(lines[4]) == ["flat (every tool at once, no facades)", "2", "67", "145"]
    assert (
        lines[-1]
        == "first request saves 65.7% of the flat tool tokens (61.4% in the model's template)"
    )
