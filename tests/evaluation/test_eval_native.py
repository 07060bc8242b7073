"""``statetools eval --native``: each design also runs in the provider's own disclosure
mode (OpenAI's hosted ``tool_search``), end to end over the real openai SDK's Responses
API against a local server playing the evaluation policy; and the models that cannot run
such a mode are refused before anything is asked."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import statetools as st
from statetools.cli import main
from statetools.evaluation import EvalReport, evaluate
from tests.evaluation.responses_policy import ResponsesPolicyServer
from tests.evaluation.shop import FACADES, PLANS, write_shop
from tests.evaluation.test_eval_policy import REQUESTS, SUCCESSES, prompt_tokens
from tests.providers.provider_wire import WireServer, anthropic_message, text, tool_use

# (entries of the request's tools, input items) of every request the policy needs in the
# native conditions. facade+tool_search: the orders namespace is declared once
# find_customer opened it (with the tool_search tool); each order tool is loaded by a
# hosted search in the response that calls it (4 more input items: the search's two and
# the call's two). search+tool_search: the search facade is one namespace of all five
# tools from the start, so even find_customer is searched for first.
NATIVE = {
    "facade+tool_search": {
        "cancel": [(1, 1), (3, 3), (3, 7), (3, 11)],
        "lookup": [(1, 1), (3, 3), (3, 7)],
        "refund": [(1, 1)],
        "products": [(1, 1)],
    },
    "search+tool_search": {
        "cancel": [(2, 1), (2, 5), (2, 9), (2, 13)],
        "lookup": [(2, 1), (2, 5), (2, 9)],
        "refund": [(2, 1)],
        "products": [(2, 1), (2, 5)],
    },
}
NATIVE_SUCCESSES = {
    "facade+tool_search": {"cancel", "lookup"},
    "search+tool_search": {"cancel", "lookup", "products"},
}
ALL_REQUESTS = {**REQUESTS, **NATIVE}
ALL_SUCCESSES = {**SUCCESSES, **NATIVE_SUCCESSES}
ORDERS = "orders[get_order, cancel_order]"
CATALOGUE = "find_tools[find_customer, get_order, cancel_order, list_products, update_address]"


@pytest.fixture
def shop(tmp_path: Path) -> dict[str, Path]:
    return write_shop(tmp_path)


@pytest.fixture
def policy() -> Iterator[ResponsesPolicyServer]:
    server = ResponsesPolicyServer(PLANS, FACADES).start()
    yield server
    server.stop()


def _report(shop: dict[str, Path], policy: ResponsesPolicyServer, native: Any = True) -> EvalReport:
    return evaluate(
        shop["tasks"],
        "openai:policy",
        {"facade": shop["facade"], "search": shop["search"]},
        model_options={"base_url": policy.url, "api_key": "test", "temperature": 0},
        native=native,
        concurrency=1,
    )


def test_the_native_conditions_get_exactly_what_the_policy_implies(
    shop: dict[str, Path], policy: ResponsesPolicyServer
) -> None:
    report = _report(shop, policy)

    assert report.conditions == (
        "flat",
        "facade",
        "search",
        "facade+tool_search",
        "search+tool_search",
    )
    for record in report.records:
        requests = ALL_REQUESTS[record.condition][record.task]
        assert record.success is (record.task in ALL_SUCCESSES[record.condition]), record
        assert record.requests == len(requests)
        assert record.prompt_tokens == prompt_tokens(requests)
        assert record.completion_tokens == 7 * len(requests)
        assert record.cached_tokens == 50 * (len(requests) - 1)
    assert [s.successes for s in report.summaries] == [3, 2, 3, 2, 3]
    assert [s.requests for s in report.summaries] == [10, 11, 16, 9, 10]
    assert [s.prompt_tokens for s in report.summaries] == [1650, 1545, 2450, 1265, 1450]
    # hosted searches count as searches; each loaded a tool the task expects
    assert [(s.searches, s.search_misses) for s in report.summaries] == [
        (0, 0),
        (0, 0),
        (6, 1),
        (3, 0),
        (6, 0),
    ]
    cancel = next(r for r in report.records if r.key == ("facade+tool_search", "cancel", 0))
    assert cancel.calls == (
        ("find_customer", {"email": "ada@example.com"}),
        ("tool_search", {"names": ["get_order"], "searched": {"query": "get order"}}),
        ("get_order", {"order_id": "7"}),
        ("tool_search", {"names": ["cancel_order"], "searched": {"query": "cancel order"}}),
        ("cancel_order", {"order_id": "7", "reason": "ordered by mistake"}),
    )


def test_the_native_conditions_send_namespaces_and_the_search_tool(
    shop: dict[str, Path], policy: ResponsesPolicyServer
) -> None:
    _report(shop, policy)

    # requests 1-10 flat, 11-21 facade, 22-37 search; then the native conditions
    names = policy.tool_names()
    assert names[37:41] == [
        ["find_customer"],
        ["find_customer", "tool_search", ORDERS],
        ["find_customer", "tool_search", ORDERS],
        ["find_customer", "tool_search", ORDERS],
    ]
    assert names[46:50] == [["tool_search", CATALOGUE]] * 4
    # the design in statetools' own mode sends plain function tools, never a namespace
    assert names[10:14] == [
        ["find_customer"],
        ["find_customer", "orders"],
        ["find_customer", "get_order", "cancel_order"],
        ["find_customer", "get_order", "cancel_order"],
    ]
    assert {body["model"] for body in policy.requests} == {"policy"}
    assert {body["temperature"] for body in policy.requests} == {0}


def test_a_native_model_made_by_hand_gives_the_same_runs(
    shop: dict[str, Path], policy: ResponsesPolicyServer
) -> None:
    made = st.models.OpenAIResponsesModel(
        "policy", base_url=policy.url, api_key="test", disclosure="tool_search", temperature=0
    )
    by_hand = _report(shop, policy, native=made)
    policy.requests.clear()
    by_string = _report(shop, policy, native="tool_search")

    assert by_hand.conditions == by_string.conditions
    assert [(r.key, r.success, r.requests, r.prompt_tokens, r.calls) for r in by_hand.records] == [
        (r.key, r.success, r.requests, r.prompt_tokens, r.calls) for r in by_string.records
    ]


def test_the_command_adds_the_native_columns(
    shop: dict[str, Path], policy: ResponsesPolicyServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = shop["tasks"].with_name("results.json")
    status = main(
        [
            "eval",
            str(shop["tasks"]),
            "--model",
            "openai:policy",
            "--base-url",
            policy.url,
            "--api-key",
            "test",
            "--design",
            f"facade={shop['facade']}",
            "--native",
            "--concurrency",
            "1",
            "--out",
            str(out),
        ]
    )

    assert status == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["facade", "facade+tool_search"]
    assert lines[1].split() == ["success", "2/4", "(50%)", "2/4", "(50%)"]
    assert lines[3].split() == ["requests", "/", "run", "2.8", "2.2"]
    data = json.loads(out.read_text())
    assert [(s["name"], s["requests"], s["prompt_tokens"]) for s in data["summaries"]] == [
        ("facade", 11, 1545),
        ("facade+tool_search", 9, 1265),
    ]


def test_models_that_cannot_run_a_native_mode_are_refused(shop: dict[str, Path]) -> None:
    tasks = str(shop["tasks"])
    local = "http://127.0.0.1:8080/v1"
    with pytest.raises(st.StatetoolsError) as caught:
        evaluate(
            tasks,
            "openai-chat:qwen",
            {"facade": shop["facade"]},
            native=True,
            model_options={"base_url": local, "api_key": "none"},
        )
    assert str(caught.value) == (
        "evaluate(native=...): 'openai-chat:qwen' at http://127.0.0.1:8080/v1 is an "
        "OpenAI-compatible server: it cannot run a provider's own disclosure modes "
        "(tool_search, deferred, allowed_tools) Hint: use openai:MODEL (Responses API) or "
        "anthropic:MODEL, or leave --native off"
    )

    def refused(model: Any, native: Any = True, designs: Any = None) -> str:
        with pytest.raises(st.StatetoolsError) as caught:
            evaluate(
                tasks,
                model,
                {"facade": shop["facade"]} if designs is None else designs,
                native=native,
                model_options={"api_key": "test"},
            )
        return caught.value.message

    assert refused("openai-chat:gpt-5-mini", "tool_search") == (
        "'openai-chat:gpt-5-mini' cannot run the disclosure mode 'tool_search'"
    )
    assert refused("anthropic:claude-sonnet-4-6", "allowed_tools") == (
        "'anthropic:claude-sonnet-4-6' cannot run the disclosure mode 'allowed_tools'"
    )
    assert refused("openai:gpt-5.4", designs={}) == (
        "the native conditions run the designs in the provider's own mode, and there is no design"
    )
    scripted = st.models.ScriptedModel(["Done."])
    assert refused(scripted) == (
        "native=True needs a model string to make the native model from, not a ScriptedModel"
    )
    plain = st.models.OpenAIResponsesModel("gpt-5.4", api_key="test")
    assert refused("openai:gpt-5.4", native=plain) == (
        "the native model OpenAIResponsesModel runs disclosure='tools', not a provider-native mode"
    )


def test_the_command_refuses_a_local_server_with_native(
    shop: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", str(shop["tasks"]), "--model", "openai-chat:qwen"]
    argv += ["--base-url", "http://127.0.0.1:8080/v1", "--design", f"facade={shop['facade']}"]
    status = main([*argv, "--native"], io.StringIO())

    assert status == 2
    assert capsys.readouterr().err == (
        "statetools eval: error: evaluate(native=...): 'openai-chat:qwen' at "
        "http://127.0.0.1:8080/v1 is an OpenAI-compatible server: it cannot run a "
        "provider's own disclosure modes (tool_search, deferred, allowed_tools) Hint: use "
        "openai:MODEL (Responses API) or anthropic:MODEL, or leave --native off\n"
    )


PRODUCTS_ONLY = """\
tools_from: shop_tools.json
tasks:
  - id: products
    prompt: Which products do you sell?
    expect: [list_products]
