"""A valid store in a place that cannot be written (file 0444, folder 0555) opens
read-only: its sessions are listed and loaded, and saving says why it cannot. The
permission bits decide even for root, who could write anyway, so the test means the
same under CI's root as for a user."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import statetools as st
from statetools.cli import main
from statetools.durable.failures import StoreReadOnly
from statetools.models import ScriptedModel


@pytest.fixture
def locked_store(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "archive"
    folder.mkdir()
    path = folder / "runs.db"
    with st.SqliteStore(path, clock=lambda: 1_700_000_000.0) as store:
        st.ToolLoop(ScriptedModel(["Hello!"])).run("Hi", tools=[], session="s1", store=store)
    path.chmod(0o444)
    folder.chmod(0o555)
    try:
        yield path
    finally:
        folder.chmod(0o755)
        path.chmod(0o644)


def test_a_store_in_a_read_only_place_is_read_but_not_written(locked_store: Path) -> None:
    before = locked_store.read_bytes()
    store = st.SqliteStore(locked_store)
    assert store.read_only == "the file cannot be written (mode 0444)"
    assert store.sessions() == [st.SessionInfo("s1", "answer", 1, 1_700_000_000.0)]
    assert store.load("s1").output == "Hello!"
    with pytest.raises(StoreReadOnly) as error:
        st.ToolLoop(ScriptedModel(["Bye!"])).run("More", tools=[], session="s1", store=store)
    assert str(error.value) == (
        f"{locked_store}: cannot run session 's1': the session store is read-only (the file "
        "cannot be written (mode 0444)) Hint: make the file and its folder writable, or "
        "copy the store to a writable place and use that"
    )
    with pytest.raises(StoreReadOnly) as error:
        store.delete("s1")
    assert error.value.message == (
        "cannot delete session 's1': the session store is read-only (the file cannot be "
        "written (mode 0444))"
    )
    store.close()
    assert locked_store.read_bytes() == before
    assert sorted(os.listdir(locked_store.parent)) == ["runs.db"]  # no -wal, no -shm


def test_statetools_sessions_lists_a_read_only_store(locked_store: Path) -> None:
    out = io.StringIO()
    assert main(["sessions", "--store", str(locked_store)], out=out) == 0
    assert out.getvalue().split()[:4] == ["s1", "answer", "1", "model"]


def test_a_writable_file_in_a_read_only_folder_is_read_only_too(tmp_path: Path) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    path = folder / "runs.db"
    with st.SqliteStore(path) as store:
        st.ToolLoop(ScriptedModel(["Hello!"])).run("Hi", tools=[], session="s1", store=store)
    folder.chmod(0o555)
    try:
        store = st.SqliteStore(path)
        assert store.read_only == "its folder cannot be written (mode 0555)"
        assert store.load("s1").output == "Hello!"
        store.close()
        assert sorted(os.listdir(folder)) == ["runs.db"]
    finally:
        folder.chmod(0o755)
