"""Hostile SKILL.md front matter meets the limits of design YAML (size, depth, alias
expansion) and is refused with a SpecError naming the file and line, at once."""

from __future__ import annotations

from pathlib import Path

import pytest

import statetools as st

LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([previous] * 9)}]\n"
    for name, previous in zip("abcdefgh", ['"lol"', *(f"*{n}" for n in "abcdefg")], strict=True)
)
BOMB = f"---\n{LAUGHS}name: [{', '.join(['*h'] * 9)}]\ndescription: Fill forms.\n---\nBody\n"


def refused(tmp_path: Path, text: str) -> st.SpecError:
    folder = tmp_path / "skills" / "pdf-forms"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    with pytest.raises(st.SpecError) as caught:
        st.load_skills(tmp_path / "skills")
    return caught.value


def where(tmp_path: Path, line: int) -> str:
    return f"{tmp_path / 'skills' / 'pdf-forms' / 'SKILL.md'}:{line}"


def test_an_alias_bomb_in_the_name_is_refused_at_once(tmp_path: Path) -> None:
    assert len(BOMB.encode()) == 452
    error = refused(tmp_path, BOMB)
    assert str(error) == (
        f"{where(tmp_path, 8)}: the front matter is refused: the YAML expands to more than "
        "20,000,000 characters (aliases repeat what their anchors hold) "
        "Hint: repeat less through aliases"
    )


def test_front_matter_nested_5000_deep_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    text = "---\nname: pdf-forms\ndescription: x\nextra:\n" + "- " * 5000 + "x\n---\nBody\n"
    error = refused(tmp_path, text)
    assert str(error) == (
        f"{where(tmp_path, 5)}: the front matter is refused: the YAML is nested more than "
        "256 levels deep Hint: flatten the data"
    )


def test_flow_nesting_past_the_parsers_own_depth_is_a_spec_error(tmp_path: Path) -> None:
    text = "---\nname: pdf-forms\ndescription: " + "[" * 5000 + "]" * 5000 + "\n---\nBody\n"
    error = refused(tmp_path, text)
    # libyaml stops flow nesting itself (its wording, or safeyaml's, names the depth)
    assert error.path == where(tmp_path, 3)
    assert error.message.startswith("the front matter is ")
    assert "nest" in error.message


def test_a_skill_md_past_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    text = "---\nname: pdf-forms\ndescription: x\n---\n" + "x" * 9_000_000
    error = refused(tmp_path, text)
    assert str(error) == (
        f"{where(tmp_path, 1)}: SKILL.md is 9,000,039 bytes, more than the limit of 8,000,000 "
        "Hint: keep SKILL.md short; long material goes in files of the skill's folder"
    )


def test_a_long_value_in_the_name_is_shown_cut(tmp_path: Path) -> None:
    text = "---\nname: [" + ", ".join(["abcdefgh"] * 100) + "]\ndescription: x\n---\nBody\n"
    error = refused(tmp_path, text)
    shown = repr(["abcdefgh"] * 100)[:80]
    assert str(error) == (
        f"{where(tmp_path, 2)}: invalid skill name {shown}... "
        "Hint: write name: with 1-64 lowercase letters, digits and single hyphens"
    )
