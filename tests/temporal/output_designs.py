"""A design for the Temporal tests of structured output: one lookup tool, an output
type, and scripts whose final answers fit it on the second try, or never."""

from __future__ import annotations

from typing import Any

import attrs

from statetools.temporal import ScriptByRequest


def grade_of(student: str) -> str:
    """Look up a student's grade."""
    return f"{student}: B, 7 points"


@attrs.frozen
class Verdict:
    grade: str
    score: int


DESIGN = [grade_of]
PROMPT = "Grade Ada."
STEPS: list[Any] = [
    ("grade_of", {"student": "Ada"}),
    "Ada got a B.",
    '```json\n{"grade": "B", "score": 7}\n```',
]
MODEL = ScriptByRequest(STEPS)
NEVER = ScriptByRequest([("grade_of", {"student": "Ada"}), "Ada got a B.", '{"grade": "B"}'])
