"""Per-request overhead of the bridges against each framework's own tool filter.

Run: ``python benchmarks/bridges.py`` (``--write`` updates benchmarks/RESULTS.md).

One agent per framework, size and side, built once, runs 10 tool calls (one per model
request) and a final answer: 11 requests, driven by the framework's own offline test
model, which checks that each request carried exactly 10 tools and that each call's
answer was ``ok``. N tools are registered and 10 are visible. Both sides register the
same Python function, ``ok(q: str = "") -> str``, N times under the names t0..t{N-1}:

- with the bridge, as statetools tools (``Tool.from_function``) in a playbook whose
  N - 10 other tools wait for an unlock that never happens; the bridge filters each
  request, checks every call against the scheduler (a locked call never runs),
  validates its arguments against the tool's JSON schema, runs it and records it;
- with the framework's own filter, as the framework's own tools with a fixed set of
  10 names, the framework validating the arguments and running the function:

- pydantic-ai: ``StatetoolsCapability`` vs a ``FunctionToolset(...).filtered(...)``
  (``FilteredToolset``), and vs pydantic-ai's own filtering capability,
  ``PrepareTools`` (a capability, as ours is, so both pay pydantic-ai's dispatch of
  every hook to every capability);
- LangChain: ``StatetoolsMiddleware`` vs ``StructuredTool.from_function`` tools and a
  middleware whose ``wrap_model_call`` keeps the 10 names (the documented filter);
- openai-agents: ``StatetoolsTools`` vs ``function_tool`` tools whose ``is_enabled``
  checks the 10 names.

Runs of the two sides alternate (bridge, own, own, bridge, ...) so that load on the
machine falls on both alike; each figure is the fastest run's time / 11, in
milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st

SIZES = (10, 100, 500, 2_000)
CALLS = 10
VISIBLE = 10
REQUESTS = CALLS + 1
REPEATS = 21
SECONDS = 3.0
"""By default each side runs for at least this long at each size (many runs at small N)."""


def ok(q: str = "") -> str:
    """The tool every setup registers N times."""
    return "ok"


def names(n: int) -> list[str]:
    return [f"t{i}" for i in range(n)]


def design(n: int) -> list[Any]:
    """10 visible tools; the other N - 10 wait for a call of ``never_called``."""
    tools = [st.Tool.from_function(ok, name=name, description=f"Tool {name}") for name in names(n)]
    playbook = st.PlaybookTool("bench", "Benchmark tools").with_tools(*tools[:VISIBLE])
    for tool in tools[VISIBLE:]:
        playbook = playbook.with_tool(tool).unlocked_by("never_called")
    return [playbook]


@dataclasses.dataclass(frozen=True)
class Timing:
    """Both sides at one size: the fastest run of each (ms per request) and, for each
    round, the bridge's run divided by the framework's run next to it."""

    bridge_ms: float
    own_ms: float
    paired: tuple[float, ...]

    @property
    def ratio(self) -> float:
        """Fastest against fastest."""
        return self.bridge_ms / self.own_ms

    def paired_median(self) -> tuple[float, float, float]:
        """The median of the paired ratios, with a 95% bootstrap interval around it."""
        return median_interval(self.paired)


def median_interval(values: Sequence[float], resamples: int = 2_000) -> tuple[float, float, float]:
    """The median of ``values`` and the 2.5th and 97.5th percentiles of the medians of
    ``resamples`` resamples (drawn with a fixed seed, so a table can be written again).

    >>> median_interval([1.0, 1.0, 1.0])
    (1.0, 1.0, 1.0)
    """
    rng = random.Random(0)
    medians = sorted(
        statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples)
    )
    return (
        statistics.median(values),
        medians[int(resamples * 0.025)],
        medians[int(resamples * 0.975) - 1],
    )


def interleaved(
    bridge: Callable[[], Any], own: Callable[[], Any], repeats: int, seconds: float
) -> Timing:
    """At least ``repeats`` rounds of one run of each side, and more until each side has
    run for ``seconds``; the sides alternate (bridge, own, own, bridge, ...), after one
    warm-up run each."""
    bridge()
    own()
    times: tuple[list[float], list[float]] = ([], [])
    index = 0
    while index < repeats or min(sum(t) for t in times) * REQUESTS < seconds * 1000:
        order = ((0, bridge), (1, own)) if index % 2 == 0 else ((1, own), (0, bridge))
        for side, run in order:
            gc.collect()
            start = time.perf_counter()
            run()
            times[side].append((time.perf_counter() - start) * 1000 / REQUESTS)
        index += 1
    paired = tuple(b / o for b, o in zip(*times, strict=True))
    return Timing(min(times[0]), min(times[1]), paired)


# pydantic-ai -------------------------------------------------------------------------


def pydantic_ai(n: int, repeats: int, seconds: float = 0.0) -> Timing:
    return _pydantic_ai(n, repeats, seconds, prepare=False)


def pydantic_ai_prepare(n: int, repeats: int, seconds: float = 0.0) -> Timing:
    return _pydantic_ai(n, repeats, seconds, prepare=True)


def _pydantic_ai(n: int, repeats: int, seconds: float, *, prepare: bool) -> Timing:
    from pydantic_ai import Agent
    from pydantic_ai.capabilities import PrepareTools
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.tools import Tool as PaiTool
    from pydantic_ai.toolsets import FunctionToolset

    from statetools.integrations.pydantic_ai import StatetoolsCapability

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        assert len(info.function_tools) == VISIBLE
        step = sum(isinstance(m, ModelResponse) for m in messages)
        if step:
            last = messages[-1]
            assert isinstance(last, ModelRequest)
            assert last.parts[-1].content == "ok"
        if step < CALLS:
            return ModelResponse(parts=[ToolCallPart("t0", {"q": "x"}, tool_call_id=f"c{step}")])
        return ModelResponse(parts=[TextPart("done")])

    shown = set(names(VISIBLE))
    toolset = FunctionToolset(
        [PaiTool(ok, name=name, description=f"Tool {name}", takes_ctx=False) for name in names(n)]
    )
    if prepare:  # the capability pydantic-ai has for filtering tool definitions per request

        def keep(ctx: Any, definitions: list[Any]) -> list[Any]:
            return [d for d in definitions if d.name in shown]

        own = Agent(FunctionModel(model), toolsets=[toolset], capabilities=[PrepareTools(keep)])
    else:
        own = Agent(FunctionModel(model), toolsets=[toolset.filtered(lambda c, d: d.name in shown)])
    bridge = Agent(FunctionModel(model), capabilities=[StatetoolsCapability(design(n))])
    return interleaved(lambda: bridge.run_sync("go"), lambda: own.run_sync("go"), repeats, seconds)


# LangChain ---------------------------------------------------------------------------


def langchain(n: int, repeats: int, seconds: float = 0.0) -> Timing:
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import StructuredTool

    from statetools.integrations.langchain import StatetoolsMiddleware

    class Chat(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "bench"

        def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
            return self.bind(tool_names=[t.name for t in tools], **kwargs)

        def _generate(self, messages: list[Any], stop: Any = None, **kwargs: Any) -> ChatResult:
            assert len(kwargs["tool_names"]) == VISIBLE
            step = sum(isinstance(m, AIMessage) for m in messages)
            if step:
                assert isinstance(messages[-1], ToolMessage)
                assert messages[-1].content == "ok"
            if step < CALLS:
                call = {"name": "t0", "args": {"q": "x"}, "id": f"c{step}"}
                message = AIMessage(content="", tool_calls=[call])
            else:
                message = AIMessage(content="done")
            return ChatResult(generations=[ChatGeneration(message=message)])

    shown = set(names(VISIBLE))

    class Filter(AgentMiddleware):  # type: ignore[type-arg]
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(tools=[t for t in request.tools if t.name in shown]))

    tools = [
        StructuredTool.from_function(func=ok, name=name, description=f"Tool {name}")
        for name in names(n)
    ]
    own = create_agent(Chat(), tools=tools, middleware=[Filter()])
    middleware = StatetoolsMiddleware(design(n))
    bridge = create_agent(Chat(), tools=middleware.tools, middleware=[middleware])
    prompt = {"messages": [HumanMessage("go")]}
    return interleaved(lambda: bridge.invoke(prompt), lambda: own.invoke(prompt), repeats, seconds)


# openai-agents -----------------------------------------------------------------------


def openai_agents(n: int, repeats: int, seconds: float = 0.0) -> Timing:
    from agents import Agent, ModelResponse, RunConfig, Runner, Usage, function_tool
    from agents.models.interface import Model
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    from statetools.integrations.openai_agents import StatetoolsTools

    class Scripted(Model):
        async def get_response(
            self, system_instructions: Any, input: Any, model_settings: Any, tools: Any, **k: Any
        ) -> ModelResponse:
            assert len(tools) == VISIBLE
            step = sum(1 for i in input if isinstance(i, dict) and i.get("type") == "function_call")
            if step:
                assert input[-1]["type"] == "function_call_output"
                assert input[-1]["output"] == "ok"
            if step < CALLS:
                output: list[Any] = [
                    ResponseFunctionToolCall(
                        type="function_call",
                        name="t0",
                        arguments=json.dumps({"q": "x"}),
                        call_id=f"c{step}",
                        status="completed",
                    )
                ]
            else:
                text = ResponseOutputText(type="output_text", text="done", annotations=[])
                output = [
                    ResponseOutputMessage(
                        id="m", type="message", role="assistant", status="completed", content=[text]
                    )
                ]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    shown = set(names(VISIBLE))

    def enabled(name: str) -> Callable[[Any, Any], bool]:
        return lambda context, agent: name in shown

    tools = [
        function_tool(
            ok,
            name_override=name,
            description_override=f"Tool {name}",
            is_enabled=enabled(name),
            strict_mode=False,
        )
        for name in names(n)
    ]
    turns = REQUESTS + 1
    own = Agent(name="own", model=Scripted(), tools=tools)
    statetools_tools = StatetoolsTools(design(n))
    bridge = Agent(name="bridge", model=Scripted(), tools=statetools_tools.tools)
    quiet = RunConfig(tracing_disabled=True)
    config = dataclasses.replace(statetools_tools.run_config, tracing_disabled=True)
    hooks = statetools_tools.hooks
    loop = asyncio.new_event_loop()  # one event loop for every run of both sides
    try:
        return interleaved(
            lambda: loop.run_until_complete(
                Runner.run(bridge, "go", hooks=hooks, run_config=config, max_turns=turns)
            ),
            lambda: loop.run_until_complete(
                Runner.run(own, "go", run_config=quiet, max_turns=turns)
            ),
            repeats,
            seconds,
        )
    finally:
        loop.close()


FRAMEWORKS: list[tuple[str, str, Callable[[int, int, float], Timing]]] = [
    ("pydantic-ai", "`FilteredToolset`", pydantic_ai),
    ("pydantic-ai", "`PrepareTools` capability", pydantic_ai_prepare),
    ("LangChain", "`wrap_model_call` filter", langchain),
    ("openai-agents", "`is_enabled`", openai_agents),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--seconds", type=float, default=SECONDS)
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    rows = []
    for framework, own_name, measure in FRAMEWORKS:
        for n in args.sizes:
            timing = measure(n, args.repeats, args.seconds)
            rows.append((framework, own_name, n, timing))
            middle, low, high = timing.paired_median()
            print(
                f"{framework:14} N={n:5}  bridge {timing.bridge_ms:7.3f} ms  "
                f"own {timing.own_ms:7.3f} ms  ratio {timing.ratio:.3f}  "
                f"paired {middle:.3f} [{low:.3f}, {high:.3f}] ({len(timing.paired)} rounds)"
            )
    lines = [
        "## Bridges: per-request overhead against each framework's own filter",
        "",
        machine_line(),
        "",
        "`python benchmarks/bridges.py --write`: one run of 10 tool calls and a final answer "
        "(11 requests) inside each framework, driven by its own offline test model, which "
        "checks that each request carried exactly 10 tools and each call's answer was `ok`. "
        "N tools registered, 10 visible. Both sides register the same Python function "
        '`ok(q: str = "") -> str` N times (t0..t{N-1}) and run it the framework\'s usual way '
        "for a synchronous function (anyio's worker threads in pydantic-ai, `asyncio.to_thread` "
        "in openai-agents, LangGraph's tool thread in LangChain's `invoke`):",
        "",
        "- **statetools bridge**: the N tools as statetools tools in a playbook whose N - 10 "
        "others wait for an unlock that never happens; the bridge filters each request to "
        "the visible tools, checks each call against the scheduler (a locked call would not "
        "run), validates its arguments against the tool's JSON schema, runs it and records it "
        "(counts, unlocks, announcement line).",
        "- **framework's filter**: the framework's own tools "
        "(pydantic-ai `Tool` in a `FunctionToolset(...).filtered(...)`, or in a plain "
        "`FunctionToolset` with pydantic-ai's `PrepareTools` capability keeping the 10 "
        "names: a capability, as ours is, so both sides pay pydantic-ai's dispatch of every "
        "hook to every capability, a `RunContext` copy each; LangChain "
        "`StructuredTool.from_function` and a middleware whose `wrap_model_call` keeps the "
        "10 names; openai-agents `function_tool` with `is_enabled` checking the 10 names); "
        "the framework validates the arguments (pydantic) and runs the function; nothing "
        "is enforced or recorded.",
        "",
        "Runs of the two sides alternate (bridge, filter, filter, bridge, ...) after one "
        f"warm-up run each, so load on the machine falls on both alike; each side runs at "
        f"least {args.repeats} times and for at least {args.seconds:g} s at each size. Times "
        "are milliseconds per request, each side's fastest run; **ratio** = bridge / "
        "framework's filter, fastest against fastest. **Paired ratio**: each round's bridge "
        "run divided by the filter run next to it, the median over all rounds, and in "
        "brackets the 95% interval of that median (2,000 bootstrap resamples): an interval "
        "that contains 1.00 means the two sides could not be told apart on this machine. "
        "Load average (1 min) of the machine, shared with other work: "
        f"{load_before:.2f} when the run started, {os.getloadavg()[0]:.2f} when it ended.",
        "",
        "| framework | N | statetools bridge (ms) | framework's filter | filter (ms) | ratio "
        "| paired ratio [95%] | rounds |",
        "|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for framework, own_name, n, timing in rows:
        middle, low, high = timing.paired_median()
        lines.append(
            f"| {framework} | {n:,} | {timing.bridge_ms:.3f} | {own_name} | {timing.own_ms:.3f} "
            f"| {timing.ratio:.2f} | {middle:.3f} [{low:.3f}, {high:.3f}] "
            f"| {len(timing.paired)} |"
        )
    if args.write:
        write_section("bridges", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
