"""The system message that prompt-writing definitions (sections, skills) keep current."""

from __future__ import annotations

from statetools.engine.prompt_part import prompt_parts, prompt_text, prompt_unfolds
from statetools.engine.scheduler import Scheduler
from statetools.messages import Message, SystemMessage


def place_prompt(
    scheduler: Scheduler, messages: list[Message], static: bool
) -> tuple[int | None, bool]:
    """Put the prompt text of the run's sections into ``messages``; returns the index of
    that system message (None when the run has no sections), and whether the first
    turn must restart the conversation.

    A history that already holds it (a resumed run) is kept as it is; when sections
    were read after it was written and the model cannot take new tools within a
    conversation (``static``), the first turn restarts the conversation (as the
    unbroken run did). Otherwise the message goes after the leading system messages
    (the loop's ``system_prompt``).

    >>> place_prompt(Scheduler.for_items([]), [], False)
    (None, False)
    """
    graph = scheduler.graph
    if not prompt_parts(graph):
        return None, False
    unfolds = scheduler.snapshot().unfolds
    current = prompt_text(graph, unfolds)
    if current is None:
        return None, False
    known = {prompt_text(graph, unfolds, n) for n in range(len(prompt_unfolds(graph, unfolds)))}
    known.add(current)
    for index, message in enumerate(messages):
        if isinstance(message, SystemMessage) and message.content in known:
            return index, static and message.content != current
    leading = 0
    while leading < len(messages) and isinstance(messages[leading], SystemMessage):
        leading += 1
    messages.insert(leading, SystemMessage(current))
    return leading, False


def refresh_prompt(scheduler: Scheduler, messages: list[Message], index: int | None) -> None:
    """Write the sections' prompt text again (at a conversation restart: the sections
    expanded so far now show in full).

    >>> refresh_prompt(Scheduler.for_items([]), [], None)
    """
    if index is None:
        return
    text = prompt_text(scheduler.graph, scheduler.snapshot().unfolds)
    if text is not None:
        messages[index] = SystemMessage(text)
