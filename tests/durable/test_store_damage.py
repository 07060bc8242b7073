"""A damaged store file never raises a raw sqlite3 error: every operation either works
or raises a StatetoolsError naming the file and what to do, and a damaged row or page
does not take the sessions SQLite can still read with it."""

from __future__ import annotations

import contextlib
import random
import sqlite3
from pathlib import Path

import pytest

import statetools as st
from statetools.durable.failures import StoreDamaged
from statetools.loop.sessions import SavedRun
from statetools.models import ScriptedModel

PAGE = 4096
KINDS = ("truncated", "bit flips", "zeroed page", "garbage page")


def make_store(folder: Path) -> tuple[Path, st.LoopResult]:
    """A real store: eight sessions, some long, some cut short."""
    path = folder / "runs.db"
    add = st.Tool.create("add", "Add two numbers", lambda a, b: str(a + b) * 300)
    with st.SqliteStore(path) as store:
        for n in range(8):
            steps: list[object] = [("add", {"a": n, "b": k}) for k in range(n + 1)]
            if n % 3:
                steps.append(f"Answer {n}.")
            with contextlib.suppress(st.StatetoolsError):  # cut short: saved as running
                st.ToolLoop(ScriptedModel(steps)).run(
                    f"Session {n}: " + chr(ord("A") + n) * 6000,
                    tools=[add],
                    session=f"s{n}",
                    store=store,
                )
        result = store.load("s1")
    return path, result


