"""The committed diagrams in diagrams/ match the playbooks they draw (run `make diagrams`)."""

from __future__ import annotations

from pathlib import Path

import pytest

import statetools as st

ROOT = Path(__file__).resolve().parents[1]
PLAYBOOKS = sorted((ROOT / "playbooks").glob("*.yaml"))


@pytest.mark.parametrize("playbook", PLAYBOOKS, ids=[p.stem for p in PLAYBOOKS])
def test_committed_diagram_is_current(playbook: Path) -> None:
    committed = ROOT / "diagrams" / f"{playbook.stem}.dot"
    assert committed.is_file(), f"diagrams/{committed.name} is missing: run `make diagrams`"
    current = st.render(st.load_design(playbook).tools, format="dot").text
    assert committed.read_text(encoding="utf-8") == current, (
        f"diagrams/{committed.name} is stale: run `make diagrams` and commit the result"
    )
    for suffix in (".svg", ".trace.svg"):
        assert (ROOT / "diagrams" / f"{playbook.stem}{suffix}").is_file()
