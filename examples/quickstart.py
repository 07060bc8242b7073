"""Quickstart: a scripted conversation with two tools, printed as a transcript.

Run it with ``make quickstart`` or ``python examples/quickstart.py``. No API key needed: the
ScriptedModel plays the LLM, so the run is the same every time.
"""

from __future__ import annotations

from typing import Annotated

import statetools as st

WEATHER = {"paris": 18, "oslo": 4}


@st.llm_tool("Current temperature of a city in degrees Celsius.")
def temperature(city: Annotated[str, st.Param("City name, e.g. 'Paris'")]) -> int:
    try:
        return WEATHER[city.lower()]
    except KeyError:
        raise ValueError(f"no weather station in {city}") from None


@st.llm_tool("Convert degrees Celsius to Fahrenheit.")
def to_fahrenheit(celsius: float) -> float:
    return round(celsius * 9 / 5 + 32, 1)


def main() -> None:
    model = st.models.ScriptedModel(
        [
            [("temperature", {"city": "Paris"}), ("temperature", {"city": "Atlantis"})],
            ("to_fahrenheit", {"celsius": 18}),
            "It is 18 °C (64.4 °F) in Paris; there is no station in Atlantis.",
        ]
    )
    loop = st.ToolLoop(model, system_prompt="You answer weather questions with the tools.")
    result = loop.run(
        "How warm is it in Paris and Atlantis, in Fahrenheit?",
        tools=[temperature, to_fahrenheit],
    )
    for message in result.messages:
        if isinstance(message, st.AssistantMessage):
            for call in message.tool_calls:
                print(f"assistant -> {call.name}({call.arguments})")
            if message.content:
                print(f"assistant: {message.content}")
        elif isinstance(message, st.ToolMessage):
            marker = " (error)" if message.is_error else ""
            print(f"tool {message.name}{marker}: {message.content}")
        else:
            print(f"{message.role}: {message.content}")
    print(f"\n{result.iterations} model calls; output: {result.output!r}")


if __name__ == "__main__":
    main()
