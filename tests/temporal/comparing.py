"""Traces of a Temporal session and of a local run, side by side: the same events
apart from times and the run id."""

from __future__ import annotations

from typing import Any

import statetools as st

VARYING = {"at": 0.0, "duration": 0.0, "run_id": "run"}


def comparable(trace: st.Trace | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events as JSON, with their times and run ids set to fixed values."""
    events = trace.to_json() if isinstance(trace, st.Trace) else trace
    return [{k: VARYING.get(k, v) if k in VARYING else v for k, v in e.items()} for e in events]
