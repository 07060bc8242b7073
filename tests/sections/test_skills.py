"""Agent Skills folders: listed in the prompt, loaded on demand, files read inside the
skill's folder only, bad front matter refused with the file and line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import statetools as st
from statetools.models import ScriptedModel

PDF = """\
---
name: pdf-forms
description: Fill in PDF forms. Use when the user sends a form to complete.
allowed-tools: fill_field save_pdf
---
# Filling PDF forms

1. Read references/fields.md for the field names.
2. Call fill_field for each field, then save_pdf.
"""

TRAVEL = """\
---
name: travel
description: Book trains and hotels.
---
Always ask for the travel dates first.
"""

TONE = """\
---
name: tone
description: How to write to customers.
---
Be warm and brief.
"""


def write_skills(root: Path) -> Path:
    skills = root / "skills"
    for name, text in (("pdf-forms", PDF), ("travel", TRAVEL), ("tone", TONE)):
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(text, encoding="utf-8")
    references = skills / "pdf-forms" / "references"
    references.mkdir()
    (references / "fields.md").write_text("Fields: name, date, signature.\n", encoding="utf-8")
    (root / "secret.txt").write_text("top secret\n", encoding="utf-8")
    return skills


def design_tools() -> list[st.Tool]:
    return [
        st.Tool.create("fill_field", "Fill a form field", lambda field, value: f"{field}={value}"),
        st.Tool.create("save_pdf", "Save the filled form", lambda: "saved"),
    ]


PROMPT = """\
## pdf-forms

Fill in PDF forms. Use when the user sends a form to complete.
(Summary only: call load_skill with key "pdf-forms" to read it in full.)

## tone

How to write to customers.
(Summary only: call load_skill with key "tone" to read it in full.)

## travel

Book trains and hotels.
(Summary only: call load_skill with key "travel" to read it in full.)"""

PDF_BODY = """\
## pdf-forms

# Filling PDF forms

1. Read references/fields.md for the field names.
2. Call fill_field for each field, then save_pdf.

