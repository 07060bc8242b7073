"""statetools: progressive tool disclosure for LLM agents.

Show the model only the tools it needs now, and reveal more as the work proceeds::

    import statetools as st

    model = st.models.ScriptedModel([("add", {"a": 2, "b": 3}), "5"])
    result = st.ToolLoop(model).run("2 + 3?", tools=[st.Tool.from_function(add)])
    print(result.output)
"""

from typing import TYPE_CHECKING, Any

from statetools import models
from statetools.blackboard import Blackboard
from statetools.definitions.chaining import Chaining
from statetools.definitions.conditions import (
    After,
    AllOf,
    AnyOf,
    Condition,
    ConditionView,
    InState,
    OnArtifact,
    OnBlackboard,
    When,
)
from statetools.definitions.items import as_tool, tools_from_instance, tools_from_module
from statetools.definitions.layered import layered
from statetools.definitions.machine import StateMachineTool, Transition
from statetools.definitions.moves import Move
from statetools.definitions.playbook import PlaybookTool, Unlock
from statetools.definitions.unfolding import Facade, Unfolded, UnfoldingTool
from statetools.engine.events import (
    Event,
    Listener,
    NestedEvent,
    Trace,
)
from statetools.engine.graph import DisclosureGraph, disclosure_graph
from statetools.engine.run_result import LoopResult, StreamEvent, TextDelta, ToolCallStarted
from statetools.engine.scheduler import Blocked, Changes, Injected, Scheduler, StateChange
from statetools.engine.state import DisclosureState, LoopCounters
from statetools.engine.strategies import (
    ChainedStrategy,
    Injection,
    InjectionContext,
    ToolInjectionStrategy,
)
from statetools.errors import (
    DefinitionError,
    MaxIterationsExceeded,
    OutputValidationError,
    ProviderError,
    RestartLimitExceeded,
    RunAborted,
    RunError,
    ScriptExhaustedError,
    SpecError,
    StatetoolsError,
    ToolNotFoundError,
)
from statetools.loop.sessions import SavedRun, SessionStore
from statetools.loop.streaming import RunStream
from statetools.loop.toolloop import SimpleAgenticTool, ToolLoop
from statetools.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    messages_from_json,
    messages_to_json,
)
from statetools.tools.calling import ToolResult
from statetools.tools.context import ToolCallContext
from statetools.tools.decorators import llm_tool, tool_provider, unfolding_tools
from statetools.tools.examples import example_arguments
from statetools.tools.schema import InputSchema, Param, Parameter
from statetools.tools.tool import BaseTool, Tool, ToolMetadata
from statetools.tools.wrappers import (
    ArtifactSink,
    ArtifactSinkingTool,
    BlackboardSink,
    CompositeSink,
    DelegatingTool,
    ListSink,
    OneShotPerLoopTool,
    WrapperTool,
    unwrap,
)

if TYPE_CHECKING:
    from statetools import mcp as mcp
    from statetools import testing as testing
    from statetools.code import CodeMode as CodeMode
    from statetools.durable import SessionInfo as SessionInfo
    from statetools.durable import SqliteStore as SqliteStore
    from statetools.evaluation import EvalReport as EvalReport
    from statetools.evaluation import evaluate as evaluate
    from statetools.review import Diagram as Diagram
    from statetools.review import Exploration as Exploration
    from statetools.review import Finding as Finding
    from statetools.review import Report as Report
    from statetools.review import VisibleSet as VisibleSet
    from statetools.review import check as check
    from statetools.review import explore as explore
    from statetools.review import render as render
    from statetools.sections import Section as Section
    from statetools.sections import Sections as Sections
    from statetools.sections import load_skills as load_skills
    from statetools.spec import Design as Design
    from statetools.spec import dump_playbook as dump_playbook
    from statetools.spec import load_design as load_design
    from statetools.spec import load_playbook as load_playbook

