"""What saving a search facade's embeddings saves: the first search of a new definition.

A search facade with ``ranker="hybrid"`` embeds every tool's text on its first search.
With ``vectors=FILE`` the first definition embeds and saves them, and every later
definition (a new process, a reloaded design) reads them back. This measures the first
search's index time both ways, and the file's size, on the BFCL catalogues of
``retrieval.py``, with ``st.search.local_embedder()``.

    python benchmarks/saved_vectors.py [--write] [--bfcl-data DIR]

CPU time of this process on one core (BLAS on one thread, pinned to one CPU).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _report import machine_line, write_section
from retrieval import SHARED, bfcl, bfcl_distractors

import statetools as st

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"


def first_search(tools: Sequence[st.Tool], vectors: Path) -> float:
    """CPU seconds of a new definition's index build (its first search)."""
    facade = st.UnfoldingTool.searchable(
        "find_tools", "Find tools", list(tools), ranker="hybrid", vectors=str(vectors)
    )
    started = time.process_time()
    facade.search_index.rank("list the files", 5)
    return time.process_time() - started


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the table to RESULTS.md")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    parser.add_argument("--bfcl-data", type=Path, help="BFCL's data folder (2,000-tool row)")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    tools, _ = bfcl(args.shared)
    catalogues = [(f"BFCL multi-turn classes ({len(tools)} tools)", tools)]
    if args.bfcl_data is not None:
        everything = tools + bfcl_distractors(args.bfcl_data, {t.name for t in tools})
        catalogues.append((f"BFCL, whole ({len(everything)} tools)", everything))
    first_search(tools[:2], Path(tempfile.mkdtemp()) / "warm.json")  # loads the model once
    rows = []
    for title, catalogue in catalogues:
        path = Path(tempfile.mkdtemp()) / "find_tools.vectors.json"
        embedded = first_search(catalogue, path)
        reloaded = first_search(catalogue, path)
        size = path.stat().st_size
        row = (
            f"| {title} | {embedded:.2f} | {reloaded:.3f} | {size / 1000:,.0f} kB "
            f"({size / len(catalogue):,.0f} bytes per tool) |"
        )
        print(row, flush=True)
        rows.append(row)
    body = "\n".join(
        [
            "## Search embeddings saved with the design",
            "",
            'The first search of a new `searchable(..., ranker="hybrid", vectors=FILE)` '
            "definition: CPU seconds on one core to embed every tool's text and save it "
            "(no file yet), and to read the vectors back (the file written by the first; "
            "BM25's index is built both times), with `st.search.local_embedder()`.",
            "",
            "| catalogue | embedded and saved (s) | reloaded (s) | file |",
            "|---|---|---|---|",
            *rows,
            "",
            machine_line(),
            "",
            "`python benchmarks/saved_vectors.py --write --bfcl-data DIR`",
        ]
    )
    print(body)
    if args.write:
        write_section("saved vectors", body)


if __name__ == "__main__":
    main()
