"""Example requests for BFCL's multi-turn tools, written by a local model.

Asks a model behind an OpenAI-compatible server (here llama.cpp's ``llama-server``
serving Qwen2.5-Coder-1.5B-Instruct Q4_K_M) for up to ``--per-tool`` requests per tool
with ``st.search.example_requests`` and writes them as JSON (tool name -> requests),
which ``retrieval.py --example-requests FILE`` reads. The requests are written from the
tools' own descriptions, which are others' work: keep the file outside the repository.

Start the server afresh for each run. Each request asks llama.cpp not to reuse its
prompt cache (``cache_prompt: false``): with the cache, at temperature 0 its answers
depended on what it had answered before (a second run on the same server found 0.79 of
the development turns instead of 0.82). Even so the answers vary a little from run to
run: two runs of three tools agreed with each other and not with the whole run before
them (the figures in RESULTS.md come from a freshly started ``llama-server -t 2 -c 4096
-np 1``, the first run on it).

    python benchmarks/example_requests.py --base-url http://127.0.0.1:8080/v1 --out FILE
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrieval import SHARED, bfcl

from statetools.search import example_requests


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", required=True, help="the server's /v1 address")
    parser.add_argument("--model", default="local", help="the model name the server takes")
    parser.add_argument("--per-tool", type=int, default=4, help="requests per tool")
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    args = parser.parse_args(argv)

    tools, _ = bfcl(args.shared)
    started = time.monotonic()
    asked = example_requests(
        tools,
        f"openai-chat:{args.model}",
        per_tool=args.per_tool,
        concurrency=1,
        model_options={
            "base_url": args.base_url,
            "api_key": "local",
            "extra_body": {"cache_prompt": False},  # llama.cpp's own option
        },
    )
    args.out.write_text(json.dumps(asked, indent=1) + "\n")
    written = sum(len(requests) for requests in asked.values())
    print(
        f"{written} requests for {len(asked)} tools "
        f"({sum(not r for r in asked.values())} without any) "
        f"in {time.monotonic() - started:.0f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
