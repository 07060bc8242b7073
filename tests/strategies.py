"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as hs

import statetools as st

STATES = ["S0", "S1", "S2"]


def conditions(
    names: list[str], *, width: int = 3, leaves: int = 4
) -> hs.SearchStrategy[st.Condition]:
    """Random unlock conditions over ``names`` and the states of machine ``m``:
    After and InState leaves combined by AllOf/AnyOf (at most ``width`` parts each,
    ``leaves`` leaves in all)."""
    after = hs.builds(
        st.After, hs.lists(hs.sampled_from(names), min_size=1, max_size=2), hs.integers(1, 2)
    )
    in_state = hs.builds(st.InState, hs.just("m"), hs.sampled_from(STATES))
    return hs.recursive(
        hs.one_of(after, in_state),
        lambda inner: hs.one_of(
            hs.lists(inner, min_size=1, max_size=width).map(lambda cs: st.AllOf(*cs)),
            hs.lists(inner, min_size=1, max_size=width).map(lambda cs: st.AnyOf(*cs)),
        ),
        max_leaves=leaves,
    )