Files of this skill (read them with read_skill_file):
- references/fields.md
[now available: fill_field, save_pdf, read_skill_file]"""


def run(skills: st.Sections, steps: list[Any]) -> tuple[st.LoopResult, ScriptedModel]:
    model = ScriptedModel(steps)
    return st.ToolLoop(model).run("Fill in my form", tools=[skills]), model


def test_skills_are_listed_loaded_on_demand_and_their_files_read(tmp_path: Path) -> None:
    skills = st.load_skills(write_skills(tmp_path), tools=design_tools())
    assert skills.keys() == ["pdf-forms", "tone", "travel"]
    result, model = run(
        skills,
        [
            ("load_skill", {"key": "pdf-forms"}),
            ("read_skill_file", {"skill": "pdf-forms", "path": "references/fields.md"}),
            ("fill_field", {"field": "name", "value": "Ada"}),
            "Done.",
        ],
    )
    assert [(m.role, m.content) for m in model.requests[0].messages] == [
        ("system", PROMPT),
        ("user", "Fill in my form"),
    ]
    assert model.requests[0].tool_names == ["load_skill"]
    assert result.messages[3].content == PDF_BODY
    assert model.requests[1].tool_names == [
        "load_skill",
        "fill_field",
        "save_pdf",
        "read_skill_file",
    ]
    assert result.messages[5].content == "Fields: name, date, signature.\n"
    assert result.messages[7].content == "name=Ada"


def test_a_skill_without_allowed_tools_opens_only_the_file_reader(tmp_path: Path) -> None:
    skills = st.load_skills(write_skills(tmp_path), tools=design_tools())
    result, model = run(skills, [("load_skill", {"key": "tone"}), "ok"])
    assert result.messages[3].content == (
        "## tone\n\nBe warm and brief.\n[now available: read_skill_file]"
    )
    assert model.requests[1].tool_names == ["load_skill", "read_skill_file"]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (
            "../../secret.txt",
            "Cannot read '../../secret.txt': '..' is refused; give a path "
            "inside the skill's folder.",
        ),
        (
            "/etc/passwd",
            "Cannot read '/etc/passwd': absolute paths are refused; give a path "
            "inside the skill's folder.",
        ),
        ("escape.txt", "Cannot read 'escape.txt': it leads outside the skill's folder."),
        (
            "missing.md",
            "Skill 'pdf-forms' has no file 'missing.md'. Its files: "
            "escape.txt, references/fields.md.",
        ),
    ],
)
def test_paths_that_leave_the_skill_folder_are_refused(
    tmp_path: Path, path: str, text: str
) -> None:
    root = write_skills(tmp_path)
    os.symlink(tmp_path / "secret.txt", root / "pdf-forms" / "escape.txt")
    skills = st.load_skills(root, tools=design_tools())
    result, _ = run(
        skills,
        [
            ("load_skill", {"key": "pdf-forms"}),
            ("read_skill_file", {"skill": "pdf-forms", "path": path}),
            "ok",
        ],
    )
    answer = result.messages[5]
    assert (answer.content, answer.is_error) == (text, True)


def test_an_unknown_skill_in_read_skill_file_lists_the_skills(tmp_path: Path) -> None:
    skills = st.load_skills(write_skills(tmp_path), tools=design_tools())
    result, _ = run(
        skills,
        [("load_skill", {"key": "tone"}), ("read_skill_file", {"skill": "pdf", "path": "a"}), "ok"],
    )
    assert result.messages[5].content == "No skill is named 'pdf'. Skills: pdf-forms, tone, travel."


def bad_skill(tmp_path: Path, folder: str, text: str) -> st.SpecError:
    root = tmp_path / "bad"
    (root / folder).mkdir(parents=True)
    (root / folder / "SKILL.md").write_text(text, encoding="utf-8")
    with pytest.raises(st.SpecError) as caught:
        st.load_skills(root)
    return caught.value


@pytest.mark.parametrize(
    ("folder", "text", "line", "message"),
    [
        (
            "Bad_Name",
            "---\nname: Bad_Name\ndescription: x\n---\nbody\n",
            2,
            "invalid skill name 'Bad_Name'",
        ),
        (
            "other",
            "---\nname: travel\ndescription: x\n---\nbody\n",
            2,
            "the skill name 'travel' differs from its folder 'other'",
        ),
        (
            "travel",
            "---\nname: travel\n\ndescription: ''\n---\n",
            4,
            "the description must be text of 1 to 1024 characters",
        ),
        (
            "travel",
            "---\nname: travel\ndescription: " + "x" * 1025 + "\n---\n",
            3,
            "the description must be text of 1 to 1024 characters (it has 1025)",
        ),
        ("travel", "# no front matter\n", 1, "SKILL.md does not start with front matter"),
        (
            "travel",
            "---\nname: travel\ndescription: [oops\n---\n",
            4,
            "the front matter is not valid YAML",
        ),
        (
            "travel",
            "---\nname: travel\ndescription: ok\nallowed-tools: nope\n---\n",
            1,
            "allowed-tools names tools the design does not have: nope",
        ),
        (
            "a" * 65,
            "---\nname: " + "a" * 65 + "\ndescription: ok\n---\n",
            2,
            "invalid skill name '" + "a" * 65 + "'",
        ),
    ],
)
def test_bad_front_matter_names_the_file_and_line(
    tmp_path: Path, folder: str, text: str, line: int, message: str
) -> None:
    error = bad_skill(tmp_path, folder, text)
    assert error.path == f"{tmp_path / 'bad' / folder / 'SKILL.md'}:{line}"
    assert error.message.startswith(message)


def test_a_folder_without_skills_is_refused(tmp_path: Path) -> None:
    with pytest.raises(st.SpecError, match="no skills in"):
        st.load_skills(tmp_path)
    with pytest.raises(st.SpecError, match="no folder of skills"):
        st.load_skills(tmp_path / "nowhere")
