"""Example requests: sentences a user would say when a tool is needed, each matched on
its own by the meaning rankers (never by BM25), given in Python or in YAML."""

from __future__ import annotations

from pathlib import Path

import pytest

import statetools as st
from statetools.search import BM25Ranker, Document, EmbeddingRanker, HybridRanker

# a deterministic fake embedding: each text is its counts of a few marker words
MARKERS = ("folder", "copy", "weather", "drive")


def fake_embed(texts: list[str]) -> list[list[float]]:
    return [[float(text.lower().count(m)) + 0.01 for m in MARKERS] for text in texts]


class Recording:
    """fake_embed that remembers every batch of texts it was given."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return fake_embed(texts)


def tool(name: str, description: str) -> st.Tool:
    return st.Tool.create(name, description, lambda: f"{name} ok")


TOOLS = [
    tool("cd", "Change the current directory."),
    tool("cp", "Copy a file somewhere else."),
    tool("get_weather", "Today's weather for a city."),
]
ASKED = {"cd": ["Go into my Documents folder.", "Open the folder called drive."]}


def test_each_example_request_is_embedded_once_on_its_own() -> None:
    embed = Recording()
    facade = st.UnfoldingTool.searchable(
        "find", "Find tools", TOOLS, ranker=EmbeddingRanker(embed), example_requests=ASKED
    )
    facade.search_index.rank("anything")
    facade.search_index.rank("anything else")

    assert embed.calls[0] == [  # the index: texts, focus, then each example request
        "cd. Change the current directory",
        "cp. Copy a file somewhere else",
        "get weather. Today's weather for a city",
        "Go into my Documents folder.",
        "Open the folder called drive.",
    ]
    assert embed.calls[1:] == [["anything"], ["anything else"]]  # one per query after


def test_a_tool_is_found_by_its_closest_example_request() -> None:
    def ranked(asked: dict[str, list[str]] | None) -> list[tuple[str, float]]:
        ranker = EmbeddingRanker(fake_embed)
        ranker.index(
            [
                Document("cd", "change directory", example_requests=(asked or {}).get("cd", ())),
                Document("cp", "copy a file to a folder"),
            ]
        )
        return [(name, round(score, 3)) for name, score in ranker.rank("my folder", 2)]

    # without requests, cp's text (folder) is the closer; with them, cd's request is
    assert ranked(None) == [("cp", 0.714), ("cd", 0.515)]
    assert ranked(ASKED) == [("cd", 1.0), ("cp", 0.714)]


def test_bm25_does_not_read_example_requests() -> None:
    facade = st.UnfoldingTool.searchable(
        "find", "Find tools", TOOLS, example_requests={"get_weather": ["Should I drive today?"]}
    )
    assert facade.search_index.documents()[2] == Document(
        "get_weather",
        "get weather. Today's weather for a city",
        "get weather. Today's weather for a city",
        focus="get weather. Today's weather for a city",
        example_requests=("Should I drive today?",),
    )
    assert facade.call({"query": "drive"}).text.startswith('No tool matches "drive".')


def test_hybrid_opens_the_tool_whose_request_matches() -> None:
    ranker = HybridRanker(BM25Ranker(), EmbeddingRanker(fake_embed), weights=[1, 2])
    facade = st.UnfoldingTool.searchable(
        "find", "Find tools", TOOLS, ranker=ranker, max_results=1, example_requests=ASKED
    )
    assert facade.call({"query": "the drive folder"}).text == (
        'Tools matching "the drive folder", best first:\n'
        "- cd: Change the current directory.\n"
        "Tools now available: cd."
    )


def test_bad_example_requests_say_what_to_write() -> None:
    with pytest.raises(st.DefinitionError) as unknown:
        st.UnfoldingTool.searchable("find", "Find", TOOLS, example_requests={"nope": ["x"]})
    assert str(unknown.value) == (
        "search: example_requests for tools it does not hold: nope "
        "Hint: give example_requests only for tools below the search facade"
    )
    with pytest.raises(st.DefinitionError) as text:
        st.UnfoldingTool.searchable("find", "Find", TOOLS, example_requests={"cd": "Go home."})
    assert str(text.value) == (
        "search: example_requests of cd must be a list of sentences, got 'Go home.' "
        "Hint: write example_requests={'cd': [sentences]}"
    )


DESIGN = """
kind: facade
name: find
description: Find tools
search:
  max_results: 1
  example_requests:
    cd: [Go into my Documents folder.]
