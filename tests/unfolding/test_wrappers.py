"""OneShotPerLoopTool, ArtifactSinkingTool with its sinks, and the context through everything."""

from __future__ import annotations

import itertools
from typing import Any

import attrs
import pytest

import statetools as st
from statetools.models import ScriptedModel
from statetools.tools.context import RUN_ID_KEY

LOADS: list[str] = []


def load_guide() -> str:
    """Load the style guide."""
    LOADS.append("guide")
    return "Write short sentences."


@pytest.fixture(autouse=True)
def _clear() -> None:
    LOADS.clear()


def texts(result: st.LoopResult) -> list[tuple[str, bool]]:
    return [(m.content, m.is_error) for m in result.messages if isinstance(m, st.ToolMessage)]


def ids(*names: str) -> Any:
    it = iter(names)
    return lambda: next(it)


def test_one_shot_per_loop_answers_already_loaded_in_the_same_run_only() -> None:
    guide = st.OneShotPerLoopTool(load_guide, "Follow the guide above.")
    model = ScriptedModel([("load_guide", {}), ("load_guide", {}), "ok"])
    loop = st.ToolLoop(model, id_factory=ids("run-1", "run-2"))
    result = loop.run("go", tools=[guide])
    assert texts(result) == [
        ("Write short sentences.", False),
        (
            "ALREADY LOADED: 'load_guide' already ran in this conversation; its result is "
            "above. Follow the guide above.",
            False,
        ),
    ]
    assert LOADS == ["guide"]
    again = ScriptedModel([("load_guide", {}), "ok"])
    st.ToolLoop(again, id_factory=ids("run-2")).run("go", tools=[guide])
    assert LOADS == ["guide", "guide"]


def test_one_shot_runs_again_after_a_failure_and_outside_runs() -> None:
    attempts: list[int] = []

    def flaky() -> str:
        """Load, failing the first time."""
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("busy")
        return "loaded"

    tool = st.OneShotPerLoopTool(flaky)
    context = {RUN_ID_KEY: "r"}
    assert tool.call(context=context).text == "Tool 'flaky' failed: busy"
    assert tool.call(context=context).text == "loaded"
    assert tool.call(context=context).text == (
        "ALREADY LOADED: 'flaky' already ran in this conversation; its result is above. "
        "Use that result instead of calling it again."
    )
    assert tool.call().text == "loaded"  # no run id: no run to remember
    assert st.unwrap(tool).name == "flaky"
    assert tool.with_description("Load once.").description == "Load once."


@attrs.frozen
class Invoice:
    number: int
    total: float


def find_invoices() -> list[Invoice]:
    """Find the open invoices."""
    return [Invoice(1, 10.0), Invoice(2, 250.0)]


