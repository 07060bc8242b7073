"""Store version 2: a save appends what the step added and rewrites one small row;
files of version 1 (written before) still load, and move to the new layout as their
sessions are saved."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import attrs

import statetools as st
from statetools.loop.sessions import SavedRun
from statetools.messages import AssistantMessage
from statetools.models import ScriptedModel

V1 = Path(__file__).parent / "data" / "sessions_v1.db"
"""A store written by statetools before version 2: 'finished' (2 + 3 = 5, answered) and
'cut-short' (1 + 1 called and answered, then the script ran out)."""

add = st.Tool.create("add", "Add two numbers", lambda a, b: str(a + b))


def rows(path: Path, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as connection:
        return connection.execute(query).fetchall()


def test_a_version_1_store_still_loads_and_continues(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(V1, path)
    store = st.SqliteStore(path)
    assert store.sessions() == [
        st.SessionInfo("cut-short", "running", 1, 1_700_000_000.0),
        st.SessionInfo("finished", "answer", 2, 1_700_000_000.0),
    ]
    finished = store.load("finished")
    assert [m.content for m in finished.messages] == ["What is 2 + 3?", "", "5", "It is 5."]
    assert finished.output == "It is 5."
    result = st.ToolLoop(ScriptedModel(["It is 2."])).run(
        None, tools=[add], session="cut-short", store=store
    )
    assert [m.content for m in result.messages] == ["What is 1 + 1?", "", "2", "It is 2."]
    store.close()
    assert rows(path, "SELECT id FROM statetools_sessions") == [("finished",)]
    assert rows(path, "SELECT id, outcome, messages FROM statetools_runs") == [
        ("cut-short", "answer", 4)
    ]
    again = st.SqliteStore(path)
    assert again.load("cut-short") == result
    assert again.load("finished") == finished
    assert rows(path, "SELECT value FROM statetools_meta") == [("2",)]


def test_a_version_1_store_in_a_read_only_place_loads(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(V1, path)
    path.chmod(0o444)
    try:
        store = st.SqliteStore(path)
        assert [info.id for info in store.sessions()] == ["cut-short", "finished"]
        assert store.load("finished").output == "It is 5."
    finally:
        path.chmod(0o644)


def test_a_save_appends_the_new_messages_and_leaves_the_saved_ones(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    store = st.SqliteStore(path)
    loop = st.ToolLoop(ScriptedModel(["Hello!", "Bye!"]))
    loop.run("Hi", tools=[], session="s1", store=store)
    # mark the first saved message where only a rewrite would undo it
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE statetools_messages SET data = ? WHERE session = 's1' AND seq = 0",
            (json.dumps({"role": "user", "content": "Hi (kept)"}),),
        )
    loop.run("Thanks", tools=[], session="s1", store=store)
    saved = st.SqliteStore(path).load("s1")
    assert [m.content for m in saved.messages] == ["Hi (kept)", "Hello!", "Thanks", "Bye!"]
    assert rows(path, "SELECT count(*) FROM statetools_events WHERE session = 's1'") == [
        (len(saved.trace.events),)
    ]


def test_a_session_written_by_another_store_meanwhile_is_saved_whole(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    first, second = st.SqliteStore(path), st.SqliteStore(path)
    one = st.ToolLoop(ScriptedModel(["One."])).run("1", tools=[])
    two = st.ToolLoop(ScriptedModel(["Two."])).run("2", tools=[])
    first.save("s", SavedRun("a", one))
    second.save("s", SavedRun("b", two))  # another store replaced it
    longer = attrs.evolve(one, messages=(*one.messages, AssistantMessage("More.")))
    first.save("s", SavedRun("a", longer))
    assert st.SqliteStore(path).load("s") == longer