tools: [cd, cp, get_weather]
"""


def test_yaml_gives_example_requests_and_writes_them_back() -> None:
    facade = st.load_playbook(DESIGN, tools=TOOLS)

    assert isinstance(facade, st.UnfoldingTool)
    assert facade.search is not None
    assert facade.search.example_requests == (("cd", ("Go into my Documents folder.",)),)
    dumped = st.dump_playbook(facade)
    assert "example_requests:\n    cd:\n      - Go into my Documents folder.\n" in dumped
    assert st.load_playbook(dumped, tools=TOOLS) == facade


def test_yaml_with_example_requests_for_an_unknown_tool_says_where() -> None:
    with pytest.raises(st.SpecError) as error:
        st.load_playbook(DESIGN.replace("    cd: [", "    cdx: ["), tools=TOOLS)
    assert "example_requests for tools it does not hold: cdx" in str(error.value)


def test_the_threshold_judges_a_tool_by_its_own_words_not_its_requests() -> None:
    # the request matches "drive" perfectly, but nothing the tools say does: the
    # threshold still decides that the search found nothing useful
    ranker = EmbeddingRanker(fake_embed, threshold=0.9)
    ranker.index([Document("cd", "change directory", example_requests=("Start the drive.",))])

    assert ranker.rank("drive", 1) == []
    assert round(ranker.best("drive"), 3) == 0.515
    ranker.threshold = 0.4
    assert [(name, round(score, 3)) for name, score in ranker.rank("drive", 1)] == [("cd", 1.0)]


def test_yaml_reads_example_requests_from_the_file_statetools_examples_writes(
    tmp_path: Path,
) -> None:
    (tmp_path / "requests.json").write_text('{"cd": ["Go into my Documents folder."]}')
    design = DESIGN.replace(
        "  example_requests:\n    cd: [Go into my Documents folder.]\n",
        "  example_requests: requests.json\n",
    )
    (tmp_path / "design.yaml").write_text(design)

    facade = st.load_playbook(tmp_path / "design.yaml", tools=TOOLS)

    assert isinstance(facade, st.UnfoldingTool)
    assert facade.search is not None
    assert facade.search.example_requests == str(tmp_path / "requests.json")
    assert facade.search_index.documents()[0].example_requests == ("Go into my Documents folder.",)


def test_a_missing_or_broken_requests_file_says_what_to_do(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(st.DefinitionError) as error:
        st.UnfoldingTool.searchable("find", "Find", TOOLS, example_requests=missing)
    assert str(error.value) == (
        f"search.example_requests: cannot read {missing}: No such file or directory "
        "Hint: write it with `statetools examples DESIGN --model MODEL --out FILE`"
    )
    broken = tmp_path / "broken.json"
    broken.write_text('["Go home."]')
    with pytest.raises(st.DefinitionError) as error:
        st.UnfoldingTool.searchable("find", "Find", TOOLS, example_requests=str(broken))
    assert str(error.value) == (
        f"search.example_requests: {broken} holds a list, not a mapping "
        'Hint: the file maps tool names to lists of sentences: {"cd": ["Go home."]}'
    )


def test_a_requests_file_may_hold_other_facades_tools_but_not_only_those(
    tmp_path: Path,
) -> None:
    shared = tmp_path / "requests.json"
    shared.write_text('{"cd": ["Go home."], "send_mail": ["Mail Bob."]}')
    facade = st.UnfoldingTool.searchable("find", "Find", TOOLS, example_requests=shared)
    assert [doc.example_requests for doc in facade.search_index.documents()] == [
        ("Go home.",),
        (),
        (),
    ]
    other = tmp_path / "other.json"
    other.write_text('{"send_mail": ["Mail Bob."]}')
    with pytest.raises(st.DefinitionError) as error:
        st.UnfoldingTool.searchable("find", "Find", TOOLS, example_requests=other)
    assert str(error.value) == (
        f"search.example_requests: {other} has requests for none of the tools below this "
        "facade Hint: write it for this design with `statetools examples DESIGN ...`"
    )
