"""benchmarks/local_prefix.py against a local HTTP server written here that answers as
llama-server does (``timings``): what each condition sends, and the table."""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import local_prefix

from tests.providers.provider_wire import WireServer, chat_completion


@pytest.fixture
def server() -> Iterator[WireServer]:
    wire = WireServer()
    wire.start()
    yield wire
    wire.stop()


def served(prompt_n: int, cache_n: int) -> dict[str, object]:
    reply = chat_completion("x")
    reply["timings"] = {"prompt_n": prompt_n, "cache_n": cache_n, "prompt_ms": 250.0}
    return reply


@pytest.mark.parametrize("condition", ["flat", "tools", "stable_prefix"])
def test_each_condition_sends_the_same_conversation_one_token_at_a_time(
    server: WireServer, condition: str
) -> None:
    requests = 5 if condition == "flat" else 7  # flat has no facades to open
    for number in range(requests):
        server.reply(served(100 + number, 10 * number))

    with httpx.Client() as client:
        reports = local_prefix.run(condition, server.url, client, "r1")

    assert reports == [local_prefix.Served(100 + n, 10 * n, 250.0) for n in range(requests)]
    bodies = server.bodies
    assert bodies[0]["messages"][0] == {
        "role": "system",
        "content": f"You are an office assistant (run r1, {condition}).",
    }
    assert {body["max_tokens"] for body in bodies} == {1}
    names = [[t["function"]["name"] for t in body["tools"]] for body in bodies]
    if condition == "flat":
        assert names == [["ls", "cat", "grep", "send_mail", "read_inbox", "note"]] * 5
    elif condition == "stable_prefix":
        assert names == [["files", "mail", "note", "call_tool"]] * 7
        for before, after in itertools.pairwise(bodies):
            assert after["messages"][: len(before["messages"])] == before["messages"]
    else:
        assert names[:2] == [["files", "mail", "note"], ["mail", "note", "ls", "cat", "grep"]]
    # the system prompt, the user's, the calls and their answers
    assert len(bodies[-1]["messages"]) == 2 + 2 * (requests - 1)


def test_the_table_sums_what_the_server_reported() -> None:
    results = {
        "flat": [local_prefix.Served(700, 0, 9000.0), local_prefix.Served(40, 700, 500.0)],
        "tools": [local_prefix.Served(300, 0, 4000.0), local_prefix.Served(500, 20, 6000.0)],
    }

    assert local_prefix.table(results) == [
        "| condition | requests | prompt tokens processed | of which the first request | "
        "taken from the cache | prompt time (s) | after the first request (s) |",
        "|---|---:|---:|---:|---:|---:|---:|",
        "| flat | 2 | 740 | 700 | 700 | 9.5 | 0.5 |",
        "| tools | 2 | 800 | 300 | 20 | 10.0 | 6.0 |",
    ]
    assert local_prefix.per_request(results) == ["- flat: 700, 40", "- tools: 300, 500"]


def test_the_figures_of_the_providers_page_are_those_of_the_committed_results() -> None:
    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "providers.md").read_text(encoding="utf-8")
    paragraph = page.split("Measured on `llama-server`", 1)[1].split("\n\n", 1)[0]
    figures = re.findall(r"\d+,\d{3}|\d{3,}", paragraph)
    saved = (root / "benchmarks" / "local_prefix.md").read_text(encoding="utf-8")
    assert figures == ["1,032", "1,502", "408", "638", "236", "197"]
    assert [figure for figure in figures if figure not in saved] == []
