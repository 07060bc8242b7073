"""The system message that prompt-writing definitions (sections, skills) keep current."""

from __future__ import annotations

from typing import TYPE_CHECKING

from statetools.disclosure.prompt_part import prompt_parts, prompt_text, prompt_unfolds
from statetools.messages import SystemMessage

if TYPE_CHECKING:
    from statetools.loop.run import Run


def place_prompt(run: Run) -> int | None:
    """Put the prompt text of the run's sections into its messages; returns the index
    of that system message (None when the run has no sections).

    A history that already holds it (a resumed run) is kept as it is; when sections
    were read after it was written and the model cannot take new tools within a
    conversation, the first turn restarts the conversation (as the unbroken run
    did). Otherwise the message goes after the leading system messages (the loop's
    ``system_prompt``)."""
    graph = run.scheduler.graph
    if not prompt_parts(graph):
        return None
    unfolds = run.scheduler.snapshot().unfolds
    current = prompt_text(graph, unfolds)
    if current is None:
        return None
    known = {prompt_text(graph, unfolds, n) for n in range(len(prompt_unfolds(graph, unfolds)))}
    known.add(current)
    for index, message in enumerate(run.messages):
        if isinstance(message, SystemMessage) and message.content in known:
            static = not run.loop.model.capabilities.supports_dynamic_tools
            if static and message.content != current:
                run.conversation_tools = ()  # differs from any tool set: restart first
            return index
    leading = 0
    while leading < len(run.messages) and isinstance(run.messages[leading], SystemMessage):
        leading += 1
    run.messages.insert(leading, SystemMessage(current))
    return leading


def refresh_prompt(run: Run, index: int | None) -> None:
    """Write the sections' prompt text again (at a conversation restart: the sections
    expanded so far now show in full)."""
    if index is None:
        return
    text = prompt_text(run.scheduler.graph, run.scheduler.snapshot().unfolds)
    if text is not None:
        run.messages[index] = SystemMessage(text)
