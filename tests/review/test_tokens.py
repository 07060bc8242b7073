"""Token counts: exact o200k_base counts of the JSON the SDKs send, offline."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from importlib import resources

import pytest

import statetools as st
from statetools.review.tokens import (
    count_text,
    tool_text,
    tool_tokens,
    tools_tokens,
    wire_entries,
)
from tests.review.designs import tool

TIKTOKEN_O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""The hash tiktoken checks its downloaded o200k_base file against."""

SAMPLES = [
    "",
    "hello world",
    '{"type":"function","function":{"name":"search"}}',
    "Größe: 12 € — naïve café, 東京 and emoji 🙂🙂",
    "<|endoftext|> is only text here",
    "  indented\n\n\ttabs   and    spaces 1234567890",
    "CamelCaseWords and snake_case_words and kebab-case-words",
]


def search_tool() -> st.Tool:
    def search(query: str, limit: int = 5) -> list[str]:
        """Search the catalogue.

        Args:
            query: What to look for.
            limit: At most this many hits.
        """
        return []

    return st.Tool.from_function(search)


def test_counts_of_known_texts() -> None:
    assert [count_text(text) for text in SAMPLES[:3]] == [0, 2, 11]


def test_openai_text_is_the_function_tool_as_the_sdk_sends_it() -> None:
    assert tool_text(search_tool()) == (
        '{"type":"function","function":{"name":"search","description":"Search the catalogue.",'
        '"parameters":{"type":"object","properties":{"query":{"type":"string","description":'
        '"What to look for."},"limit":{"type":"integer","description":"At most this many hits.",'
        '"default":5}},"required":["query"],"additionalProperties":false}}}'
    )


def test_anthropic_text_has_name_description_and_input_schema() -> None:
    text = tool_text(search_tool(), "anthropic")
    assert text.startswith('{"name":"search","description":"Search the catalogue.","input_schema":')
    assert json.loads(text)["input_schema"] == search_tool().input_schema


def test_non_ascii_is_kept_as_is() -> None:
    cafe = tool("cafe", "Order a café au lait.")
    assert "café" in tool_text(cafe)
    assert wire_entries([cafe], "anthropic")[0]["description"] == "Order a café au lait."


def test_a_set_is_counted_as_one_array() -> None:
    tools = [tool("search"), tool("analyze"), tool("report")]
    per_tool = [tool_tokens(t) for t in tools]
    assert per_tool == [36, 37, 36]
    assert tools_tokens(tools) == 108
    assert tools_tokens([]) == 0
    array = "[" + ",".join(tool_text(t) for t in tools) + "]"
    assert tools_tokens(tools) == count_text(array)


def test_unknown_provider_is_an_error() -> None:
    with pytest.raises(st.StatetoolsError, match="unknown provider 'gemini'"):
        tool_tokens(tool("x"), "gemini")  # type: ignore[arg-type]


def test_very_long_sets_are_counted_in_pieces() -> None:
    tools = [tool(f"tool_{i}", "Long description. " * 400) for i in range(40)]
    whole = sum(tool_tokens(t) for t in tools)
    assert abs(tools_tokens(tools) - whole) <= len(tools)


def test_the_encoding_is_the_one_tiktoken_checks_for() -> None:
    data = resources.files("bpe_openai.data").joinpath("o200k_base.tiktoken.gz").read_bytes()
    assert hashlib.sha256(gzip.decompress(data)).hexdigest() == TIKTOKEN_O200K_SHA256


def test_counts_match_tiktoken_on_the_same_encoding() -> None:
    import tiktoken
    from bpe_openai import registry  # type: ignore[import-untyped]

    spec = registry.o200k_base()
    reference = tiktoken.Encoding(
        name="o200k_base",
        pat_str=spec["pat_str"],
        mergeable_ranks=spec["mergeable_ranks"],
        special_tokens=spec["special_tokens"],
    )
    texts = [*SAMPLES, tool_text(search_tool()), tool_text(search_tool(), "anthropic")]
    assert [count_text(text) for text in texts] == [
        len(reference.encode_ordinary(text)) for text in texts
    ]


def test_request_definitions_count_like_tools() -> None:
    from statetools.models.base import ToolDefinition

    search = tool("search")
    definition = ToolDefinition(search.name, search.description, search.input_schema)
    assert tools_tokens([definition]) == tools_tokens([search])


def test_flat_tools_leave_facades_out() -> None:
    from statetools.review import flat_tools

    playbook = st.PlaybookTool("p", "P").with_tools(tool("a"), tool("b"))
    assert [t.name for t in flat_tools(st.disclosure_graph(playbook))] == ["a", "b"]


def test_counting_needs_no_network() -> None:
    script = (
        "import socket\n"
        "def refuse(*args, **kwargs):\n"
        "    raise OSError('no network in this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "from statetools.review.tokens import count_text\n"
        "print(count_text('hello world'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={
            **os.environ,
            "TIKTOKEN_CACHE_DIR": "/nonexistent",
            "DATA_GYM_CACHE_DIR": "/nonexistent",
        },
    )
    assert done.stdout == "2\n"
