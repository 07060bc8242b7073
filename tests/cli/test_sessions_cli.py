"""statetools run --session and statetools sessions."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import statetools as st
from statetools.cli import main

RESEARCH = str(Path(__file__).resolve().parents[2] / "playbooks" / "research.yaml")


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_a_session_stopped_early_continues_with_the_rest_of_the_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole.db"
    status, _ = run_cli("run", RESEARCH, "--session", "w", "--store", str(whole))
    assert status == 0
    store = tmp_path / "s.db"
    status, _ = run_cli(
        "run", RESEARCH, "--session", "r1", "--store", str(store), "--max-iterations", "2"
    )
    assert status == 2  # stopped after two model calls; the session keeps both
    assert "no final answer after 2 model calls" in capsys.readouterr().err
    status, text = run_cli("run", RESEARCH, "--session", "r1", "--store", str(store))
    assert status == 0
    lines = text.splitlines()
    assert lines[0] == "session r1: continuing after 2 model calls"
    assert lines[2] == "turn 3"
    assert "finished (return_direct) after 6 model calls" in lines
    continued = st.SqliteStore(store).load("r1")
    unbroken = st.SqliteStore(whole).load("w")
    assert st.messages_to_json(continued.messages) == st.messages_to_json(unbroken.messages)
    assert continued.state == unbroken.state
    status, text = run_cli("sessions", "--store", str(store))
    assert status == 0
    assert text.split()[:4] == ["r1", "return_direct", "6", "model"]


def test_sessions_of_an_empty_store(tmp_path: Path) -> None:
    status, text = run_cli("sessions", "--store", str(tmp_path / "none.db"))
    assert (status, text) == (0, f"no sessions in {tmp_path / 'none.db'}\n")
