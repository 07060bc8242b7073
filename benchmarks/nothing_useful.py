"""When does a search by meaning find "nothing useful"? Calibrating the local model's threshold.

A search facade shows its recovery text (the groups that exist, the closest names) when
its ranker returns nothing. BM25 returns nothing only when no word is shared, so a
request about something the catalogue cannot do still gets tools that share a common
word; an embedding ranker always has a closest tool. ``local_embedder().threshold`` is
the cosine below which the best match counts as nothing useful. This benchmark measures,
for thresholds around it, on BFCL's development tasks only (number % 4 == 0, as
retrieval.py --dev):

- turns lost: the share of the user's turns whose best match is below the threshold
  (such a turn would get the recovery text instead of its tools);
- names lost: the share of tools that a query of their own name's words does not reach;
- unrelated caught: the share of 40 requests about things no catalogue here does (written
  for this benchmark) that get the recovery text.

and, for the shipped threshold, how often each ranker shows the recovery text for the
unrelated requests (bm25, embeddings, hybrid as ``searchable(..., ranker=...)`` builds it).

    python benchmarks/nothing_useful.py [--write] [--bfcl-data DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _report import machine_line, write_section
from retrieval import SHARED, CachedEmbed, bfcl, bfcl_distractors

import statetools as st
from statetools.search import EmbeddingRanker, documents_for, ranker_for
from statetools.tools.descriptions import words

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35)

UNRELATED = (
    "Write a short poem about autumn leaves falling in the park.",
    "What is the capital of Australia?",
    "Tell me a joke about penguins.",
    "How many minutes should I boil an egg for a soft yolk?",
    "Who painted the ceiling of the Sistine Chapel?",
    "Translate good morning into Italian.",
    "Give me three tips for sleeping better at night.",
    "What rhymes with orange?",
    "Explain the rules of chess castling.",
    "Suggest a name for my new puppy.",
    "How tall is Mount Everest?",
    "Summarize the plot of Romeo and Juliet in two sentences.",
    "What is the difference between a crocodile and an alligator?",
    "Recommend a good novel for a long train ride.",
    "How do I get red wine out of a carpet?",
    "Why is the sky blue?",
    "Compose a birthday greeting for my grandmother.",
    "What year did the Berlin Wall fall?",
    "Describe the taste of a mango to someone who never had one.",
    "How many legs does a spider have?",
    "Teach me a simple card trick.",
    "What should I plant in my garden in early spring?",
    "Is it healthy to drink coffee every day?",
    "Write a haiku about the ocean.",
    "What are some fun things to do on a rainy Sunday?",
    "How do bees make honey?",
    "Which planet has the most moons?",
    "Give me a recipe for pancakes without eggs.",
    "What does a violin bow use for its hair?",
    "Tell me something interesting about octopuses.",
    "How can I improve my handwriting?",
    "Who won the football world cup in 1998?",
    "What is the best way to learn to juggle?",
    "Describe a sunset over the desert.",
    "How do I knit a scarf?",
    "What's a good stretching routine after running?",
    "Why do cats purr?",
    "Invent a riddle about a lighthouse.",
    "How long does it take light from the sun to reach us?",
    "Plan a picnic menu for four friends.",
)


def best_scores(
    tools: Sequence[st.Tool], queries: Sequence[str], embed: CachedEmbed
) -> list[float]:
    """The cosine of each query's best match as the threshold sees it (the closer of the
    query without its quoted values and the whole query), no threshold."""
    ranker = EmbeddingRanker(embed, threshold=0.0)
    ranker.index(documents_for(tools))  # what a search facade of these tools indexes
    return [ranker.best(query) for query in queries]


def share(flags: Sequence[bool]) -> str:
    return f"{sum(flags) / len(flags):.3f}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the table to RESULTS.md")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    parser.add_argument("--bfcl-data", type=Path, help="BFCL's data folder (2,000-tool row)")
    args = parser.parse_args(argv)

    tools, turns = bfcl(args.shared)
    development = [words for number, (words, _) in turns if number % 4 == 0]
    catalogues = [(f"BFCL multi-turn classes ({len(tools)} tools)", tools)]
    if args.bfcl_data is not None:
        everything = tools + bfcl_distractors(args.bfcl_data, {t.name for t in tools})
        catalogues.append((f"BFCL, whole ({len(everything)} tools)", everything))
    embed = CachedEmbed()
    shipped = embed.threshold
    rows, decisions = [], []
    for title, catalogue in catalogues:
        names = [" ".join(words(t.name)) or t.name for t in catalogue]
        turn_best = best_scores(catalogue, development, embed)
        name_best = best_scores(catalogue, names, embed)
        unrelated_best = best_scores(catalogue, UNRELATED, embed)
        for threshold in THRESHOLDS:
            mark = " (shipped)" if threshold == shipped else ""
            row = (
                f"| {title} | {threshold}{mark} | {share([b < threshold for b in turn_best])} | "
                f"{share([b < threshold for b in name_best])} | "
                f"{share([b < threshold for b in unrelated_best])} |"
            )
            print(row, flush=True)
            rows.append(row)
        for name in ("bm25", "embeddings", "hybrid"):
            facade = st.UnfoldingTool.searchable(
                "find_tools", "Find tools", list(catalogue), ranker=ranker_for(name, embed=embed)
            )
            nothing = [not facade.search_index.rank(query, 5) for query in UNRELATED]
            development_nothing = [not facade.search_index.rank(query, 5) for query in development]
            row = f"| {title} | {name} | {share(nothing)} | {share(development_nothing)} |"
            print(row, flush=True)
            decisions.append(row)
    body = "\n".join(
        [
            '## Search by meaning: when a search finds "nothing useful"',
            "",
            "`local_embedder().threshold` is the cosine below which the best match of a query",
            "counts as nothing useful: the embeddings ranker then returns nothing, and so does",
            "the hybrid one (its embeddings ranker holds two thirds of its weight), and the",
            "search facade shows its recovery text (the groups, the closest names). Measured on",
            f"BFCL's {len(development)} development turns (tasks whose number is a multiple of 4)",
            "with the user's words of the turn (a query's best match: the closer of the query",
            "without its quoted values and the whole query, as the ranker tries them); 'names",
            "lost': queries made of a tool's own name",
            "whose best match is below; 'unrelated caught': share of 40 requests about nothing",
            "these catalogues do (written for this benchmark) whose best match is below. The",
            "shipped value is the largest of these that loses at most 2% of the development",
            "turns on either catalogue.",
            "",
            "| catalogue | threshold | turns lost | names lost | unrelated caught |",
            "|---|---|---|---|---|",
            *rows,
            "",
            "Share of searches that show the recovery text, per ranker, at the shipped threshold",
            "(BM25 shows it only when no word is shared):",
            "",
            "| catalogue | ranker | unrelated requests | development turns |",
            "|---|---|---|---|",
            *decisions,
            "",
            machine_line(),
            "",
            "`python benchmarks/nothing_useful.py --write --bfcl-data DIR` (DIR as for"
            " retrieval.py).",
        ]
    )
    if args.write:
        write_section("nothing_useful", body)


if __name__ == "__main__":
    main()
