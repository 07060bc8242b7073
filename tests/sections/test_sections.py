"""Sections: the prompt, read_section, tools opened with a section and its descendants,
resume, and the restart for models without dynamic tools."""

from __future__ import annotations

from typing import Any

import pytest

import statetools as st
from statetools.engine.scheduler import Scheduler
from statetools.models import ModelCapabilities, ScriptedModel
from tests.sections.design import BILLING, EXPANDED_PROMPT, FIRST_PROMPT, UNKNOWN, support_sections

STEPS: list[Any] = [
    ("read_section", {"key": "biling"}),
    ("read_section", {"key": "billing"}),
    ("open_chargeback", {"order": "A7"}),
    ("read_section", {"key": "billing"}),
    "Chargeback opened.",
]
AFTER_BILLING = ["read_section", "refund_order", "resend_invoice", "open_chargeback"]


def run(
    steps: list[Any], *, dynamic: bool = True, **options: Any
) -> tuple[st.LoopResult, ScriptedModel]:
    model = ScriptedModel(steps, capabilities=ModelCapabilities(supports_dynamic_tools=dynamic))
    iterations = options.pop("max_iterations", 20)
    loop = st.ToolLoop(model, system_prompt="You are a support agent.", max_iterations=iterations)
    return loop.run(
        options.pop("prompt", "Dispute order A7"), tools=[support_sections()], **options
    ), model


def test_first_request_shows_the_tree_and_only_read_section() -> None:
    _, model = run(STEPS)
    first = model.requests[0]
    assert [(m.role, m.content) for m in first.messages] == [
        ("system", "You are a support agent."),
        ("system", FIRST_PROMPT),
        ("user", "Dispute order A7"),
    ]
    assert first.tool_names == ["read_section"]
    assert first.tools[0].description == (
        "Read a section of your instructions by its key; its tools become available."
    )
    assert first.tools[0].input_schema == {
        "type": "object",
        "properties": {"key": {"type": "string", "description": "The key of the section to read"}},
        "required": ["key"],
        "additionalProperties": False,
    }


def test_unknown_key_lists_the_keys_closest_first() -> None:
    result, model = run(STEPS)
    answer = result.messages[4]
    assert (answer.role, answer.content, answer.is_error) == ("tool", UNKNOWN, True)
    assert model.requests[1].tool_names == ["read_section"]


def test_reading_billing_returns_it_and_opens_its_and_its_descendants_tools() -> None:
    result, model = run(STEPS)
    answer = result.messages[6]
    assert (
        answer.content
        == BILLING + "\n[now available: refund_order, resend_invoice, open_chargeback]"
    )
    assert not answer.is_error
    assert model.requests[2].tool_names == AFTER_BILLING
    assert result.messages[8].content == "open_chargeback A7"  # a grandchild's tool


def test_reading_again_returns_the_text_without_opening_anything() -> None:
    result, model = run(STEPS)
    assert result.messages[10].content == BILLING
    assert model.requests[4].tool_names == AFTER_BILLING
    assert result.state.unfolds == (("read_section", '{"key": "billing"}'),)
    assert result.output == "Chargeback opened."


def test_the_prompt_stays_as_it_was_for_a_model_with_dynamic_tools() -> None:
    _, model = run(STEPS)
    assert {r.messages[1].content for r in model.requests} == {FIRST_PROMPT}
    assert {r.conversation for r in model.requests} == {0}


def test_a_static_tools_model_restarts_with_the_section_expanded() -> None:
    result, model = run(STEPS, dynamic=False)
    restarts = [e for e in result.trace.events if e.type == "conversation_restarted"]
    assert [(e.iteration, e.conversation, list(e.tools)) for e in restarts] == [
        (3, 1, AFTER_BILLING)
    ]
    assert [r.messages[1].content for r in model.requests] == [
        FIRST_PROMPT,
        FIRST_PROMPT,
        EXPANDED_PROMPT,
        EXPANDED_PROMPT,
        EXPANDED_PROMPT,
    ]
    assert [r.conversation for r in model.requests] == [0, 0, 1, 1, 1]
    assert result.messages[1].content == EXPANDED_PROMPT


def test_restarts_stay_bounded() -> None:
    sections = st.Sections(
        *[
            st.Section(
                f"s{i}",
                f"S{i}",
                f"Body {i}.",
                summary=f"Part {i}.",
                tools=[st.Tool.create(f"t{i}", f"Tool {i}", lambda: "ok")],
            )
            for i in range(12)
        ]
    )
    steps: list[Any] = [("read_section", {"key": f"s{i}"}) for i in range(12)] + ["done"]
    model = ScriptedModel(steps, capabilities=ModelCapabilities(supports_dynamic_tools=False))
    with pytest.raises(st.RestartLimitExceeded) as caught:
        st.ToolLoop(model, max_iterations=30).run("go", tools=[sections])
    restarts = [e for e in caught.value.result.trace.events if e.type == "conversation_restarted"]
    assert len(restarts) == 10


