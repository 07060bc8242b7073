"""``statetools eval`` end to end: the real openai SDK talks to a local server playing a
deterministic policy, so flat and each design give known, different results."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import statetools as st
from statetools.cli import main
from statetools.evaluation import EvalReport, evaluate
from statetools.review.tokens import array_tokens, wire_json
from tests.evaluation.policy_server import GIVE_UP, PolicyServer
from tests.evaluation.shop import FACADES, PLANS, TOOLS, write_shop

# (tools in the request, messages in the request) of every request the policy needs,
# per condition and task. The facade opens after find_customer and holds only the
# order tools; the search design shows find_tools alone until a search opens matches.
REQUESTS = {
    "flat": {
        "cancel": [(5, 1), (5, 3), (5, 5), (5, 7)],
        "lookup": [(5, 1), (5, 3), (5, 5)],
        "refund": [(5, 1)],
        "products": [(5, 1), (5, 3)],
    },
    "facade": {
        "cancel": [(1, 1), (2, 3), (3, 5), (3, 7), (3, 9)],
        "lookup": [(1, 1), (2, 3), (3, 5), (3, 7)],
        "refund": [(1, 1)],
        "products": [(1, 1)],
    },
    "search": {
        "cancel": [(1, 1), (3, 3), (3, 5), (5, 7), (5, 9), (5, 11)],
        "lookup": [(1, 1), (3, 3), (3, 5), (5, 7), (5, 9)],
        "refund": [(1, 1), (3, 3)],
        "products": [(1, 1), (2, 3), (2, 5)],
    },
}
SUCCESSES = {
    "flat": {"cancel", "lookup", "products"},  # refund_order exists nowhere
    "facade": {"cancel", "lookup"},  # the design leaves list_products out
    "search": {"cancel", "lookup", "products"},
}


def prompt_tokens(requests: list[tuple[int, int]]) -> int:
    """What the policy server reports: 100 + 10 per tool + 5 per message, per request."""
    return sum(100 + 10 * tools + 5 * messages for tools, messages in requests)


@pytest.fixture
def shop(tmp_path: Path) -> dict[str, Path]:
    return write_shop(tmp_path)


@pytest.fixture
def policy() -> Iterator[PolicyServer]:
    server = PolicyServer(PLANS, FACADES).start()
    yield server
    server.stop()


def _report(shop: dict[str, Path], policy: PolicyServer, **options: Any) -> EvalReport:
    return evaluate(
        shop["tasks"],
        "openai-chat:policy",
        {"facade": shop["facade"], "search": shop["search"]},
        model_options={"base_url": policy.url, "api_key": "test", "temperature": 0},
        **options,
    )


def test_each_condition_gets_exactly_what_the_policy_implies(
    shop: dict[str, Path], policy: PolicyServer
) -> None:
    report = _report(shop, policy, concurrency=1)

    assert report.conditions == ("flat", "facade", "search")
    assert report.tasks == ("cancel", "lookup", "refund", "products")
    for record in report.records:
        requests = REQUESTS[record.condition][record.task]
        assert record.success is (record.task in SUCCESSES[record.condition]), record
        assert record.requests == len(requests)
        assert record.prompt_tokens == prompt_tokens(requests)
        assert record.completion_tokens == 7 * len(requests)
        assert record.cached_tokens == 50 * (len(requests) - 1)
        assert record.usage_reported == len(requests)
    # every request went out at temperature 0, and the server saw exactly these tools
    assert {body["temperature"] for body in policy.requests} == {0}
    assert policy.tool_names()[:4] == [[tool["function"]["name"] for tool in TOOLS]] * 4
    assert [s.successes for s in report.summaries] == [3, 2, 3]
    assert [s.requests for s in report.summaries] == [10, 11, 16]
    assert [s.prompt_tokens for s in report.summaries] == [1650, 1545, 2450]


def test_tool_tokens_searches_and_failures_are_counted_per_condition(
    shop: dict[str, Path], policy: PolicyServer
) -> None:
    report = _report(shop, policy, concurrency=1)

    # tool-definition tokens: the o200k tokens of the tools arrays the server received
    sent = sum(
        array_tokens([wire_json(t) for t in body.get("tools") or ()]) for body in policy.requests
    )
    assert sum(s.tool_tokens for s in report.summaries) == sent
    search = report.summary("search")
    assert (search.searches, search.search_misses) == (6, 1)  # "refund order" finds nothing
    refund = next(r for r in report.records if r.key == ("search", "refund", 0))
    assert refund.calls == (("find_tools", {"query": "refund order"}),)
    assert refund.never_found == ("refund_order",)
    assert refund.output == GIVE_UP
    assert refund.reason == "expected call 1 of 1 (refund_order) was not made"
    products = next(r for r in report.records if r.key == ("facade", "products", 0))
    assert products.never_found == ("list_products",)
    assert [s.never_found for s in report.summaries] == [1, 2, 1]
    assert report.summary("facade").first_tool_tokens < report.summary("flat").first_tool_tokens


def test_the_command_prints_the_table_and_writes_json_and_the_plot(
    shop: dict[str, Path], policy: PolicyServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out, plot = shop["tasks"].with_name("results.json"), shop["tasks"].with_name("results.svg")
    status = main(
        [
            "eval",
            str(shop["tasks"]),
            "--model",
            "openai-chat:policy",
            "--base-url",
            policy.url,
            "--flat",
            "--design",
            f"facade={shop['facade']}",
            "--design",
            f"search={shop['search']}",
            "--concurrency",
            "3",
            "--out",
            str(out),
            "--plot",
            str(plot),
        ]
    )

    assert status == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["flat", "facade", "search"]
    assert lines[1].split() == ["success", "3/4", "(75%)", "2/4", "(50%)", "3/4", "(75%)"]
    assert lines[3].split() == ["requests", "/", "run", "2.5", "2.8", "4.0"]
    assert lines[6].split() == ["prompt", "tokens", "/", "run", "412", "386", "612"]
    assert lines[9].split() == ["searches", "(misses)", "0", "(0)", "0", "(0)", "6", "(1)"]
    data = json.loads(out.read_text())
    assert [(s["name"], s["successes"], s["runs"]) for s in data["summaries"]] == [
        ("flat", 3, 4),
        ("facade", 2, 4),
        ("search", 3, 4),
    ]
    assert len(data["runs"]) == 12
    svg = plot.read_text()
    assert svg.startswith("<svg")
    assert "facade 2/4" in svg
    assert "prompt tokens per run (provider usage)" in svg
    journal = out.with_name("results.runs.jsonl").read_text().splitlines()
    assert json.loads(journal[0]) == {"statetools_eval": 1, "model": "openai-chat:policy"}
    assert len(journal) == 13


def test_a_second_run_with_the_same_journal_asks_the_model_nothing(
    shop: dict[str, Path], policy: PolicyServer
) -> None:
    journal = shop["tasks"].with_name("runs.jsonl")
    first = _report(shop, policy, journal=journal)
    asked = len(policy.requests)
    second = _report(shop, policy, journal=journal)

    assert len(policy.requests) == asked == 37
    assert second == first


def test_a_journal_of_another_model_is_refused(shop: dict[str, Path], policy: PolicyServer) -> None:
    journal = shop["tasks"].with_name("runs.jsonl")
    journal.write_text('{"statetools_eval": 1, "model": "openai-chat:other"}\n')
    with pytest.raises(st.StatetoolsError) as caught:
        _report(shop, policy, journal=journal)
    assert caught.value.message == (
        f"the journal {journal} holds runs of model 'openai-chat:other', not 'openai-chat:policy'"
    )
    assert policy.requests == []