"""


def _server_search(query: str, *names: str) -> list[dict[str, Any]]:
    """Anthropic's server-side search as the API returns it: its call and its result."""
    return [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "tool_search_tool_bm25",
            "input": {"query": query},
        },
        {
            "type": "tool_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": [{"type": "tool_reference", "tool_name": n} for n in names],
            },
        },
    ]


def test_anthropic_server_side_searches_count_as_searches(shop: dict[str, Path]) -> None:
    tasks = shop["tasks"].with_name("products.yaml")
    tasks.write_text(PRODUCTS_ONLY)
    wire = WireServer()
    wire.start()
    try:
        # search: find_tools, then list_products, then the answer
        wire.reply(anthropic_message(tool_use("t1", "find_tools", {"query": "products"})))
        wire.reply(anthropic_message(tool_use("t2", "list_products", {}), input_tokens=40))
        wire.reply(anthropic_message(text("Tea."), input_tokens=60))
        # search+tool_search: Claude searches and calls in one answer, then answers
        found = _server_search("products on sale", "list_products")
        wire.reply(anthropic_message(*found, tool_use("t3", "list_products", {}), input_tokens=30))
        wire.reply(anthropic_message(text("Tea."), input_tokens=50))
        report = evaluate(
            tasks,
            "anthropic:claude-test",
            {"search": shop["search"]},
            flat=False,
            native=True,
            concurrency=1,
            model_options={"base_url": wire.url, "api_key": "sk-ant", "max_tokens": 100},
        )
    finally:
        wire.stop()

    search, native = report.records
    assert (native.condition, native.success, native.requests) == ("search+tool_search", True, 2)
    assert (native.prompt_tokens, native.searches, native.search_misses) == (80, 1, 0)
    assert native.calls == (("list_products", {}),)
    assert (search.success, search.requests, search.prompt_tokens) == (True, 3, 110)
    assert (search.searches, search.search_misses) == (1, 0)
    # the native run declared the search tool and the catalogue as deferred tools
    declared = [tool.get("name") for tool in wire.bodies[3]["tools"]]
    assert declared[0] == "tool_search_tool_bm25"
    assert {tool.get("defer_loading") for tool in wire.bodies[3]["tools"][1:]} == {True}