def test_sunk_artifacts_reach_the_run_blackboard_and_unlock_tools() -> None:
    kept = st.ListSink()
    sinking = st.ArtifactSinkingTool(
        find_invoices,
        st.CompositeSink(kept, st.BlackboardSink()),
        type=Invoice,
        filter=lambda invoice: invoice.total > 100,
    )
    playbook = (
        st.PlaybookTool("billing", "Billing")
        .with_tool(sinking)
        .with_tool(st.Tool.create("remind", "Send a reminder.", lambda: "sent"))
        .unlocked_by_blackboard(Invoice)
    )
    model = ScriptedModel([("find_invoices", {}), ("remind", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[playbook])
    assert [r.tool_names for r in model.requests] == [
        ["find_invoices"],
        ["find_invoices", "remind"],
        ["find_invoices", "remind"],
    ]
    assert texts(result)[0] == (
        '[{"number": 1, "total": 10.0}, {"number": 2, "total": 250.0}]\n[now available: remind]',
        False,
    )
    assert kept.items == [Invoice(2, 250.0)]
    assert result.state.blackboard == (f"{__name__}.Invoice",)


def test_sinking_transforms_and_skips_errors() -> None:
    sink = st.ListSink()
    numbers = st.Tool.create("numbers", "Numbers.", lambda: {"a": 1})
    whole = st.ArtifactSinkingTool(numbers, sink, transform=lambda d: sorted(d))
    assert whole.call().text == '{"a": 1}'
    assert sink.items == [["a"]]
    failing = st.ArtifactSinkingTool(st.Tool.create("bad", "Bad.", lambda: 1 / 0), sink, type=int)
    assert failing.call().is_error
    assert sink.items == [["a"]]


def test_sink_problems_are_clear() -> None:
    numbers = st.Tool.create("numbers", "Numbers.", lambda: [1])
    outside = st.ArtifactSinkingTool(numbers, st.BlackboardSink())
    assert outside.call().text == (
        "Tool 'numbers' failed: BlackboardSink has no blackboard outside a run "
        "Hint: call the tool inside a ToolLoop run, or pass BlackboardSink(blackboard)"
    )
    board = st.Blackboard()
    assert st.ArtifactSinkingTool(numbers, st.BlackboardSink(board)).call().text == "[1]"
    assert board.latest(list) == [1]
    with pytest.raises(st.DefinitionError, match="ArtifactSinkingTool needs a sink"):
        st.ArtifactSinkingTool(numbers, None)


def test_a_handler_can_post_to_the_run_blackboard_itself() -> None:
    def approve(ctx: st.ToolCallContext) -> str:
        """Approve the plan."""
        assert ctx.blackboard is not None
        ctx.blackboard.post(Invoice(9, 1.0))
        return "approved"

    playbook = (
        st.PlaybookTool("p", "P")
        .with_tools(approve)
        .with_tool(st.Tool.create("pay", "Pay.", lambda: "paid"))
        .unlocked_by_blackboard(Invoice)
    )
    model = ScriptedModel([("approve", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[playbook])
    assert texts(result) == [("approved\n[now available: pay]", False)]


SEEN: list[dict[str, Any]] = []


def lookup(account: str, ctx: st.ToolCallContext) -> str:
    """Look up an account."""
    SEEN.append({"tenant": ctx["tenant"], "run": ctx[RUN_ID_KEY], "board": ctx.blackboard})
    return f"{account} is active"


def desk(inner: ScriptedModel) -> st.UnfoldingTool:
    wrapped = st.OneShotPerLoopTool(st.Tool.from_function(lookup), "Use the answer above.")
    research = st.PlaybookTool("research", "Research an account.").with_tools(wrapped)
    return st.UnfoldingTool.of("desk", "Open the support desk.", [research.with_model(inner)])


@pytest.mark.parametrize("direct", [False, True])
def test_context_reaches_the_handler_through_facade_agent_and_wrapper(direct: bool) -> None:
    SEEN.clear()
    inner = ScriptedModel(
        [("lookup", {"account": "a1"}), ("lookup", {"account": "a1"}), "a1 is active"]
    )
    task = {"task": "check a1"}
    steps: list[Any] = (
        [("desk", {"research": task})]
        if direct
        else [
            ("desk", {}),
            ("research", task),
        ]
    )
    outer = ScriptedModel([*steps, "done"])
    ticks = itertools.count()
    loop = st.ToolLoop(outer, id_factory=lambda: f"outer-{next(ticks)}")
    result = loop.run("go", tools=[desk(inner)], context={"tenant": "acme"})

    assert len(SEEN) == 1  # the second lookup got the ALREADY LOADED text
    assert SEEN[0]["tenant"] == "acme"
    assert SEEN[0]["run"] not in ("outer-0", None)  # the sub-loop is a run of its own
    assert SEEN[0]["board"] is not None
    inner_texts = [m.content for m in inner.requests[-1].messages if isinstance(m, st.ToolMessage)]
    assert inner_texts == [
        "a1 is active",
        "ALREADY LOADED: 'lookup' already ran in this conversation; its result is above. "
        "Use the answer above.",
    ]
    assert texts(result)[-1][0].startswith("a1 is active")
