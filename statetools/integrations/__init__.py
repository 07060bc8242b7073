"""Bridges: statetools disclosure inside other agent frameworks, and OpenTelemetry traces.

Each module is an optional extra and imports its framework; import the one you use:
``statetools.integrations.pydantic_ai``, ``.langchain``, ``.openai_agents``, ``.otel``.
"""
