"""Pluggable rankers: a custom Ranker, an embed function, fusion, what is indexed, and
the index built once per definition, never per turn."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import pytest

import statetools as st
from statetools.models import ScriptedModel
from statetools.search import (
    BM25Ranker,
    Document,
    EmbeddingRanker,
    HybridRanker,
    Ranker,
    document_for,
)
from tests.search.test_search_facade import locked_design, run, tool_texts


def tool(name: str, description: str) -> st.Tool:
    return st.Tool.create(name, description, lambda: f"{name} ok")


TOOLS = [
    tool("create_issue", "Open a new issue."),
    tool("list_commits", "The history of a branch."),
    tool("get_weather", "Today's forecast for a city."),
]

# a deterministic fake embedding: each text is its counts of a few marker words
MARKERS = ("bug", "issue", "history", "commit", "rain", "forecast")


def fake_embed(texts: list[str]) -> list[list[float]]:
    low = [text.lower() for text in texts]
    return [[float(text.count(m)) for m in MARKERS] for text in low]


class Fixed:
    """A custom ranker: returns the names it was given, in that order."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.indexed: list[list[str]] = []

    def index(self, docs: Sequence[Document]) -> None:
        self.indexed.append([doc.name for doc in docs])

    def rank(self, query: str, k: int) -> list[tuple[str, float]]:
        return [(name, 1.0) for name in self.names[:k]]


def test_a_custom_ranker_is_used_and_indexes_every_tool_once() -> None:
    ranker = Fixed(["get_weather", "create_issue"])
    facade = st.UnfoldingTool.searchable("find", "Find tools", TOOLS, ranker=ranker)

    assert isinstance(ranker, Ranker)
    assert facade.call({"query": "anything"}).text == (
        'Tools matching "anything", best first:\n'
        "- get_weather: Today's forecast for a city.\n"
        "- create_issue: Open a new issue.\n"
        "Tools now available: get_weather, create_issue."
    )
    facade.call({"query": "again"})
    assert ranker.indexed == [["create_issue", "list_commits", "get_weather"]]


def test_an_embed_function_ranks_by_meaning_where_words_do_not_match() -> None:
    by_words = st.UnfoldingTool.searchable("find", "Find tools", TOOLS)
    by_meaning = st.UnfoldingTool.searchable(
        "find", "Find tools", TOOLS, ranker=EmbeddingRanker(fake_embed)
    )

    assert by_words.call({"query": "a bug"}).text.startswith('No tool matches "a bug".')
    assert by_meaning.call({"query": "a bug in the issue"}).text == (
        'Tools matching "a bug in the issue", best first:\n'
        "- create_issue: Open a new issue.\n"
        "Tools now available: create_issue."
    )


def test_locked_tools_found_by_an_embedding_search_are_listed_as_locked() -> None:
    def embed(texts: list[str]) -> list[list[float]]:  # only "issue" counts
        return [[float("issue" in text.lower())] for text in texts]

    facade = locked_design(ranker=EmbeddingRanker(embed))
    result, _ = run([facade], [("find", {"query": "issue"})])

    text = tool_texts(result)[0]
    assert text.startswith('Tools matching "issue", best first:\n')
    assert "- add_issue_comment (locked): Add a comment to an issue. Call first: get_issue." in (
        text.splitlines()
    )
    assert "- get_issue: Get an issue of a repository." in text.splitlines()
    assert "- lock_issue (locked): The lock_issue tool. Tool 'issue_admin' is locked. " in text
    assert text.splitlines()[-1] == (
        "Tools now available: get_issue, publish_issue_draft. "
        "Opening once unlocked: add_issue_comment, issue_admin."
    )


class Counting(BM25Ranker):
    builds = 0

    def index(self, docs: Sequence[Document]) -> None:
        Counting.builds += 1
        super().index(docs)


def test_the_index_is_built_once_across_a_fifty_turn_run() -> None:
    Counting.builds = 0
    facade = st.UnfoldingTool.searchable("find", "Find tools", TOOLS, ranker=Counting())
    queries = ["issue", "branch history", "forecast"] * 17
    steps: list[Any] = [("find", {"query": q}) for q in queries[:50]]
    model = ScriptedModel([*steps, "done"])
    result = st.ToolLoop(model, max_iterations=60).run("go", tools=[facade])

    assert len(model.requests) == 51
    assert result.iterations == 51
    assert Counting.builds == 1


def test_a_definition_that_is_never_searched_is_never_indexed() -> None:
    Counting.builds = 0
    facade = st.UnfoldingTool.searchable("find", "Find tools", TOOLS, ranker=Counting())
    run([facade], [("find", {"names": ["get_weather"]}), ("get_weather", {})])

    assert Counting.builds == 0


