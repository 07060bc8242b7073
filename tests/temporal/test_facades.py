"""Facades whose calls run code of their own run in the tool activity; the workflow's
scheduler takes in what they opened without running them, and the session ends as
a local run of the same design does (messages, state and trace)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

import statetools as st
from statetools.engine.state import DisclosureState
from statetools.messages import messages_from_json
from statetools.temporal import SessionSettings, session_worker, start_session
from tests.temporal import mcp_design
from tests.temporal.comparing import comparable
from tests.temporal.conftest import DevServer
from tests.temporal.facade_designs import DESIGN, MODEL, WHERE

REFERENCE = "tests.temporal.facade_designs:DESIGN"
PROMPT = "When is high tide in Brest?"


def _session(server: DevServer, settings: SessionSettings) -> Any:
    async def main() -> Any:
        queue = f"q-{uuid.uuid4().hex}"
        async with session_worker(server.env.client, queue, [REFERENCE], MODEL):
            handle = await start_session(
                server.env.client,
                REFERENCE,
                PROMPT,
                id=uuid.uuid4().hex,
                task_queue=queue,
                settings=settings,
            )
            return await handle.result()

    return server.loop.run_until_complete(main())


@pytest.mark.parametrize("turns_per_run", [200, 1])
def test_facades_with_code_of_their_own_run_in_activities(
    dev_server: DevServer, turns_per_run: int
) -> None:
    WHERE.clear()
    result = _session(dev_server, SessionSettings(turns_per_run=turns_per_run))
    in_temporal = list(WHERE)
    WHERE.clear()
    local = st.ToolLoop(MODEL).run(PROMPT, tools=DESIGN)

    assert result.runs == (1 if turns_per_run == 200 else 8)  # 7 turns, then the end
    assert set(in_temporal) == {"selector in an activity", "write_note in an activity"}
    assert in_temporal.count("write_note in an activity") == 1
    assert WHERE == ["selector in the workflow", "write_note in the workflow"]  # local: in-process
    assert result.output == local.output
    assert messages_from_json(result.messages) == list(local.messages)
    assert DisclosureState.from_json(result.state) == local.state
    assert comparable(result.trace) == comparable(local.trace)
    assert [m.content for m in local.messages if m.role == "tool"] == [
        "Tools now available: tide_table, tide_alert.",
        "high tide in Brest at 06:12",
        "Tool 'forecast' is locked. Call first: weather.",
        "tide alert level 3 sent",
        'Tools matching "moon phase", best first:\n'
        "- moon_phase: The phase of the moon on a date.\n"
        "Tools now available: moon_phase.",
        "full moon on 2026-11-23",
        "wrote 10 characters to tides\n[now available: read_note, write_note]",
        "Tools now available: tide_table, tide_alert.",
    ]


def test_an_mcp_facade_lists_its_server_in_an_activity(dev_server: DevServer) -> None:
    reference = "tests.temporal.mcp_design:DESIGN"
    prompt = "What does note a say?"

    async def main() -> Any:
        queue = f"q-{uuid.uuid4().hex}"
        async with session_worker(dev_server.env.client, queue, [reference], mcp_design.MODEL):
            handle = await start_session(
                dev_server.env.client, reference, prompt, id=uuid.uuid4().hex, task_queue=queue
            )
            return await handle.result()

    mcp_design.LISTED.clear()
    result = dev_server.loop.run_until_complete(main())
    assert mcp_design.LISTED == ["an activity"]  # once: the server keeps its listing
    local = st.ToolLoop(mcp_design.MODEL).run(prompt, tools=mcp_design.DESIGN)
    assert messages_from_json(result.messages) == list(local.messages)
    assert DisclosureState.from_json(result.state) == local.state
    assert comparable(result.trace) == comparable(local.trace)
    assert [m.content for m in local.messages if m.role == "tool"] == [
        "Tools now available: read_note, write_note.",
        "Note a: buy milk",
    ]
