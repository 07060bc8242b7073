"""The live transcript of `statetools run`: streamed text is printed as it arrives."""

from __future__ import annotations

import io

import statetools as st
from statetools.cli.transcript import Transcript
from statetools.engine.events import IterationStarted, ModelResponded


def test_streamed_text_is_printed_as_it_arrives_and_the_line_ends_with_the_response() -> None:
    out = io.StringIO()
    transcript = Transcript(out)
    transcript.requests.append("  visible (1 tool, 45 tokens): search\n")

    transcript(IterationStarted(1, ("search",)))
    transcript(st.TextDelta(1, "Let me "))
    after_first = out.getvalue()
    transcript(st.TextDelta(1, "look."))
    transcript(st.ToolCallStarted(1, "call_1", "search"))
    transcript(ModelResponded(1, "Let me look.", ("search",), "tool_use"))

    assert after_first == "turn 1\n  visible (1 tool, 45 tokens): search\n  model: Let me "
    assert out.getvalue() == (
        "turn 1\n"
        "  visible (1 tool, 45 tokens): search\n"
        "  model: Let me look.\n"
        "  model calls: search\n"
    )
