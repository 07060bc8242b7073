"""The engine every host drives: a run of the tool loop with no I/O.

``Conversation`` turns a model's response into the calls to run, answers the calls
that may not run, records every answer and says what it opened. The asyncio loop
(``ToolLoop``), the Temporal workflow, the bridges and the MCP gateway are hosts of
it. See docs/engine.md.
"""

from statetools.engine.calls import Call, Calls
from statetools.engine.conversation import Conversation
from statetools.engine.record import RunRecord

__all__ = ["Call", "Calls", "Conversation", "RunRecord"]
