"""Search rankers: how a search facade orders its tools for the model's words.

A :class:`Ranker` indexes the text of every tool below a search facade once (on the
first query) and ranks them for each query. :class:`BM25Ranker` matches words,
:class:`EmbeddingRanker` matches meaning with any embedding function, and
:class:`HybridRanker` fuses several rankings, and :class:`CoUsageRanker` moves up the
tools that recorded runs used with the best matches. :func:`local_embedder` is an
offline embedding model (the ``statetools[embeddings]`` extra), and
:func:`example_requests` has a model write, once, requests in a user's words for each
tool.

>>> ranker = BM25Ranker()
>>> ranker.index([Document("create_issue", "create issue Open a bug report"),
...               Document("list_commits", "list commits History of a branch")])
>>> [name for name, _ in ranker.rank("report a bug", 5)]
['create_issue']
"""

from statetools.search.bm25 import BM25Ranker
from statetools.search.choice import RANKER_NAMES, ranker_for
from statetools.search.documents import Document, document_for, document_text, documents_for
from statetools.search.embedding import Embed, EmbeddingRanker, meaning_of
from statetools.search.examples import aexample_requests, example_requests
from statetools.search.fusion import HybridRanker
from statetools.search.local import local_embedder
from statetools.search.ranker import Ranker
from statetools.search.saved import SavedVectors, model_name
from statetools.search.usage import CoUsageRanker, calls_of

__all__ = [
    "RANKER_NAMES",
    "BM25Ranker",
    "CoUsageRanker",
    "Document",
    "Embed",
    "EmbeddingRanker",
    "HybridRanker",
    "Ranker",
    "SavedVectors",
    "aexample_requests",
    "calls_of",
    "document_for",
    "document_text",
    "documents_for",
    "example_requests",
    "local_embedder",
    "meaning_of",
    "model_name",
    "ranker_for",
]
