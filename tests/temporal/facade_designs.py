"""A design whose facades run code of their own: a selector that builds a tool, a
search facade, and a plain facade whose inner tool is called directly through it.

``WHERE`` notes, for each run of the selector and of the directly called tool,
whether it ran in an activity (it must, in a Temporal session: never in the workflow).
"""

from __future__ import annotations

from typing import Any

from temporalio import activity

import statetools as st
from statetools.temporal import ScriptByRequest

WHERE: list[str] = []


def _note(what: str) -> None:
    WHERE.append(f"{what} in {'an activity' if activity.in_activity() else 'the workflow'}")


def forecast(city: str) -> str:
    """The weather forecast for a city."""
    return f"sun in {city}"


def tide_table(port: str) -> str:
    """High and low tides of a port."""
    return f"high tide in {port} at 06:12"


def moon_phase(date: str) -> str:
    """The phase of the moon on a date."""
    return f"full moon on {date}"


def sunrise(date: str) -> str:
    """When the sun rises on a date."""
    return f"sunrise on {date} at 07:58"


def write_note(name: str, text: str) -> str:
    """Write a note."""
    _note("write_note")
    return f"wrote {len(text)} characters to {name}"


def read_note(name: str) -> str:
    """Read a note."""
    return f"note {name} is empty"


def _alert(level: int) -> str:
    return f"tide alert level {level} sent"


def pick(arguments: dict[str, Any]) -> list[Any]:
    """Weather tools by topic; tides also get an alert tool built here."""
    _note("selector")
    if arguments["topic"] == "tides":
        alert = st.Tool.create(
            "tide_alert",
            "Send a tide alert.",
            _alert,
            schema=st.InputSchema.of(st.Parameter.integer("level", "Alert level")),
        )
        return ["tide_table", alert]
    return ["forecast"]


WEATHER = st.UnfoldingTool.selectable(
    "weather",
    "Open the weather tools for a topic.",
    [forecast, tide_table],
    st.InputSchema.of(st.Parameter.string("topic", "weather or tides")),
    pick,
)
ALMANAC = st.UnfoldingTool.searchable("almanac", "Search the almanac tools.", [moon_phase, sunrise])
NOTES = st.UnfoldingTool.of("notes", "Read and write notes.", [read_note, write_note])
DESIGN = [WEATHER, ALMANAC, NOTES]

STEPS: list[Any] = [
    ("weather", {"topic": "tides"}),
    [("tide_table", {"port": "Brest"}), ("forecast", {"city": "Paris"})],
    ("tide_alert", {"level": 3}),
    ("almanac", {"query": "moon phase"}),
    [
        ("moon_phase", {"date": "2026-11-23"}),
        ("notes", {"write_note": {"name": "tides", "text": "High at 6."}}),
    ],
    ("weather", {}),
    "High tide in Brest at 06:12, alert sent, full moon.",
]
MODEL = ScriptByRequest(STEPS)
