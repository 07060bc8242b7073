"""Per-request overhead of the bridges against each framework's own tool filter.

Run: ``python benchmarks/bridges.py`` (``--write`` updates benchmarks/RESULTS.md).

One agent per framework and size, built once, runs 10 tool calls (one per model
request) and a final answer: 11 requests, driven by the framework's own offline test
model. N tools are registered and 10 are visible: with the bridge, a playbook whose
N - 10 other tools wait for an unlock that never happens; with the framework's own
filter, the same N tools and a fixed set of 10 names:

- pydantic-ai: ``StatetoolsCapability`` vs a ``FunctionToolset(...).filtered(...)``
  (``FilteredToolset``);
- LangChain: ``StatetoolsMiddleware`` vs a middleware whose ``wrap_model_call`` keeps
  the 10 names (the documented filter);
- openai-agents: ``StatetoolsTools`` vs function tools whose ``is_enabled`` checks
  the 10 names.

Each figure is the fastest of repeated runs of (run time / 11), in milliseconds. The
bridge also enforces and records every call (the framework's filter does neither).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st

SIZES = (10, 100, 500, 2_000)
CALLS = 10
VISIBLE = 10
REQUESTS = CALLS + 1


def design(n: int) -> list[Any]:
    """10 visible tools; the other N - 10 wait for a call of ``never_called``."""
    schema = st.InputSchema.of(st.Parameter.string("q", "Query", required=False))
    tools = [
        st.Tool.create(f"t{i}", f"Tool {i}", lambda q="": "ok", schema=schema) for i in range(n)
    ]
    playbook = st.PlaybookTool("bench", "Benchmark tools").with_tools(*tools[:VISIBLE])
    for tool in tools[VISIBLE:]:
        playbook = playbook.with_tool(tool).unlocked_by("never_called")
    return [playbook]


def names(n: int) -> list[str]:
    return [f"t{i}" for i in range(n)]


SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


def best(run: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000 / REQUESTS)
    return min(times)


async def best_async(run: Callable[[], Awaitable[Any]], repeats: int) -> float:
    await run()  # warm up, as best() does through its repeats
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        await run()
        times.append((time.perf_counter() - start) * 1000 / REQUESTS)
    return min(times)


# pydantic-ai -------------------------------------------------------------------------


def pydantic_ai(n: int, repeats: int) -> tuple[float, float]:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.tools import Tool as PaiTool
    from pydantic_ai.toolsets import FunctionToolset

    from statetools.integrations.pydantic_ai import StatetoolsCapability

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        assert len(info.function_tools) == VISIBLE
        step = sum(isinstance(m, ModelResponse) for m in messages)
        if step < CALLS:
            return ModelResponse(parts=[ToolCallPart("t0", {"q": "x"}, tool_call_id=f"c{step}")])
        return ModelResponse(parts=[TextPart("done")])

    def ok(q: str = "") -> str:
        return "ok"

    shown = set(names(VISIBLE))
    toolset = FunctionToolset([PaiTool(ok, name=name, takes_ctx=False) for name in names(n)])
    own = Agent(FunctionModel(model), toolsets=[toolset.filtered(lambda c, d: d.name in shown)])
    bridge = Agent(FunctionModel(model), capabilities=[StatetoolsCapability(design(n))])
    return (
        best(lambda: bridge.run_sync("go"), repeats),
        best(lambda: own.run_sync("go"), repeats),
    )


# LangChain ---------------------------------------------------------------------------


def langchain(n: int, repeats: int) -> tuple[float, float]:
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, HumanMessage
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

    def ok(q: str = "") -> str:
        return "ok"

    tools = [
        StructuredTool.from_function(func=ok, name=name, description=f"Tool {name}")
        for name in names(n)
    ]
    own = create_agent(Chat(), tools=tools, middleware=[Filter()])
    middleware = StatetoolsMiddleware(design(n))
    bridge = create_agent(Chat(), tools=middleware.tools, middleware=[middleware])
    prompt = {"messages": [HumanMessage("go")]}
    return (
        best(lambda: bridge.invoke(prompt), repeats),
        best(lambda: own.invoke(prompt), repeats),
    )


# openai-agents -----------------------------------------------------------------------


def openai_agents(n: int, repeats: int) -> tuple[float, float]:
    from agents import Agent, FunctionTool, ModelResponse, RunConfig, Runner, Usage
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

    async def ok(context: Any, arguments: str) -> str:
        return "ok"

    def enabled(name: str) -> Callable[[Any, Any], bool]:
        return lambda context, agent: name in shown

    tools = [
        FunctionTool(
            name=name,
            description=f"Tool {name}",
            params_json_schema=SCHEMA,
            on_invoke_tool=ok,
            strict_json_schema=False,
            is_enabled=enabled(name),
        )
        for name in names(n)
    ]
    quiet = RunConfig(tracing_disabled=True)
    turns = REQUESTS + 1
    own = Agent(name="own", model=Scripted(), tools=tools)
    statetools_tools = StatetoolsTools(design(n))
    bridge = Agent(name="bridge", model=Scripted(), tools=statetools_tools.tools)
    config = dataclasses.replace(statetools_tools.run_config, tracing_disabled=True)

    async def both() -> tuple[float, float]:
        # one event loop for every run: asyncio.run per run would time its own set-up
        bridge_ms = await best_async(
            lambda: Runner.run(
                bridge, "go", hooks=statetools_tools.hooks, run_config=config, max_turns=turns
            ),
            repeats,
        )
        own_ms = await best_async(
            lambda: Runner.run(own, "go", run_config=quiet, max_turns=turns), repeats
        )
        return bridge_ms, own_ms

    return asyncio.run(both())


FRAMEWORKS: dict[str, tuple[str, Callable[[int, int], tuple[float, float]]]] = {
    "pydantic-ai": ("`FilteredToolset`", pydantic_ai),
    "LangChain": ("`wrap_model_call` filter", langchain),
    "openai-agents": ("`is_enabled`", openai_agents),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    args = parser.parse_args()
    rows = []
    for framework, (own_name, measure) in FRAMEWORKS.items():
        for n in args.sizes:
            bridge_ms, own_ms = measure(n, args.repeats)
            rows.append((framework, own_name, n, bridge_ms, own_ms))
            print(f"{framework:14} N={n:5}  bridge {bridge_ms:7.3f} ms  own {own_ms:7.3f} ms")
    lines = [
        "## Bridges: per-request overhead against each framework's own filter",
        "",
        machine_line(),
        "",
        "`python benchmarks/bridges.py --write`: one run of 10 tool calls and a final answer "
        "(11 requests) inside each framework, with its own offline test model; N tools "
        "registered, 10 visible. Milliseconds per request (fastest of "
        f"{args.repeats} runs); ratio = bridge / framework's filter. The bridge also "
        "enforces and records every call.",
        "",
        "| framework | N | statetools bridge (ms) | framework's filter | filter (ms) | ratio |",
        "|---|---:|---:|---|---:|---:|",
    ]
    for framework, own_name, n, bridge_ms, own_ms in rows:
        lines.append(
            f"| {framework} | {n:,} | {bridge_ms:.3f} | {own_name} | {own_ms:.3f} | "
            f"{bridge_ms / own_ms:.2f} |"
        )
    if args.write:
        write_section("bridges", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