def damage(data: bytes, kind: str, rng: random.Random) -> bytes:
    pages = max(1, len(data) // PAGE)
    if kind == "truncated":
        return data[: rng.randrange(0, len(data))]
    if kind == "bit flips":
        damaged = bytearray(data)
        for _ in range(rng.randrange(1, 40)):
            spot = rng.randrange(len(damaged))
            damaged[spot] ^= 1 << rng.randrange(8)
        return bytes(damaged)
    page = rng.randrange(pages)
    filler = bytes(PAGE) if kind == "zeroed page" else rng.randbytes(PAGE)
    return data[: page * PAGE] + filler + data[(page + 1) * PAGE :]


def exercise(path: Path, result: st.LoopResult) -> list[str]:
    """Every store operation on ``path``; what was not a StatetoolsError (or success)."""
    raw: list[str] = []

    def attempt(what: str, action: object) -> None:
        try:
            action()  # type: ignore[operator]
        except st.StatetoolsError as error:
            if str(path) not in str(error):
                raw.append(f"{what}: does not name the file: {error}")
        except Exception as error:  # a raw sqlite3 error, or anything else
            raw.append(f"{what}: {type(error).__module__}.{type(error).__name__}: {error}")

    store: list[st.SqliteStore] = []
    attempt("open", lambda: store.append(st.SqliteStore(path)))
    if not store:
        return raw
    opened = store[0]
    attempt("sessions", opened.sessions)
    for n in range(8):
        attempt(f"load s{n}", lambda n=n: opened.load(f"s{n}"))
    attempt("save", lambda: opened.save("new", SavedRun("r", result)))
    attempt(
        "continue",
        lambda: st.ToolLoop(ScriptedModel(["ok"])).run(
            "more", tools=[], session="s2", store=opened
        ),
    )
    attempt("delete", lambda: opened.delete("s3"))
    attempt("close", opened.close)
    return raw


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_store_files_raise_no_raw_sqlite_errors(tmp_path: Path, kind: str) -> None:
    original, result = make_store(tmp_path)
    data = original.read_bytes()
    rng = random.Random(f"store damage {kind}")
    raw: list[str] = []
    for n in range(12):
        copy = tmp_path / f"damaged-{n}.db"
        copy.write_bytes(damage(data, kind, rng))
        raw.extend(f"{copy.name} {what}" for what in exercise(copy, result))
    assert raw == []


def test_a_truncated_store_says_what_integrity_check_finds(tmp_path: Path) -> None:
    original, result = make_store(tmp_path)
    copy = tmp_path / "cut.db"
    copy.write_bytes(original.read_bytes()[: 3 * PAGE])
    store = st.SqliteStore(copy)  # opened read-only, for what can still be read
    found = (
        "PRAGMA integrity_check says: *** in database main ***; invalid page number 10; "
        "invalid page number 11; invalid page number 8. Restore the file from a backup, or "
        "move it aside to start a new store"
    )
    with pytest.raises(StoreDamaged) as error:
        store.sessions()
    assert str(error.value) == (
        f"{copy}: the session store is damaged (listing the sessions): database disk image "
        f"is malformed Hint: {found}"
    )
    with pytest.raises(StoreDamaged) as error:
        store.load("s0")
    assert error.value.message == (
        "the session store is damaged (reading session 's0'): database disk image is malformed"
    )
    with pytest.raises(StoreDamaged) as error:
        store.save("new", SavedRun("r", result))
    assert str(error.value) == (
        f"{copy}: cannot save session 'new': the session store is damaged (opening it): "
        "database disk image is malformed Hint: PRAGMA integrity_check fails (database disk "
        "image is malformed); PRAGMA quick_check fails (database disk image is malformed). "
        "Restore the file from a backup, or move it aside to start a new store"
    )


def test_a_damaged_page_of_one_session_leaves_the_others_readable(tmp_path: Path) -> None:
    original, _ = make_store(tmp_path)
    copy = tmp_path / "one-page.db"
    data = bytearray(original.read_bytes())
    marker = b"H" * 4000  # the overflow page of s7's prompt (H * 6000)
    pages = [p for p in range(len(data) // PAGE) if data[p * PAGE + 4 :].startswith(marker)]
    assert len(pages) == 1
    page = pages[0]
    data[page * PAGE : (page + 1) * PAGE] = b"\xff" * PAGE
    copy.write_bytes(bytes(data))
    store = st.SqliteStore(copy)
    assert {info.id for info in store.sessions()} == {f"s{n}" for n in range(8)}
    with pytest.raises(st.SpecError) as error:
        store.load("s7")
    assert str(error.value) == (
        f"{copy}: session 's7': a saved session is damaged: JSONDecodeError: Unterminated "
        "string starting at: line 1 column 13 (char 12) Hint: the store file was changed by "
        "something else; delete the session"
    )
    for n in range(7):
        assert store.load(f"s{n}").messages[0].content.startswith(f"Session {n}: ")


def test_a_damaged_row_is_a_spec_error_for_that_session_only(tmp_path: Path) -> None:
    path, _ = make_store(tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE statetools_runs SET head = '{\"messages\": [null]}' WHERE id = 's2'"
        )
    store = st.SqliteStore(path)
    with pytest.raises(st.SpecError) as error:
        store.load("s2")
    assert error.value.path == f"{path}: session 's2'"
    assert error.value.message == "a saved session is damaged: KeyError: 'output'"
    assert store.load("s1").messages[0].content.startswith("Session 1: ")
    assert {info.id for info in store.sessions()} == {f"s{n}" for n in range(8)}


def test_sessions_whose_rows_cannot_be_read_are_listed_as_damaged(tmp_path: Path) -> None:
    path, _ = make_store(tmp_path)
    with sqlite3.connect(path) as connection:
        (root,) = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'statetools_runs'"
        ).fetchone()
    copy = tmp_path / "runs-page.db"
    data = bytearray(path.read_bytes())
    data[(root - 1) * PAGE : root * PAGE] = b"\xff" * PAGE  # the table; its index is intact
    copy.write_bytes(bytes(data))
    store = st.SqliteStore(copy)
    assert store.sessions() == [st.SessionInfo(f"s{n}", "damaged", 0, 0.0) for n in range(8)]
    with pytest.raises(StoreDamaged) as error:
        store.load("s1")
    assert error.value.message == (
        "the session store is damaged (reading session 's1'): database disk image is malformed"
    )
