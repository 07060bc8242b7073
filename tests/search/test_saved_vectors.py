"""Embeddings of a catalogue kept in a file: computed once per definition, reloaded
without embedding again, and only a changed tool's text embedded again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import statetools as st
from statetools.search import EmbeddingRanker, SavedVectors, model_name

MARKERS = ("bug", "issue", "history", "commit", "rain", "forecast")


class CountingEmbed:
    """A deterministic fake embedding (counts of marker words) that records every text
    it is asked to embed."""

    model_name = "markers-v1"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [[text.lower().count(m) + 0.01 for m in MARKERS] for text in texts]


def tools(weather: str = "Today's forecast for a city.") -> list[st.Tool]:
    return [
        st.Tool.create("create_issue", "Open a new issue about a bug.", lambda: "ok"),
        st.Tool.create("list_commits", "The commit history of a branch.", lambda: "ok"),
        st.Tool.create("get_weather", weather, lambda: "ok"),
    ]


def facade(embed: CountingEmbed, path: Path, weather: str | None = None) -> st.UnfoldingTool:
    ranker = EmbeddingRanker(embed, saved=path)
    items = tools() if weather is None else tools(weather)
    return st.UnfoldingTool.searchable("find", "Find tools", items, ranker=ranker)


def ranked(finder: st.UnfoldingTool, query: str) -> list[str]:
    return [tool.name for tool, _ in finder.search_index.rank(query, 1)]


def test_vectors_are_saved_then_reloaded_without_embedding_the_tools(tmp_path: Path) -> None:
    path = tmp_path / "find.vectors.json"
    first = CountingEmbed()
    assert ranked(facade(first, path), "a bug report") == ["create_issue"]
    assert [len(texts) for texts in first.calls] == [3, 1]  # the tools once, then the query
    saved = json.loads(path.read_text())
    assert (saved["format"], saved["model"], len(saved["vectors"])) == (
        "statetools-vectors/1",
        "markers-v1",
        3,
    )

    again = CountingEmbed()  # a new process: a new definition of the same catalogue
    finder = facade(again, path)
    assert ranked(finder, "a bug report") == ["create_issue"]
    assert ranked(finder, "rain forecast") == ["get_weather"]
    assert again.calls == [["a bug report"], ["rain forecast"]]  # queries only
    assert json.loads(path.read_text()) == saved  # nothing to save: the file is unchanged


def test_a_changed_tool_text_is_embedded_again_and_saved(tmp_path: Path) -> None:
    path = tmp_path / "find.vectors.json"
    facade(CountingEmbed(), path).search_index.rank("bug", 1)
    embed = CountingEmbed()
    finder = facade(embed, path, weather="Will it rain? The forecast for a city.")
    assert ranked(finder, "rain") == ["get_weather"]
    assert embed.calls[0] == ["get weather. Will it rain? The forecast for a city"]
    assert len(json.loads(path.read_text())["vectors"]) == 3  # the old text's vector left

    third = CountingEmbed()
    ranked(facade(third, path, weather="Will it rain? The forecast for a city."), "rain")
    assert third.calls == [["rain"]]


def test_another_model_does_not_reuse_the_vectors(tmp_path: Path) -> None:
    path = tmp_path / "find.vectors.json"
    facade(CountingEmbed(), path).search_index.rank("bug", 1)
    other = CountingEmbed()
    vectors = SavedVectors(path, model="markers-v2").vectors(other, ["Open a new issue."])
    assert vectors.shape == (1, len(MARKERS))
    assert other.calls == [["Open a new issue."]]


def test_the_model_name_of_a_plain_function_is_where_it_is_defined() -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        return [[1.0] for _ in texts]

    assert model_name(embed) == (
        "tests.search.test_saved_vectors."
        "test_the_model_name_of_a_plain_function_is_where_it_is_defined.<locals>.embed"
    )
    assert model_name(CountingEmbed()) == "markers-v1"


def test_a_damaged_vectors_file_is_an_error_saying_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "find.vectors.json"
    path.write_text('{"vectors": {}}')
    with pytest.raises(st.StatetoolsError) as raised:
        facade(CountingEmbed(), path).search_index.rank("bug", 1)
    assert str(raised.value.path) == str(path)
    assert "not a statetools vectors file" in str(raised.value)
    assert "delete it" in (raised.value.hint or "")


def test_a_design_names_the_vectors_file_beside_it(tmp_path: Path) -> None:
    design = tmp_path / "design.yaml"
    design.write_text(
        "kind: facade\nname: find\ndescription: Find tools\n"
        "search: {max_results: 2, ranker: hybrid, vectors: find.vectors.json}\n"
        "tools: [create_issue, list_commits, get_weather]\n"
    )
    loaded = st.load_design(design, tools=tools())
    (finder,) = loaded.tools
    assert isinstance(finder, st.UnfoldingTool)
    assert finder.search is not None
    assert finder.search.vectors == str(tmp_path / "find.vectors.json")
    embedding = finder.search_index.ranker.rankers[1]
    assert isinstance(embedding.saved, SavedVectors)
    assert embedding.saved.path == tmp_path / "find.vectors.json"


def test_vectors_without_an_embedding_ranker_are_refused(tmp_path: Path) -> None:
    with pytest.raises(st.DefinitionError) as raised:
        st.UnfoldingTool.searchable("find", "Find", tools(), vectors="v.json")
    assert str(raised.value) == (
        "search: saved vectors need the embeddings or hybrid ranker "
        "Hint: add ranker: hybrid (or embeddings), or remove vectors"
    )
