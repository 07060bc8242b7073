"""Layered detail and the prompt cache: ``st.layered`` with the full tool swapped in (the
default) against the cache-safe form (``swap=False``), flat as the reference.

Run: ``python benchmarks/layered_cache.py [--catalogue NAME] [--limit N] [--write]``.

Each task of the shared catalogues (converted by ``convert.py``) runs through the real
:class:`~statetools.ToolLoop` with an oracle model that knows the task's ground-truth
calls: in the layered forms it asks ``tool_detail`` once for each tool before its first
call (the detail is then in the history, so once per task), then calls the tool with
the ground-truth arguments; a turn ends with a one-word answer and the next turn goes on
from the run's messages and state. Every tool answers ``ok``.

Measured is the **whole prompt** of every request as the OpenAI chat adapter builds it:
the ``tools`` entries followed by the messages (so the detail text, which the cache-safe
form delivers in a tool result, is counted, and so is the conversation a prefix break
re-bills). Cost uses the caching model of ``replay.billed``: each request reads from the
cache what it shares with the previous request up to the first changed entry (0.1x)
and writes the rest (1.25x). A prefix break is a request whose prompt differs from the
previous one before the previous one's end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section
from convert import BUILD, SHARED, convert_all
from replay import FAILING, FixedResultTool, Task, billed, prefix_breaks, read_tasks, read_tools

import statetools as st
from statetools.models import ModelCapabilities, ModelRequest, ModelResponse
from statetools.models.base import ToolDefinition
from statetools.models.openai_chat import OpenAIChatModel
from statetools.review.tokens import array_tokens, wire_json

CATALOGUES = {
    "bfcl": "BFCL multi-turn base",
    "tau_retail": "tau-bench retail",
    "tau_airline": "tau-bench airline",
    "github": "GitHub MCP server",
}
FORMS = ("flat", "layered", "layered, cache-safe")
DETAIL_TOOL = "tool_detail"
ADAPTER = OpenAIChatModel("gpt-4o-mini", api_key="not-used")
"""Builds the request bodies (no request is sent)."""


class Oracle:
    """Plays one turn's ground-truth calls, asking for a tool's detail before its first
    call when ``detail`` (the tools already detailed are shared by the task's turns).
    Keeps every request's prompt as wire entries."""

    capabilities = ModelCapabilities()

    def __init__(self, calls: Sequence[Any], detail: bool, detailed: set[str]) -> None:
        self.calls = list(calls)
        self.detail = detail
        self.detailed = detailed
        self.prompts: list[tuple[list[str], list[str]]] = []
        self.ids = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The next step of the turn (recording the request)."""
        body = ADAPTER.request_body(request)
        tools = [wire_json(entry) for entry in body.get("tools", [])]
        self.prompts.append((tools, [wire_json(message) for message in body["messages"]]))
        if not self.calls:
            return ModelResponse(st.AssistantMessage("done"))
        call = self.calls[0]
        if self.detail and call.name not in self.detailed:
            self.detailed.add(call.name)
            return self._call(DETAIL_TOOL, {"name": call.name})
        self.calls.pop(0)
        return self._call(call.name, dict(call.arguments))

    def _call(self, name: str, arguments: dict[str, Any]) -> ModelResponse:
        self.ids += 1
        message = st.AssistantMessage("", (st.ToolCall(f"c{self.ids}", name, arguments),))
        return ModelResponse(message, stop_reason="tool_use")


@attrs.frozen
class Run:
    """One task under one form."""

    requests: int
    tokens: int
    tool_tokens: int
    cost: float
    breaks: int
    detail_tokens: int
    """Tokens of the detail texts in tool results (the cache-safe form's price)."""
    refused: int
    """Calls answered with an error (arguments the real schema refuses)."""


def form_tools(form: str, catalogue: Sequence[ToolDefinition]) -> list[Any]:
    """The items of ``tools=[...]`` for one form of the catalogue."""
    tools = [
        FixedResultTool(
            name=t.name, description=t.description or t.name, input_schema=t.input_schema
        )
        for t in catalogue
    ]
    if form == "flat":
        return tools
    return st.layered(*tools, detail_tool=DETAIL_TOOL, swap=form == "layered")


def run_task(task: Task, items: Sequence[Any], detail: bool) -> Run:
    """Run ``task``'s turns through the loop; measure every request's whole prompt."""
    failing = {call.key for call in task.calls if call.fails}
    detailed: set[str] = set()
    prompts: list[tuple[list[str], list[str]]] = []
    messages: list[st.Message] = []
    state: st.DisclosureState | None = None
    for number, turn in enumerate(task.turns, start=1):
        oracle = Oracle(turn, detail, detailed)
        loop = st.ToolLoop(oracle, max_iterations=4 * len(turn) + 4, check_design=False)
        text = st.UserMessage(f"Turn {number}.")
        result = loop.run([*messages, text], tools=items, state=state, context={FAILING: failing})
        prompts += oracle.prompts
        messages, state = list(result.messages), result.state
    whole = [tools + chat for tools, chat in prompts]
    results = [m for m in messages if isinstance(m, st.ToolMessage)]
    detail_texts = [wire_json(m.content) for m in results if m.name == DETAIL_TOOL]
    refused = sum(1 for m in results if m.is_error and m.name != DETAIL_TOOL)
    return Run(
        requests=len(whole),
        tokens=sum(array_tokens(entries) for entries in whole),
        tool_tokens=sum(array_tokens(tools) for tools, _ in prompts),
        cost=billed(whole),
        breaks=prefix_breaks(whole),
        detail_tokens=array_tokens(detail_texts),
        refused=refused - sum(1 for call in task.calls if call.fails),
    )


def measure_catalogue(
    tools_file: Path, tasks_file: Path, limit: int | None
) -> dict[str, list[Run]]:
    """Every form's runs over the catalogue's tasks (the first ``limit``)."""
    catalogue = read_tools(tools_file)
    tasks = read_tasks(tasks_file)[:limit]
    runs: dict[str, list[Run]] = {}
    for form in FORMS:
        items = form_tools(form, catalogue)
        runs[form] = [run_task(task, items, detail=form != "flat") for task in tasks]
    return runs


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def table(label: str, runs: Mapping[str, Sequence[Run]]) -> list[str]:
    """The lines of one catalogue's table."""
    flat = runs["flat"]
    flat_cost = _mean([r.cost for r in flat])
    flat_requests = _mean([r.requests for r in flat])
    lines = [
        f"#### {label} ({len(flat)} tasks)",
        "",
        "| form | requests | prompt tokens | of which tools | detail in results | "
        "cost vs flat | prefix breaks | refused calls |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for form, measured in runs.items():
        requests = _mean([r.requests for r in measured])
        lines.append(
            f"| {form} | {requests:.2f} ({requests - flat_requests:+.2f}) | "
            f"{_mean([r.tokens for r in measured]):,.0f} | "
            f"{_mean([r.tool_tokens for r in measured]):,.0f} | "
            f"{_mean([r.detail_tokens for r in measured]):,.0f} | "
            f"{_mean([r.cost for r in measured]) / flat_cost:.3f} | "
            f"{_mean([r.breaks for r in measured]):.2f} | "
            f"{_mean([r.refused for r in measured]):.2f} |"
        )
    return [*lines, ""]


def report(tables: Sequence[list[str]], command: str) -> str:
    """The RESULTS.md section."""
    return "\n".join(
        [
            "## Layered detail and the prompt cache",
            "",
            f"Command: `{command}` (`benchmarks/layered_cache.py`). Each task runs through "
            "the real loop with an oracle model that asks `tool_detail` once per tool before "
            "its first call (layered forms) and then makes the ground-truth call; every tool "
            "answers `ok`. Figures are means per task over the **whole prompt** of every "
            "request (tools entries, then messages, as the OpenAI chat adapter sends them): "
            "*prompt tokens* summed over the requests, *of which tools* the tools arrays, "
            "*detail in results* the detail texts in the history at the end, *cost vs flat* "
            "under prompt caching (the previous request's prompt is read from the cache up "
            "to the first changed entry at 0.1x, the rest written at 1.25x), *prefix breaks* "
            "requests whose prompt changed before the previous one's end, *refused calls* "
            "ground-truth calls answered with an error because the real schema refuses "
            "their arguments (a base form checks them; 0 means the cache-safe form's calls "
            "of base forms all ran). *layered*: `st.layered(...)`, the full "
            "tool replaces its base form at the end of the tools array after its detail; "
            "*layered, cache-safe*: `st.layered(..., swap=False)`, the tools array never "
            "changes and the full parameters are in `tool_detail`'s answer only.",
            "",
            *(line for lines in tables for line in lines),
            "Providers cache only prompts of at least 1,024 tokens; below that every request "
            "is billed in full and only *prompt tokens* count.",
            "",
            machine_line(),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalogue", choices=[*CATALOGUES, "all"], default="all")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    parser.add_argument("--limit", type=int, default=None, help="the first N tasks of each")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    started = time.perf_counter()
    files = convert_all(args.shared, BUILD)
    chosen = list(CATALOGUES) if args.catalogue == "all" else [args.catalogue]
    tables = []
    for name in chosen:
        tools_file, tasks_file = files[name]
        tables.append(
            table(CATALOGUES[name], measure_catalogue(tools_file, tasks_file, args.limit))
        )
    command = (
        "python benchmarks/layered_cache.py --write"
        + (f" --catalogue {args.catalogue}" if args.catalogue != "all" else "")
        + (f" --limit {args.limit}" if args.limit else "")
    )
    body = report(tables, command)
    print(body)
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if args.write:
        write_section("layered_cache", body)


if __name__ == "__main__":
    main()