@pytest.mark.parametrize("dynamic", [True, False])
@pytest.mark.parametrize("turns", [1, 2, 3, 4])
def test_a_run_resumed_after_any_turn_ends_as_the_unbroken_one(dynamic: bool, turns: int) -> None:
    whole, whole_model = run(STEPS, dynamic=dynamic)
    with pytest.raises(st.MaxIterationsExceeded) as caught:
        run(STEPS[:turns], dynamic=dynamic, max_iterations=turns)
    partial = caught.value.result
    state = st.DisclosureState.from_json(partial.state.to_json())
    rest, rest_model = run(STEPS[turns:], dynamic=dynamic, prompt=partial.messages, state=state)
    assert rest.messages == whole.messages
    assert rest.state == whole.state
    assert [r.tool_names for r in rest_model.requests] == [
        r.tool_names for r in whole_model.requests[turns:]
    ]
    assert [r.messages for r in rest_model.requests] == [
        r.messages for r in whole_model.requests[turns:]
    ]


def test_full_sections_tools_show_from_the_start_and_a_full_child_waits_for_its_parent() -> None:
    always = st.Tool.create("always", "Always there", lambda: "ok")
    later = st.Tool.create("later", "After reading a", lambda: "ok")
    sections = st.Sections(
        st.Section("intro", "Intro", "Hello.", visibility="full", tools=[always]),
        st.Section(
            "a",
            "A",
            "Body A.",
            summary="About A.",
            children=[st.Section("b", "B", "Body B.", visibility="full", tools=[later])],
        ),
    )
    scheduler = Scheduler.for_items([sections])
    assert [t.name for t in scheduler.visible()] == ["read_section", "always"]
    result = scheduler.resolve("read_section")
    assert isinstance(result, st.BaseTool)
    text = result.call({"key": "a"})
    assert text.text == "## A\n\nBody A.\n\n### B\n\nBody B."
    scheduler.record(st.ToolCall("c1", "read_section", {"key": "a"}), text)
    assert [t.name for t in scheduler.visible()] == ["read_section", "always", "later"]


def test_a_read_child_shows_in_full_under_its_summarized_parent_after_a_restart() -> None:
    steps: list[Any] = [("read_section", {"key": "billing.invoices"}), "ok"]
    _, model = run(steps, dynamic=False)
    assert model.requests[1].messages[1].content == FIRST_PROMPT.replace(
        '(Summary only: call read_section with key "billing" to read it in full.)',
        '(Summary only: call read_section with key "billing" to read it in full.)\n\n'
        "### Invoices\n\nInvoices are sent on the first day of the month.\n\n"
        "#### Disputes\n\nChargebacks and disputed payments.\n"
        '(Summary only: call read_section with key "billing.invoices.disputes" '
        "to read it in full.)",
    )
    assert model.requests[1].tool_names == ["read_section", "resend_invoice", "open_chargeback"]


def test_bad_arguments_say_what_to_send() -> None:
    result, _ = run([("read_section", {"section": "billing"}), "ok"])
    assert result.messages[4].content == (
        "Invalid arguments for tool 'read_section': give only \"key\", the key of a section "
        "(one of: tone, billing, billing.invoices, billing.invoices.disputes, shipping)."
    )


def test_definitions_refuse_duplicate_keys_and_bad_keys() -> None:
    with pytest.raises(st.DefinitionError, match="more than one section has the key a"):
        st.Sections(st.Section("a", "A", "x"), st.Section("a", "A2", "y"))
    with pytest.raises(st.DefinitionError, match=r"invalid section key 'a\.b'"):
        st.Section("a.b", "A", "x")
    with pytest.raises(st.DefinitionError, match="unknown visibility 'half'"):
        st.Section("a", "A", "x", visibility="half")  # type: ignore[arg-type]
    with pytest.raises(st.DefinitionError, match="at least one section"):
        st.Sections()


def test_sections_are_immutable() -> None:
    section = st.Section("a", "A", "x")
    with pytest.raises(AttributeError):
        section.body = "y"  # type: ignore[misc]
    assert section.with_children(st.Section("b", "B", "y")).children[0].key == "b"
    assert section.children == ()


def test_a_huge_unknown_key_is_cut_in_the_answer() -> None:
    """Issue 30: a 1 MB key was echoed whole into the model's context."""
    result, _ = run([("read_section", {"key": "b" * 1_000_000}), "ok"])
    assert result.messages[4].content == (
        f"No section has the key '{'b' * 77}...' (1,000,000 characters). Keys, closest "
        "first: billing, billing.invoices, billing.invoices.disputes, tone, shipping."
    )
