"""A scripted model whose answer depends only on the request, so a model activity
retried or replayed on another worker answers the same."""

from __future__ import annotations

from collections.abc import Sequence

from statetools.errors import ScriptExhaustedError
from statetools.messages import AssistantMessage
from statetools.models.base import ModelCapabilities, ModelRequest, ModelResponse
from statetools.models.scripted import ScriptedModel, Step
from statetools.wording import counted


class ScriptByRequest:
    """Plays ``steps`` (as :class:`~statetools.models.ScriptedModel` takes them), picking
    the step by the number of assistant messages already in the request: request 1
    gets step 1, whichever worker asks and however often.

    >>> import asyncio
    >>> from statetools.messages import UserMessage
    >>> model = ScriptByRequest(["Hello!"])
    >>> response = asyncio.run(model.complete(ModelRequest((UserMessage("Hi"),))))
    >>> response.message.content
    'Hello!'
    """

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)
        self.capabilities_value = ModelCapabilities()

    @property
    def capabilities(self) -> ModelCapabilities:
        """Dynamic tools, parallel calls.

        >>> ScriptByRequest(["Hi"]).capabilities.supports_dynamic_tools
        True
        """
        return self.capabilities_value

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The step for this request.

        >>> import asyncio
        >>> from statetools.messages import AssistantMessage, UserMessage
        >>> model = ScriptByRequest(["Hello!", "Bye."])
        >>> history = (UserMessage("Hi"), AssistantMessage("Hello!"), UserMessage("Go on"))
        >>> second = ModelRequest(history)
        >>> asyncio.run(model.complete(second)).message.content  # the step of request 2
        'Bye.'
        """
        index = sum(isinstance(m, AssistantMessage) for m in request.messages)
        if index >= len(self.steps):
            raise ScriptExhaustedError(
                f"the script has no step for request {index + 1} "
                f"(it has {counted(len(self.steps), 'step')})",
                path="ScriptByRequest",
                hint="add a step, or end the script with a final text answer",
            )
        return await ScriptedModel([self.steps[index]]).complete(request)
