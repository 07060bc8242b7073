"""Snapshot tests of the engine's main scenarios: each run's trace is a committed
``.trace`` file under ``__snapshots__/test_engine_snapshots/``.

A change in what the model sees, what unlocks or how a machine moves shows up here as a
readable diff; accept an intended one with ``pytest --snapshot-update``.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from syrupy.assertion import SnapshotAssertion

import statetools as st
from playbooks import research as research_tools
from playbooks import support_desk
from statetools.testing import ScriptedModelFactory, run_scripted
from tests.disclosure.test_machine import order_machine
from tests.disclosure.test_playbook import analyze, report, research, search


def test_research_playbook(trace_snapshot: SnapshotAssertion) -> None:
    steps = [
        ("analyze", {}),
        ("search", {"query": "tides"}),
        ("analyze", {}),
        ("summarize", {}),
        ("report", {}),
        "Done.",
    ]
    assert run_scripted(research(), steps, prompt="Research tides") == trace_snapshot


def test_order_machine(trace_snapshot: SnapshotAssertion) -> None:
    steps = [
        ("ship", {"carrier": "ups"}),
        ("add_item", {"sku": "lamp"}),
        ("confirm", {}),
        ("ship", {"carrier": "nobody"}),
        ("ship", {"carrier": "ups"}),
        ("deliver", {}),
        "Delivered.",
    ]
    assert run_scripted(order_machine(), steps, prompt="Order a lamp") == trace_snapshot


def test_order_machine_ends_at_its_final_state(trace_snapshot: SnapshotAssertion) -> None:
    steps = [
        [("add_item", {"sku": "lamp"}), ("confirm", {})],
        ("ship", {"carrier": "ups"}),
        ("deliver", {}),
    ]
    result = run_scripted(order_machine(), steps, end_on_final_state=True)
    assert result == trace_snapshot


def research_example() -> st.PlaybookTool:
    """The research tools of playbooks/research.py, disclosed step by step."""
    return (
        st.PlaybookTool("research", "Research a topic in the notes")
        .with_tool(research_tools.search)
        .with_tool(research_tools.analyze)
        .unlocked_by(research_tools.search)
        .with_tool(research_tools.summarize)
        .unlocked_by(research_tools.analyze)
        .with_tool(research_tools.report)
        .unlocked_by(research_tools.summarize)
    )


def test_research_playbook_example(
    trace_snapshot: SnapshotAssertion, scripted_model: ScriptedModelFactory
) -> None:
    """The report returns directly; an analysis of a note search did not find fails."""
    model = scripted_model(
        """
        - call: {name: search, arguments: {query: tides}}
        - call: {name: analyze, arguments: {note_ids: [n1, n9]}}
        - call: {name: analyze, arguments: {note_ids: [n1, n2]}}
        - call: {name: summarize, arguments: {summary: The moon pulls the tides.}}
        - call: {name: report, arguments: {title: Tides}}
        """
    )
    result = run_scripted(
        research_example(),
        model,
        prompt="Why are there tides?",
        context=research_tools.new_context(),
    )
    assert result.output.startswith("# Tides")
    assert result == trace_snapshot


def test_support_desk_cancellation(trace_snapshot: SnapshotAssertion) -> None:
    """The support desk machine of playbooks/support_desk.py: identify, propose, hear
    yes, cancel, close."""
    steps: list[Any] = [
        ("cancel_order", {"order_id": "W1001", "reason": "no longer needed"}),
        ("find_customer_by_email", {"email": "ada@example.com"}),
        ("get_order", {"order_id": "W1001"}),
        (
            "propose_action",
            {"action": "cancel", "order_id": "W1001", "summary": "Cancel order W1001."},
        ),
        ("record_answer", {"customer_said_yes": True}),
        ("cancel_order", {"order_id": "W1001", "reason": "no longer needed"}),
        ("close_case", {}),
        "Your order W1001 is cancelled and refunded.",
    ]
    context = support_desk.new_context()
    result = run_scripted(support_desk.support_desk(), steps, context=context)
    assert context["shop"].orders["W1001"].status == "cancelled"
    assert result == trace_snapshot


def test_support_desk_declined_change(trace_snapshot: SnapshotAssertion) -> None:
    steps: list[Any] = [
        (
            "find_customer_by_name_zip",
            {"first_name": "Alan", "last_name": "Turing", "zip_code": "03801"},
        ),
        ("propose_action", {"action": "cancel", "order_id": "W2001", "summary": "Cancel W2001."}),
        ("propose_action", {"action": "return", "order_id": "W2001", "summary": "Return W2001."}),
        ("list_products", {}),
        ("transfer_to_human", {"summary": "Wants to cancel a processed order."}),
        "A colleague will help you.",
    ]
    result = run_scripted(support_desk.support_desk(), steps, context=support_desk.new_context())
    assert result == trace_snapshot


@attrs.frozen
class _AddReport:
    """After a search, offer the report tool; after the report, take search away."""

    def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
        if context.call.name == "search":
            return st.Injection(add=[st.as_tool(report)])
        if context.call.name == "report":
            return st.Injection(remove=["search"], add=[st.as_tool(report)])
        return None


def test_injected_and_removed_tools(trace_snapshot: SnapshotAssertion) -> None:
    steps = [("search", {"query": "tides"}), ("report", {}), "Reported."]
    result = run_scripted([search, analyze], steps, strategies=[_AddReport()])
    assert result == trace_snapshot


def test_model_without_dynamic_tools_restarts_the_conversation(
    trace_snapshot: SnapshotAssertion, scripted_model: ScriptedModelFactory
) -> None:
    model = scripted_model(
        [("search", {"query": "tides"}), ("analyze", {}), "Done."],
        capabilities=st.models.ModelCapabilities(supports_dynamic_tools=False),
    )
    assert run_scripted(research(), model) == trace_snapshot


@attrs.frozen
class Verdict:
    """A structured final answer."""

    relevant: bool
    reason: str


def test_rejected_output_and_unknown_tools(trace_snapshot: SnapshotAssertion) -> None:
    steps: list[Any] = [
        [("serach", {"query": "tides"}), ("search", {"query": "tides", "n": 3})],
        "It is relevant.",
        '{"relevant": true, "reason": "it explains tides"}',
    ]
    result = run_scripted(research(), steps, output_type=Verdict)
    assert result.output == Verdict(True, "it explains tides")
    assert result == trace_snapshot


def test_a_run_that_ends_in_an_error_keeps_its_trace(trace_snapshot: SnapshotAssertion) -> None:
    with pytest.raises(st.MaxIterationsExceeded) as caught:
        run_scripted(research(), [("analyze", {}), ("search", {"query": "x"})], max_iterations=2)
    assert caught.value.result == trace_snapshot


class Repo:
    """An object a tool returns; its ``@llm_tool`` methods become tools (chaining)."""

    def __init__(self, name: str) -> None:
        self.name = name

    @st.llm_tool("Read a file of this repository.")
    def read(self, path: str) -> str:
        return f"{self.name}/{path}"


@st.llm_tool("Open a repository by name.")
def open_repo(name: str) -> Repo:
    return Repo(name)


@st.llm_tool("List the open issues.")
def list_issues() -> str:
    return "2 issues"


@st.llm_tool("Close an issue.")
def close_issue(number: int) -> str:
    return f"closed #{number}"


def test_unfolding_facade_and_chained_tools(trace_snapshot: SnapshotAssertion) -> None:
    """A facade reveals its inner tools when called; a returned object lends its methods."""
    issues = st.UnfoldingTool.of("issues", "Work with issues", [list_issues, close_issue])
    repos = st.PlaybookTool("repos", "Repositories").with_tool(open_repo)
    repos = repos.with_tool_chaining_from(Repo)
    steps: list[Any] = [
        ("close_issue", {"number": 1}),
        ("issues", {}),
        ("close_issue", {"number": 1}),
        ("open_repo", {"name": "statetools"}),
        ("read", {"path": "README.md"}),
        "Done.",
    ]
    assert run_scripted([issues, repos], steps) == trace_snapshot
