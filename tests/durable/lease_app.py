"""A runner continuing a saved session, run in a subprocess by the lease tests.

Usage: python lease_app.py DB LOG OWNER. The model asks for ``step`` 1 to 5, one per
request, then answers "done"; each step sleeps STEP_SECONDS (env, default 0.3), then
writes "OWNER step N" to LOG. With CRASH=N the process dies while step N runs (before
its line). With HOLD=N:FILE step N waits (up to 120 s) until FILE exists. LEASE sets
the store's lease_seconds. A refused run prints the error and exits 2.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import statetools as st
from statetools.models import ModelRequest, ScriptedModel

DB, LOG, OWNER = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
STEPS = 5


@st.llm_tool("Do one step of the work.")
def step(n: int) -> str:
    time.sleep(float(os.environ.get("STEP_SECONDS", "0.3")))
    hold, _, until = os.environ.get("HOLD", "").partition(":")
    deadline = time.monotonic() + 120
    while hold == str(n) and not Path(until).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if os.environ.get("CRASH") == str(n):
        os._exit(3)
    with LOG.open("a") as log:
        log.write(f"{OWNER} step {n}\n")
    return f"step {n} done"


def next_step(request: ModelRequest) -> object:
    done = sum(1 for message in request.messages if message.role == "tool")
    return ("step", {"n": done + 1}) if done < STEPS else "done"


def main() -> int:
    store = st.SqliteStore(DB, owner=OWNER, lease_seconds=float(os.environ.get("LEASE", "30")))
    model = ScriptedModel([next_step] * (STEPS + 1))
    try:
        result = st.ToolLoop(model).run(None, tools=[step], session="s1", store=store)
    except st.StatetoolsError as error:
        print(error)
        return 2
    finally:
        store.close()
    print(result.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
