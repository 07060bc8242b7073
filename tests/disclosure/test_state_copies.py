"""A state, and the result that carries it, can be pickled and deep-copied."""

from __future__ import annotations

import copy
import pickle

import statetools as st


def _state() -> st.DisclosureState:
    return st.DisclosureState(
        call_counts={"search": 2, "open": 1},
        machine_states={"flow": "REVIEW"},
        visible_order=("search", "open"),
        iteration=4,
        unfolds=(("repo", '{"category": "read"}'),),
        loop=st.LoopCounters(unknown_calls_in_a_row=1, output_corrected=True),
    )


def test_a_state_survives_pickle_and_deepcopy_unchanged() -> None:
    state = _state()
    for copied in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), copy.copy(state)):
        assert copied == state
        assert copied.to_json() == state.to_json()
        assert copied.loop.output_corrected is True
        assert dict(copied.call_counts) == {"open": 1, "search": 2}


def test_a_finished_run_can_be_deep_copied_and_pickled() -> None:
    tool = st.Tool.create("search", "Search", lambda q: f"found {q}")
    model = st.models.ScriptedModel([("search", {"q": "x"}), "done"])
    result = st.ToolLoop(model).run("go", tools=[tool])
    for copied in (copy.deepcopy(result), pickle.loads(pickle.dumps(result))):
        assert copied.output == "done"
        assert copied.state == result.state
        assert dict(copied.state.call_counts) == {"search": 1}
        assert [m.role for m in copied.messages] == ["user", "assistant", "tool", "assistant"]
