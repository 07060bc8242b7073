"""read_skill_file under attack: a link swapped while reading never leads out of the
skill's folder, and a huge file is not read whole."""

from __future__ import annotations

import os
import sys
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path

import statetools as st
from statetools.sections.skills import MAX_FILE_CHARS, file_reader

INSIDE = "the skill's own notes\n"
SECRET = "top secret\n"
REFUSED = "Cannot read 'notes.md': it leads outside the skill's folder."


def skill_with_link(tmp_path: Path) -> tuple[Path, Path, Path]:
    folder = tmp_path / "skills" / "pdf-forms"
    folder.mkdir(parents=True)
    (folder / "inside.md").write_text(INSIDE, encoding="utf-8")
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    return folder, folder / "inside.md", secret


def test_a_link_swapped_during_reads_never_leaks_a_file_outside_the_folder(
    tmp_path: Path,
) -> None:
    folder, inside, secret = skill_with_link(tmp_path)
    link = folder / "notes.md"
    os.symlink(inside, link)
    reader = file_reader({"pdf-forms": folder.resolve()})
    stop = threading.Event()

    def swap() -> None:  # point notes.md inside, then outside, atomically, as fast as it can
        spare = folder / "spare"
        while not stop.is_set():
            for target in (inside, secret):
                os.symlink(target, spare)
                os.replace(spare, link)

    answers: Counter[str] = Counter()
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # let the swapper run between any two steps of a read
    swapper = threading.Thread(target=swap)
    swapper.start()
    try:
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            for _ in range(100):
                answers[reader.call({"skill": "pdf-forms", "path": "notes.md"}).text] += 1
    finally:
        stop.set()
        swapper.join()
        sys.setswitchinterval(switch)
    assert answers[SECRET] == 0, f"{answers[SECRET]} of {answers.total()} reads leaked"
    assert set(answers) == {INSIDE, REFUSED}


def test_links_inside_the_folder_are_followed_and_those_leaving_it_refused(
    tmp_path: Path,
) -> None:
    folder, _, secret = skill_with_link(tmp_path)
    (folder / "docs").mkdir()
    os.symlink("../inside.md", folder / "docs" / "up.md")  # inside, through ..
    os.symlink("docs", folder / "alias")  # a folder link inside
    os.symlink("../../../secret.txt", folder / "docs" / "out.md")  # leaves through ..
    os.symlink(secret, folder / "absolute.md")
    os.symlink(folder.resolve() / "docs" / ".." / "inside.md", folder / "full.md")
    os.symlink(tmp_path, folder / "parent")  # a folder link outside
    os.symlink("loop.md", folder / "loop.md")
    reader = file_reader({"pdf-forms": folder})

    def read(path: str) -> str:
        return reader.call({"skill": "pdf-forms", "path": path}).text

    assert read("docs/up.md") == INSIDE
    assert read("alias/up.md") == INSIDE
    assert read("full.md") == INSIDE
    for path in ("docs/out.md", "alias/out.md", "absolute.md", "parent/secret.txt", "loop.md"):
        assert read(path) == f"Cannot read '{path}': it leads outside the skill's folder."
    assert read("docs") == (
        "Skill 'pdf-forms' has no file 'docs'. Its files: absolute.md, full.md, "
        "inside.md, loop.md, docs/out.md, docs/up.md."
    )
    assert read("inside.md/x").startswith("Skill 'pdf-forms' has no file 'inside.md/x'.")


def test_a_huge_file_is_read_only_up_to_the_answer_limit(tmp_path: Path) -> None:
    folder, _, _ = skill_with_link(tmp_path)
    line = "0123456789" * 9 + "abcdefgh\n"  # 99 characters
    with open(folder / "huge.txt", "w", encoding="utf-8") as file:
        file.write(line * 10_000)  # 990,000 characters
        file.seek(300_000_000 - 1)  # 300 MB, mostly a hole
        file.write("\n")
    reader = file_reader({"pdf-forms": folder})
    tracemalloc.start()
    try:
        text = reader.call({"skill": "pdf-forms", "path": "huge.txt"}).text
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    expected = (line * (MAX_FILE_CHARS // len(line) + 1))[:MAX_FILE_CHARS]
    assert text == expected + f"\n[cut off after {MAX_FILE_CHARS} characters]"
    assert peak < 5_000_000, f"reading the file took {peak:,} bytes"


def test_a_fifo_in_the_folder_is_not_a_file(tmp_path: Path) -> None:
    folder, _, _ = skill_with_link(tmp_path)
    os.mkfifo(folder / "pipe")
    reader = file_reader({"pdf-forms": folder})
    text = reader.call({"skill": "pdf-forms", "path": "pipe"}).text
    assert text == "Skill 'pdf-forms' has no file 'pipe'. Its files: inside.md, pipe."


def test_st_load_skills_reader_is_the_one_tested(tmp_path: Path) -> None:
    folder, _, _ = skill_with_link(tmp_path)
    (folder / "SKILL.md").write_text("---\nname: pdf-forms\ndescription: Forms.\n---\nBody\n")
    skills = st.load_skills(folder.parent)
    reader = next(t for t in skills.common_tools if t.name == "read_skill_file")
    assert reader.call({"skill": "pdf-forms", "path": "inside.md"}).text == INSIDE