_LAZY = {
    **dict.fromkeys(("SqliteStore", "SessionInfo"), "statetools.durable"),
    **dict.fromkeys(
        ("Diagram", "Exploration", "Finding", "Report", "VisibleSet", "check", "explore"),
        "statetools.review",
    ),
    "render": "statetools.review",
    **dict.fromkeys(("Section", "Sections", "load_skills"), "statetools.sections"),
    **dict.fromkeys(("Design", "dump_playbook", "load_design", "load_playbook"), "statetools.spec"),
    **dict.fromkeys(("EvalReport", "evaluate"), "statetools.evaluation"),
    "CodeMode": "statetools.code",
}
"""Names whose module (and what it imports: ``sqlite3``, networkx, graphviz, YAML, the
review and spec packages) loads on first use, so that ``import statetools`` stays light
for a program that only runs a loop."""

_SUBPACKAGES = ("mcp", "search", "testing")
"""``st.mcp`` (and the ``mcp`` SDK), ``st.search`` and ``st.testing`` import on first use."""


def __getattr__(name: str) -> Any:
    """Load a lazily imported name (see ``_LAZY``) or subpackage on first use, and
    keep it in the module so the next use is a plain attribute read."""
    import importlib

    if name in _SUBPACKAGES:
        value: Any = importlib.import_module(f"statetools.{name}")
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'statetools' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Every public name, the lazy ones included."""
    return sorted({*globals(), *__all__})


__all__ = [
    "CodeMode",
    "EvalReport",
    "evaluate",
    "Section",
    "Sections",
    "load_skills",
    "SavedRun",
    "SessionInfo",
    "SessionStore",
    "SqliteStore",
    "ArtifactSink",
    "ArtifactSinkingTool",
    "BlackboardSink",
    "Chaining",
    "CompositeSink",
    "Injected",
    "ListSink",
    "OneShotPerLoopTool",
    "Facade",
    "Move",
    "Unfolded",
    "UnfoldingTool",
    "Unlock",
    "tool_provider",
    "unfolding_tools",
    "After",
    "AllOf",
    "AnyOf",
    "Condition",
    "ConditionView",
    "DisclosureGraph",
    "InState",
    "OnArtifact",
    "OnBlackboard",
    "PlaybookTool",
    "SimpleAgenticTool",
    "StateChange",
    "StateMachineTool",
    "Transition",
    "When",
    "disclosure_graph",
    "layered",
    "Diagram",
    "Exploration",
    "Finding",
    "Report",
    "VisibleSet",
    "check",
    "explore",
    "render",
    "AssistantMessage",
    "BaseTool",
    "Blackboard",
    "Blocked",
    "ChainedStrategy",
    "Changes",
    "DefinitionError",
    "Design",
    "DelegatingTool",
    "DisclosureState",
    "Event",
    "Injection",
    "InjectionContext",
    "InputSchema",
    "Listener",
    "LoopCounters",
    "LoopResult",
    "MaxIterationsExceeded",
    "Message",
    "NestedEvent",
    "OutputValidationError",
    "Param",
    "Parameter",
    "ProviderError",
    "RestartLimitExceeded",
    "RunAborted",
    "RunError",
    "RunStream",
    "Scheduler",
    "ScriptExhaustedError",
    "SpecError",
    "StatetoolsError",
    "StreamEvent",
    "SystemMessage",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallStarted",
    "ToolCallContext",
    "ToolInjectionStrategy",
    "ToolLoop",
    "ToolMessage",
    "ToolMetadata",
    "ToolNotFoundError",
    "ToolResult",
    "Trace",
    "UserMessage",
    "WrapperTool",
    "as_tool",
    "dump_playbook",
    "example_arguments",
    "llm_tool",
    "messages_from_json",
    "messages_to_json",
    "load_design",
    "load_playbook",
    "models",
    "search",
    "testing",
    "tools_from_instance",
    "tools_from_module",
    "unwrap",
]
