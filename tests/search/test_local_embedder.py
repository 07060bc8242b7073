"""The offline embedding model (extra: statetools[embeddings]) and the rankers that use
it: weights from the installed package, numpy inference, nothing downloaded."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

import statetools as st
from statetools.search import local_embedder

TOOLS = [
    st.Tool.create("create_issue", "Open a new issue in a repository.", lambda: "ok"),
    st.Tool.create("list_commits", "The history of a branch.", lambda: "ok"),
    st.Tool.create("get_weather", "Today's forecast for a city.", lambda: "ok"),
]


def test_texts_become_unit_vectors_whose_similarity_follows_meaning() -> None:
    embed = local_embedder()
    texts = [
        "A man is eating food.",
        "A man is eating a piece of bread.",
        "The girl is carrying a baby.",
    ]
    vectors = embed(texts)

    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # all-MiniLM-L6-v2's published similarity of the first two sentences is 0.755
    assert round(float(vectors[0] @ vectors[1]), 2) == 0.76
    assert float(vectors[0] @ vectors[2]) < 0.0
    assert np.array_equal(embed(texts), vectors)  # the same texts, the same vectors


def test_a_batch_gives_each_text_the_vector_it_gets_alone() -> None:
    embed = local_embedder()
    texts = ["short", "a much longer text that needs padding in a batch with short ones"]
    together = embed(texts)
    alone = np.stack([embed([text])[0] for text in texts])

    assert np.allclose(together, alone, atol=1e-5)
    assert embed([]).shape == (0, 384)


def test_hybrid_finds_a_tool_by_meaning_that_words_miss() -> None:
    by_words = st.UnfoldingTool.searchable("find", "Find tools", TOOLS, max_results=1)
    hybrid = st.UnfoldingTool.searchable(
        "find", "Find tools", TOOLS, max_results=1, ranker="hybrid"
    )
    embeddings = st.UnfoldingTool.searchable(
        "find", "Find tools", TOOLS, max_results=1, ranker="embeddings"
    )

    assert by_words.call({"query": "will it rain tomorrow"}).text.startswith(
        'No tool matches "will it rain tomorrow".'
    )
    expected = (
        'Tools matching "will it rain tomorrow", best first:\n'
        "- get_weather: Today's forecast for a city.\n"
        "Tools now available: get_weather."
    )
    assert hybrid.call({"query": "will it rain tomorrow"}).text == expected
    assert embeddings.call({"query": "will it rain tomorrow"}).text == expected


def test_the_model_loads_without_the_network_or_torch() -> None:
    code = (
        "import socket, sys\n"
        "def refuse(*a, **k): raise OSError('no network')\n"
        "socket.socket.connect = refuse\n"
        "from statetools.search import local_embedder\n"
        "print(local_embedder()(['hello']).shape, 'torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(1, 384) False"


def test_import_statetools_imports_no_numpy_tokenizers_or_bm25s() -> None:
    code = (
        "import sys, statetools\n"
        "print([m for m in ('numpy', 'tokenizers', 'safetensors', 'bm25s', 'onnxruntime')"
        " if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_question_about_nothing_here_gets_the_recovery_text_with_hybrid() -> None:
    # BM25 matches the word "history" (list_commits); the local model's best match is
    # below its threshold, and with twice BM25's weight it decides: nothing useful
    tools = [
        st.Tool.create(t.name, t.description, lambda: "ok", metadata={"category": category})
        for t, category in zip(TOOLS, ("issues", "code", "weather"), strict=True)
    ]
    query = "Tell me the history of the Roman empire"
    expected = f'No tool matches "{query}". Categories: issues, code, weather. Try other words.'
    texts = {
        ranker: st.UnfoldingTool.searchable("find", "Find", tools, ranker=ranker)
        .call({"query": query})
        .text
        for ranker in ("bm25", "embeddings", "hybrid")
    }

    assert texts["bm25"].splitlines()[1] == "- list_commits: The history of a branch."
    assert texts["embeddings"] == expected
    assert texts["hybrid"] == expected