def test_hybrid_fuses_rankings_by_reciprocal_rank() -> None:
    hybrid = HybridRanker(Fixed(["a", "b", "c"]), Fixed(["b", "c", "d"]))
    hybrid.index([])

    ranked = hybrid.rank("q", 4)
    assert [name for name, _ in ranked] == ["b", "c", "a", "d"]
    assert ranked[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert ranked[2][1] == pytest.approx(1 / 61)


def test_hybrid_weights_favour_one_ranker() -> None:
    hybrid = HybridRanker(Fixed(["a", "b"]), Fixed(["b", "a"]), weights=[1.0, 2.0])
    assert [name for name, _ in hybrid.rank("q", 2)] == ["b", "a"]


def test_rankers_are_checked_when_the_facade_is_built() -> None:
    with pytest.raises(st.DefinitionError) as unknown:
        st.UnfoldingTool.searchable("find", "Find tools", TOOLS, ranker="fuzzy")
    assert str(unknown.value) == (
        "search: unknown ranker 'fuzzy' Hint: ranker is one of bm25, embeddings, hybrid, "
        "or a Ranker object"
    )
    with pytest.raises(st.DefinitionError, match="ranker must be a name or a Ranker, got int"):
        st.UnfoldingTool.searchable("find", "Find tools", TOOLS, ranker=3)
    with pytest.raises(st.DefinitionError, match="needs at least one ranker"):
        HybridRanker()
    with pytest.raises(st.DefinitionError, match="2 weights for 1 rankers"):
        HybridRanker(BM25Ranker(), weights=[1.0, 2.0])


def test_an_embed_function_that_returns_no_vectors_is_a_clear_error() -> None:
    facade = st.UnfoldingTool.searchable(
        "find", "Find tools", TOOLS, ranker=EmbeddingRanker(lambda texts: [[1.0]])
    )
    with pytest.raises(st.StatetoolsError) as error:
        facade.call({"query": "issue"})
    assert str(error.value) == (
        "EmbeddingRanker: the embedding function returned shape (1, 1) for 3 texts "
        "Hint: embed(texts) returns one vector per text, all of one length"
    )


def test_hybrid_without_the_extra_says_how_to_install_it(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # as if not installed
    with pytest.raises(st.StatetoolsError) as error:
        st.UnfoldingTool.searchable("find", "Find tools", TOOLS, ranker="hybrid")
    assert str(error.value) == (
        "local_embedder: the local embedding model needs tokenizers, not installed "
        "Hint: pip install 'statetools[embeddings]', or pass a Ranker or an "
        "EmbeddingRanker(embed) of your own"
    )


# what is indexed ----------------------------------------------------------------------


def test_a_document_holds_what_a_model_would_match() -> None:
    def open_ticket(repoName: str, kind: str = "bug") -> str:  # camelCase, as in MCP servers
        return "#1"

    schema = {
        "type": "object",
        "properties": {
            "repoName": {"type": "string", "description": "Repository, as owner/name."},
            "kind": {"type": "string", "enum": ["bug", "feature"]},
        },
        "required": ["repoName"],
    }
    ticket = st.Tool.create(
        "openTicket", "File a ticket.", open_ticket, schema=schema, metadata={"category": "write"}
    )
    document = document_for(ticket, path=("tracker",), keywords=("issue", "report"))

    assert document == Document(
        "openTicket",
        "open ticket. File a ticket. repo name. Repository, as owner/name. kind. write. "
        "in tracker. bug. feature. issue. report",
        "open ticket. File a ticket. repo name. kind. write. in tracker. issue. report",
    )


def test_the_facades_a_tool_sits_in_are_part_of_its_document() -> None:
    issues = st.UnfoldingTool.of("issue_tracker", "Open the tracker", [tool("close", "Close.")])
    facade = st.UnfoldingTool.searchable("find", "Find tools", [issues, tool("stop", "Stop.")])

    documents = {doc.name: doc.terms for doc in facade.search_index.documents()}
    assert documents == {
        "issue_tracker": "issue tracker. Open the tracker",
        "close": "close. Close. in issue tracker",
        "stop": "stop. Stop",
    }
    assert facade.call({"query": "tracker"}).text.splitlines()[1:3] == [
        "- issue_tracker: Open the tracker",
        "- close: Close.",
    ]


def test_keywords_find_a_tool_by_words_it_does_not_use() -> None:
    facade = st.UnfoldingTool.searchable(
        "find", "Find tools", TOOLS, keywords={"create_issue": ["bug", "ticket"]}
    )
    assert facade.call({"query": "file a ticket"}).text == (
        'Tools matching "file a ticket", best first:\n'
        "- create_issue: Open a new issue.\n"
        "Tools now available: create_issue."
    )
    with pytest.raises(st.DefinitionError, match="keywords for tools it does not hold: nope"):
        st.UnfoldingTool.searchable("find", "Find tools", TOOLS, keywords={"nope": ["x"]})
    with pytest.raises(st.DefinitionError, match="keywords of create_issue must be a list"):
        st.UnfoldingTool.searchable("find", "Find tools", TOOLS, keywords={"create_issue": "bug"})


# YAML ---------------------------------------------------------------------------------

DESIGN = """
kind: facade
name: find
description: Find tools
search:
  max_results: 2
  ranker: {ranker}
  keywords:
    create_issue: [ticket]
tools: [create_issue, list_commits, get_weather]
"""


def test_yaml_names_the_ranker_and_keywords() -> None:
    facade = st.load_playbook(DESIGN.format(ranker="bm25"), tools=TOOLS)

    assert isinstance(facade, st.UnfoldingTool)
    assert facade.search is not None
    assert facade.search.ranker == "bm25"
    assert facade.search.keywords == (("create_issue", ("ticket",)),)
    assert facade.call({"query": "ticket"}).text.splitlines()[1] == (
        "- create_issue: Open a new issue."
    )
    dumped = st.dump_playbook(facade)
    assert "ranker: bm25" not in dumped
    assert "keywords:\n    create_issue:\n      - ticket\n" in dumped
    assert st.load_playbook(dumped, tools=TOOLS) == facade


def test_yaml_with_an_unknown_ranker_says_where() -> None:
    with pytest.raises(st.SpecError) as error:
        st.load_playbook(DESIGN.format(ranker="fuzzy"), tools=TOOLS)
    assert "unknown ranker 'fuzzy'" in str(error.value)
    assert "ranker is one of bm25, embeddings, hybrid" in str(error.value)


def test_a_facade_with_a_ranker_object_cannot_be_written_to_yaml() -> None:
    facade = st.UnfoldingTool.searchable("find", "Find tools", TOOLS, ranker=Fixed([]))
    with pytest.raises(st.SpecError, match="a search facade with a Ranker object"):
        st.dump_playbook(facade)
