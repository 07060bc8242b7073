"""Every example playbook in playbooks/ (YAML) runs its demo script: the run's trace and
the design's diagram are committed snapshots under ``__snapshots__/test_playbook_snapshots/``.

A new playbook file needs its snapshots written once: ``pytest --snapshot-update``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

import statetools as st
from statetools.testing import run_scripted

PLAYBOOKS = Path(__file__).resolve().parents[2] / "playbooks"
FILES = sorted([*PLAYBOOKS.glob("*.yaml"), *PLAYBOOKS.glob("*.yml")])


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_playbook_demo(
    path: Path, trace_snapshot: SnapshotAssertion, dot_snapshot: SnapshotAssertion
) -> None:
    design = st.load_design(path)
    model = design.scripted_model()
    assert model is not None, f"{path.name} has no demo script (script:)"
    result = run_scripted(
        design.tools,
        model,
        prompt=design.prompt or "Go.",
        context=design.run_context(),
        system_prompt=design.system_prompt,
    )
    assert result == trace_snapshot
    assert st.render(design.tools, format="dot") == dot_snapshot
