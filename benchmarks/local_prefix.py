"""The prompt cache of a local server (llama.cpp's ``llama-server``) under the
``tools`` and ``stable_prefix`` disclosure modes of ``OpenAIChatModel``, flat as the
reference.

Measuring needs a running server, so ``make bench`` only copies the committed results
(``benchmarks/local_prefix.md``, written by ``--save``) into RESULTS.md (``--write``).
Run::

    llama-server -m MODEL.gguf --jinja --host 127.0.0.1 --port 8091 -c 8192 -t 1 -tb 2 -np 1
    python benchmarks/local_prefix.py --base-url http://127.0.0.1:8091 --save

A small design written here (two facades, a file one and a mail one, and a notes tool)
runs one scripted conversation in each condition through the real loop and the real
adapter: the request body the adapter builds is sent to the server with ``max_tokens``
1, and the scripted step answers it (the same calls in every condition but flat, which
has no facades to open). What is measured is the server's own report of each request
(``timings``): the prompt tokens it had to process (``prompt_n``), the ones it took
from its cache (``cache_n``) and the time it took. A system prompt naming the run and
the condition makes each condition start cold.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st
from statetools.models import ModelCapabilities, ModelRequest, ModelResponse, OpenAIChatModel


@st.llm_tool("List the files of a folder.")
def ls(path: str) -> str:
    return "report.txt notes.txt"


@st.llm_tool("Show the text of a file.")
def cat(name: str) -> str:
    return "Q3 revenue grew 4%."


@st.llm_tool("Find the lines of the files that hold a word.")
def grep(word: str, path: str = ".") -> str:
    return "report.txt: revenue"


@st.llm_tool("Send an email.")
def send_mail(to: str, subject: str, body: str) -> str:
    return "sent"


@st.llm_tool("Read the newest emails of the inbox.")
def read_inbox(count: int = 5) -> str:
    return "1 new email from ann@example.org: 'Q3 numbers?'"


@st.llm_tool("Keep a note for later.")
def note(text: str) -> str:
    return "noted"


def design() -> list[Any]:
    files = st.Facade.of("files", "Open the file tools.", [ls, cat, grep])
    mail = st.Facade.of("mail", "Open the mail tools.", [send_mail, read_inbox])
    return [files, mail, note]


def flat() -> list[Any]:
    return [ls, cat, grep, send_mail, read_inbox, note]


SCRIPT: tuple[tuple[str, dict[str, Any]] | str, ...] = (
    ("files", {}),
    ("ls", {"path": "."}),
    ("cat", {"name": "report.txt"}),
    ("mail", {}),
    ("read_inbox", {}),
    ("send_mail", {"to": "ann@example.org", "subject": "Q3", "body": "Revenue grew 4%."}),
    "I told Ann that Q3 revenue grew 4%.",
)
FACADES = ("files", "mail")
SAVED = Path(__file__).with_name("local_prefix.md")
"""The committed results (measuring needs the server)."""
PROMPT = "Ann asked about the Q3 numbers: read the report and answer her by email."


@attrs.frozen
class Served:
    """The server's report of one request."""

    processed: int
    cached: int
    prompt_ms: float


