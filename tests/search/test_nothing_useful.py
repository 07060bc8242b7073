"""A search by meaning that finds nothing useful says so: the embeddings ranker below its
threshold finds nothing, the hybrid ranker finds nothing when the rankers holding most
of its weight found nothing, and the model gets the same recovery text as with BM25
(the groups that exist, the closest names), so its next search can find the tool."""

from __future__ import annotations

from typing import Any

import statetools as st
from statetools.search import BM25Ranker, Document, EmbeddingRanker, HybridRanker
from tests.search.test_search_facade import run, tool_texts

# a deterministic fake embedding: counts of a few marker words, plus one number every
# text has, so that a text without markers is a little similar to every tool
MARKERS = ("issue", "bug", "ticket", "rain", "forecast", "weather")


def embed(texts: list[str]) -> list[list[float]]:
    low = [text.lower() for text in texts]
    return [[float(text.count(m)) for m in MARKERS] + [0.5] for text in low]


def tool(name: str, description: str) -> st.Tool:
    return st.Tool.create(name, description, lambda: f"{name} ok")


def design(ranker: Any) -> st.UnfoldingTool:
    issues = st.UnfoldingTool.of(
        "issues",
        "Open the issue tools.",
        [tool("close_issue", "Close an issue."), tool("file_bug", "File a bug as a ticket.")],
    )
    weather = st.UnfoldingTool.of(
        "weather", "Open the weather tools.", [tool("get_forecast", "The rain forecast.")]
    )
    return st.UnfoldingTool.searchable("find", "Find tools", [issues, weather], ranker=ranker)


RECOVERY = (
    'No tool matches "close the oven door". Closest names: close_issue. '
    "Groups: issues (Open the issue tools.), weather (Open the weather tools.). "
    "Try other words, or names for a group or tool."
)


def test_the_embeddings_ranker_below_its_threshold_finds_nothing() -> None:
    ranker = EmbeddingRanker(embed, threshold=0.4)
    ranker.index([Document("close_issue", "close issue. Close an issue")])

    assert ranker.rank("close the oven door", 5) == []  # cosine 0.24 at best
    assert [name for name, _ in ranker.rank("an issue", 5)] == ["close_issue"]
    assert EmbeddingRanker(embed).rank("close the oven door", 5) == []  # not indexed


def test_an_embeddings_search_that_finds_nothing_shows_the_groups_and_closest_names() -> None:
    finder = design(EmbeddingRanker(embed, threshold=0.4))

    assert finder.call({"query": "close the oven door"}).text == RECOVERY
    assert finder.call({"query": "will it rain"}).text == (
        'Tools matching "will it rain", best first:\n'
        "- get_forecast: The rain forecast.\n"
        "- issues: Open the issue tools.\n"
        "- close_issue: Close an issue.\n"
        "- weather: Open the weather tools.\n"
        "- file_bug: File a bug as a ticket.\n"
        "Tools now available: get_forecast, issues, close_issue, weather, file_bug."
    )


def test_a_hybrid_search_whose_meaning_ranker_finds_nothing_finds_nothing() -> None:
    # BM25 alone matches the word "close"; the embeddings ranker, with twice the weight,
    # finds nothing close enough, so the fused ranking is empty too
    words_only = design(BM25Ranker())
    hybrid = design(
        HybridRanker(BM25Ranker(), EmbeddingRanker(embed, threshold=0.4), weights=[1, 2])
    )

    assert words_only.call({"query": "close the oven door"}).text.splitlines()[1] == (
        "- close_issue: Close an issue."
    )
    assert hybrid.call({"query": "close the oven door"}).text == RECOVERY
    assert hybrid.call({"query": "close a ticket"}).text.splitlines()[1:3] == [
        "- file_bug: File a bug as a ticket.",
        "- close_issue: Close an issue.",
    ]


