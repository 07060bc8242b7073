"""check, explore and render cover a sections design (read_section as a facade whose
categories are the section keys)."""

from __future__ import annotations

import statetools as st
from tests.sections.design import support_sections


def test_check_finds_nothing_wrong_in_sections_even_without_tools() -> None:
    assert st.check([support_sections()]).findings == ()
    assert st.check([st.Sections(st.Section("a", "A", "Text only."))]).findings == ()


def test_explore_counts_the_reads_to_each_tool() -> None:
    exploration = st.explore([support_sections()])
    assert exploration.min_turns == {
        "read_section": 0,
        "refund_order": 1,
        "resend_invoice": 1,
        "open_chargeback": 1,
        "track_parcel": 1,
    }
    assert [sorted(v.tools) for v in exploration.visible_sets] == [
        ["read_section"],
        ["open_chargeback", "read_section", "refund_order", "resend_invoice"],
        ["open_chargeback", "read_section", "resend_invoice"],
        ["open_chargeback", "read_section"],
        ["read_section", "track_parcel"],
        ["open_chargeback", "read_section", "refund_order", "resend_invoice", "track_parcel"],
        ["open_chargeback", "read_section", "resend_invoice", "track_parcel"],
        ["open_chargeback", "read_section", "track_parcel"],
    ]