class Probe:
    """A model that sends each request's real body to the server (one token of answer)
    and answers with the script's next step; keeps the server's report of each."""

    def __init__(
        self,
        adapter: OpenAIChatModel,
        client: httpx.Client,
        url: str,
        script: Sequence[tuple[str, dict[str, Any]] | str],
    ) -> None:
        self.adapter = adapter
        self.client = client
        self.url = url
        self.steps = list(script)
        self.served: list[Served] = []
        self.calls = 0

    @property
    def capabilities(self) -> ModelCapabilities:
        """The adapter's (so the loop passes the catalogue in the stable_prefix mode)."""
        return self.adapter.capabilities

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send the body; answer with the next step of the script."""
        body = {**self.adapter.request_body(request), "max_tokens": 1, "temperature": 0}
        reply = await asyncio.to_thread(self.client.post, self.url, json=body)
        reply.raise_for_status()
        timings = reply.json()["timings"]
        self.served.append(
            Served(int(timings["prompt_n"]), int(timings.get("cache_n", 0)), timings["prompt_ms"])
        )
        step = self.steps.pop(0)
        if isinstance(step, str):
            return ModelResponse(st.AssistantMessage(step))
        self.calls += 1
        call = st.ToolCall(f"call_{self.calls}", step[0], step[1])
        return ModelResponse(st.AssistantMessage("", (call,)), stop_reason="tool_use")


def run(condition: str, base_url: str, client: httpx.Client, run_id: str) -> list[Served]:
    """One condition's conversation; the server's report of each request. The system
    prompt names the condition and ``run_id``, so the server has nothing of it cached
    (llama-server also keeps earlier prompts in host memory)."""
    mode = "stable_prefix" if condition == "stable_prefix" else "tools"
    adapter = OpenAIChatModel("local", base_url=f"{base_url}/v1", api_key="local", disclosure=mode)
    url = f"{base_url}/v1/chat/completions"
    script = [s for s in SCRIPT if condition != "flat" or s[0] not in FACADES]
    probe = Probe(adapter, client, url, script)
    tools = flat() if condition == "flat" else design()
    system = f"You are an office assistant (run {run_id}, {condition})."
    result = st.ToolLoop(probe, system_prompt=system).run(PROMPT, tools=tools)
    expected = [step[0] for step in script if not isinstance(step, str)]
    ran = [e.name for e in result.trace if e.type == "tool_called"]
    if ran != expected:
        raise SystemExit(f"{condition}: the calls that ran were {ran}, not {expected}")
    return probe.served


def table(results: dict[str, list[Served]]) -> list[str]:
    """One row per condition."""
    lines = [
        "| condition | requests | prompt tokens processed | of which the first request | "
        "taken from the cache | prompt time (s) | after the first request (s) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for condition, served in results.items():
        lines.append(
            f"| {condition} | {len(served)} | {sum(s.processed for s in served):,} | "
            f"{served[0].processed:,} | {sum(s.cached for s in served):,} | "
            f"{sum(s.prompt_ms for s in served) / 1000:.1f} | "
            f"{sum(s.prompt_ms for s in served[1:]) / 1000:.1f} |"
        )
    return lines


def per_request(results: dict[str, list[Served]]) -> list[str]:
    """Prompt tokens processed, request by request."""
    return [
        f"- {condition}: {', '.join(str(s.processed) for s in served)}"
        for condition, served in results.items()
    ]


def report(results: dict[str, list[Served]], server: str, seconds: Sequence[float]) -> str:
    """The RESULTS.md section."""
    return "\n".join(
        [
            "## A local server's prompt cache: the stable_prefix mode (llama.cpp)",
            "",
            "Command: `python benchmarks/local_prefix.py --base-url URL --save` against "
            f"{server}; `make bench` copies this section from `benchmarks/local_prefix.md` "
            "(measuring needs the server). One scripted "
            "conversation of 7 requests (open the file tools, list, read a file, open the "
            "mail tools, read the inbox, send an email, answer; flat, which has no facades "
            "to open, makes the other 5) through the real loop and `OpenAIChatModel`; each "
            "request's body is sent with `max_tokens` 1 and the script answers it, so the "
            "disclosed conditions send the same conversation. Figures are "
            "the server's own `timings` (`prompt_n`, `cache_n`, `prompt_ms`); each condition "
            "starts cold (its system prompt names the run and the condition, so nothing of it "
            "is cached). *flat*: the six tools in every request; *tools*: "
            "the default mode (the array changes when a facade opens); *stable_prefix*: "
            '`OpenAIChatModel(disclosure="stable_prefix")`.',
            "",
            *table(results),
            "",
            "Prompt tokens processed per request:",
            "",
            *per_request(results),
            "",
            f"Condition times (s): {', '.join(f'{s:.0f}' for s in seconds)}. " + machine_line(),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8091", help="the server")
    parser.add_argument("--server", default="llama-server", help="what the server is")
    parser.add_argument(
        "--save", action="store_true", help="write local_prefix.md and benchmarks/RESULTS.md"
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="only copy the committed results (local_prefix.md) into RESULTS.md",
    )
    args = parser.parse_args()
    if args.write:
        write_section("local_prefix", SAVED.read_text(encoding="utf-8"))
        return
    results: dict[str, list[Served]] = {}
    seconds = []
    run_id = f"{time.time():.0f}"
    with httpx.Client(timeout=900.0) as client:
        for condition in ("flat", "tools", "stable_prefix"):
            started = time.perf_counter()
            results[condition] = run(condition, args.base_url, client, run_id)
            seconds.append(time.perf_counter() - started)
            print(condition, json.dumps([attrs.asdict(s) for s in results[condition]]))
    body = report(results, args.server, seconds)
    print(body)
    print(statistics.fmean(seconds), file=sys.stderr)
    if args.save:
        SAVED.write_text(body + "\n", encoding="utf-8")
        write_section("local_prefix", body)


if __name__ == "__main__":
    main()
