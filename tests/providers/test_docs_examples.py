"""The examples of docs/providers.md run as written, against the local server."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest

import statetools as st
from tests.providers.provider_wire import (
    FAST_RETRY,
    WireServer,
    anthropic_error,
    anthropic_message,
    chat_completion,
    function_call,
    openai_call,
    output_message,
    response,
    text,
    tool_use,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "providers.md"


def blocks() -> list[str]:
    """The python blocks of the doc."""
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def example(name: str) -> str:
    """The python block of the doc that starts with ``# example: NAME``."""
    (found,) = [b for b in blocks() if b.startswith(f"# example: {name}\n")]
    return found


def test_every_python_block_is_an_example_a_test_runs() -> None:
    names = [block.partition("\n")[0] for block in blocks()]

    assert names == [
        f"# example: {name}"
        for name in (
            "openai-responses",
            "openai-programmatic",
            "openai",
            "anthropic",
            "resolve",
            "errors",
            "modes",
            "anthropic-tool-search",
        )
    ]


def run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
    return out.getvalue()


def test_the_openai_example_runs(wire: WireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-doc")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{wire.url}/v1")
    wire.reply(chat_completion(tool_calls=[openai_call("call_1", "add", '{"a": 2, "b": 3}')]))
    wire.reply(chat_completion("2 + 3 = 5", prompt_tokens=30, cached_tokens=8))

    printed = run(example("openai"))

    assert printed == (
        "2 + 3 = 5\nUsage(input_tokens=40, output_tokens=10, cached_input_tokens=8)\n"
    )
    assert wire.bodies[0]["temperature"] == 0
    assert wire.bodies[1]["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "5",
    }


def test_the_anthropic_example_runs(wire: WireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-doc")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", wire.url)
    wire.reply(anthropic_message(tool_use("toolu_1", "add", {"a": 2, "b": 3})))
    wire.reply(anthropic_message(text("2 + 3 = 5"), cache_read=20))

    printed = run(example("anthropic"))

    assert printed == (
        "2 + 3 = 5\nUsage(input_tokens=40, output_tokens=10, cached_input_tokens=20)\n"
    )
    assert wire.bodies[1]["messages"][-1] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5", "is_error": False}
        ],
    }
    assert wire.bodies[0]["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert wire.bodies[0]["max_tokens"] == 1024


def test_the_anthropic_tool_search_example_runs(
    wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-doc")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", wire.url)
    search = {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "tool_search_tool_bm25",
        "input": {"query": "orders of a customer"},
    }
    found = {
        "type": "tool_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": "list_orders"}],
        },
    }
    call = tool_use("toolu_1", "list_orders", {"customer": "c1"})
    wire.reply(anthropic_message(search, found, call))
    wire.reply(anthropic_message(text("Order o7.")))

    printed = run(example("anthropic-tool-search"))

    assert printed == "Order o7.\n['list_orders']\n"
    assert [
        (tool.get("name"), tool.get("defer_loading"), "cache_control" in tool)
        for tool in wire.bodies[0]["tools"]
    ] == [
        ("tool_search_tool_bm25", None, False),
        ("lookup_customer", None, True),
        ("list_orders", True, False),
        ("refund_order", True, False),
    ]
    assert wire.bodies[1]["messages"][1] == {"role": "assistant", "content": [search, found, call]}


def test_the_openai_responses_example_runs(
    wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-doc")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{wire.url}/v1")
    wire.reply(response(function_call("call_1", "add", '{"a": 2, "b": 3}')))
    wire.reply(response(output_message("2 + 3 = 5")))

    printed = run(example("openai-responses"))

    assert printed == "2 + 3 = 5\n"
    assert [request.path for request in wire.requests] == ["/v1/responses"] * 2
    assert wire.bodies[1]["input"][-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "5",
    }
    assert wire.bodies[0]["temperature"] == 0


def test_the_openai_programmatic_example_runs(
    wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-doc")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{wire.url}/v1")
    program = {
        "type": "program",
        "id": "prog_1",
        "call_id": "call_prog",
        "code": "await lookup({order: 'o7'}); text(await refund({order: 'o7'}));",
        "fingerprint": "fp_1",
    }
    caller = {"type": "program", "caller_id": "call_prog"}
    lookup = {**function_call("call_1", "lookup", '{"order": "o7"}'), "caller": caller}
    refund = {**function_call("call_2", "refund", '{"order": "o7"}'), "caller": caller}
    finished = {
        "type": "program_output",
        "id": "progout_1",
        "call_id": "call_prog",
        "result": "refunded o7",
        "status": "completed",
    }
    wire.reply(response(program, lookup))
    wire.reply(response(refund))
    wire.reply(response(finished, output_message("Refunded o7.")))

    printed = run(example("openai-programmatic"))

    assert printed == "Refunded o7.\n"
    assert wire.bodies[0]["tools"][-1] == {"type": "programmatic_tool_calling"}
    assert [tool.get("allowed_callers") for tool in wire.bodies[0]["tools"][:-1]] == [
        ["direct", "programmatic"],
        ["direct", "programmatic"],
    ]
    assert wire.bodies[2]["input"][1:] == [
        program,
        lookup,
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": "order o7: late\n[now available: refund]",
            "caller": caller,
        },
        refund,
        {
            "type": "function_call_output",
            "call_id": "call_2",
            "output": "refunded o7",
            "caller": caller,
        },
    ]
    assert wire.bodies[0]["store"] is False


def test_the_errors_example_catches_the_provider_error(
    wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-doc")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", wire.url)
    wire.reply(anthropic_message(tool_use("toolu_1", "add", {"a": 2, "b": 3})))
    for _ in range(3):  # the first attempt and the SDK's two retries
        wire.reply(
            anthropic_error("Overloaded", "overloaded_error"), status=529, headers=FAST_RETRY
        )

    printed = run(example("errors"))

    assert printed == (
        "529\n"
        "anthropic:claude-sonnet-4-6: Anthropic returned HTTP 529: Overloaded Hint: the "
        "provider failed even after retries; run again later or raise max_retries\n"
        "['user', 'assistant', 'tool']\n"
    )
    assert len(wire.requests) == 4


def test_the_modes_example_makes_the_adapters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-doc")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-doc")
    namespace: dict[str, Any] = {"__name__": "__doc_example__"}
    out = io.StringIO()

    with contextlib.redirect_stdout(out):
        exec(compile(example("modes"), str(DOC), "exec"), namespace)

    assert out.getvalue() == "True\n"
    assert [namespace[name].disclosure for name in ("responses", "chat", "claude", "local")] == [
        "allowed_tools",
        "allowed_tools",
        "deferred",
        "stable_prefix",
    ]


def test_the_resolve_example_makes_each_adapter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-doc")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-doc")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "script.yaml").write_text("- answer: done\n", encoding="utf-8")
    made: list[str] = []
    resolve = st.models.resolve

    def recording(spec: Any, **options: Any) -> Any:
        model = resolve(spec, **options)
        made.append(f"{type(model).__name__} {sorted(options)}")
        return model

    monkeypatch.setattr(st.models, "resolve", recording)
    namespace: dict[str, Any] = {"__name__": "__doc_example__", "st": st}

    exec(compile(example("resolve"), str(DOC), "exec"), namespace)

    assert made == [
        "OpenAIResponsesModel []",
        "OpenAIChatModel []",
        "AnthropicModel []",
        "ScriptedModel []",
        "OpenAIResponsesModel ['temperature']",
    ]
    assert namespace["model"].request_options == {"temperature": 0}