def test_with_equal_weights_one_ranker_that_finds_something_is_enough() -> None:
    hybrid = design(HybridRanker(BM25Ranker(), EmbeddingRanker(embed, threshold=0.4)))

    assert hybrid.call({"query": "close the oven door"}).text.splitlines()[1] == (
        "- close_issue: Close an issue."
    )


def test_the_threshold_comes_with_the_embedding_function() -> None:
    class Calibrated:
        threshold = 0.4

        def __call__(self, texts: list[str]) -> list[list[float]]:
            return embed(texts)

    assert EmbeddingRanker(Calibrated()).threshold == 0.4
    assert EmbeddingRanker(Calibrated(), threshold=0.2).threshold == 0.2
    assert EmbeddingRanker(embed).threshold is None
    finder = design(EmbeddingRanker(Calibrated()))
    assert finder.call({"query": "close the oven door"}).text == RECOVERY


def test_the_recovery_text_leads_to_the_tool_in_one_more_request() -> None:
    finder = design(
        HybridRanker(BM25Ranker(), EmbeddingRanker(embed, threshold=0.4), weights=[1, 2])
    )
    result, model = run(
        [finder],
        [
            ("find", {"query": "close the oven door"}),
            ("find", {"query": "issues"}),
            ("close_issue", {}),
        ],
    )

    texts = tool_texts(result)
    assert texts[0] == RECOVERY
    assert "- close_issue: Close an issue." in texts[1].splitlines()
    assert texts[2] == "close_issue ok"
    assert "close_issue" in model.requests[2].tool_names


def test_a_query_about_its_quoted_values_is_tried_whole_before_finding_nothing() -> None:
    # without its quoted value "Close 'the bug'" is "Close", below the threshold (cosine
    # 0.24 at best); the whole query is embedded then, and file_bug is close (0.98)
    seen: list[str] = []

    def counting(texts: list[str]) -> list[list[float]]:
        seen.extend(texts)
        return embed(texts)

    ranker = EmbeddingRanker(counting, threshold=0.4)
    ranker.index(
        [
            Document("close_issue", "close issue. Close an issue"),
            Document("file_bug", "file bug. A bug"),
        ]
    )
    seen.clear()

    assert [name for name, _ in ranker.rank("Close 'the bug'", 5)] == ["file_bug", "close_issue"]
    assert seen == ["Close", "Close 'the bug'"]
    seen.clear()
    assert ranker.rank("Close 'the oven door'", 5) == []  # whole, still below
    assert seen == ["Close", "Close 'the oven door'"]
    seen.clear()
    assert [name for name, _ in ranker.rank("the 'x' issue", 5)] == ["close_issue", "file_bug"]
    assert seen == ["the issue"]  # close enough without the quoted value: embedded once
    seen.clear()
    assert ranker.rank("close the oven door", 5) == []  # nothing quoted: embedded once
    assert seen == ["close the oven door"]


def test_a_hybrid_search_about_a_quoted_value_finds_the_tool() -> None:
    hybrid = design(
        HybridRanker(BM25Ranker(), EmbeddingRanker(embed, threshold=0.4), weights=[1, 2])
    )

    assert hybrid.call({"query": "Close 'the bug'"}).text.splitlines()[:2] == [
        """Tools matching "Close 'the bug'", best first:""",
        "- file_bug: File a bug as a ticket.",
    ]


def test_best_is_the_score_the_threshold_sees() -> None:
    ranker = EmbeddingRanker(embed)
    assert ranker.best("an issue") == 0.0  # not indexed
    ranker.index([Document("close_issue", "close issue. Close an issue")])

    assert round(ranker.best("Close 'the issue'"), 3) == 0.976  # whole: [1, .5] vs [2, .5]
    assert round(ranker.best("Close"), 3) == 0.243  # [0, 0.5] vs [2, 0.5]
    assert round(ranker.best("Close 'the oven door'"), 3) == 0.243
    assert ranker.best("   ") == 0.0
