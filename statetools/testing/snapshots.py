"""syrupy extensions for statetools: traces as ``.trace`` text, diagrams as ``.dot`` files.

This module needs syrupy (``pip install statetools[testing]``). The pytest plugin gives
them as the ``trace_snapshot`` and ``dot_snapshot`` fixtures; with syrupy's own
``snapshot`` fixture they are also usable directly::

    from statetools.testing.snapshots import TraceSnapshotExtension

    def test_run(snapshot):
        assert result == snapshot.use_extension(TraceSnapshotExtension)

Each assertion is stored as one text file under ``__snapshots__/<test file>/``, named
after the test (``test_run.trace``), so a changed transition is a plain diff in review.
"""

from __future__ import annotations

from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SerializedData

from statetools.testing.runs import format_trace


def _text(data: str) -> str:
    text = data.replace("\r\n", "\n").replace("\r", "\n")
    return text if text.endswith("\n") else text + "\n"


class TraceSnapshotExtension(SingleFileSnapshotExtension):
    """Stores a run's trace as readable text (see :func:`statetools.testing.format_trace`).

    Compares a :class:`~statetools.LoopResult`, a :class:`~statetools.Trace`, events, or
    text already formatted::

        def test_research_run(snapshot):
            result = st.ToolLoop(model).run("Why tides?", tools=[research])
            assert result == snapshot.use_extension(TraceSnapshotExtension)
    """

    file_extension = "trace"
    _write_mode = WriteMode.TEXT

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        """The trace text of ``data``.

        >>> result = ToolLoop(st.models.ScriptedModel(["Done."])).run("Hi", tools=[])
        >>> print(TraceSnapshotExtension().serialize(result), end="")
        turn 1 | visible: (none)
          answer: "Done."
        finished: answer after 1 iteration
        """
        if isinstance(data, str):
            return _text(data)
        return format_trace(data)


class DotSnapshotExtension(SingleFileSnapshotExtension):
    """Stores a diagram's DOT text as a ``.dot`` file (renderable, diffable in review).

    Compares text, e.g. ``st.render(graph, format="dot")``, or an object with a DOT
    ``source`` attribute (a ``graphviz.Digraph``). Line endings are normalized and the
    file ends with a newline::

        def test_research_diagram(snapshot):
            dot = st.render([research], format="dot").text
            assert dot == snapshot.use_extension(DotSnapshotExtension)
    """

    file_extension = "dot"
    _write_mode = WriteMode.TEXT

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        """The DOT text of ``data``, ending with one newline.

        >>> DotSnapshotExtension().serialize("digraph { a -> b }").splitlines(keepends=True)
        ['digraph { a -> b }\\n']
        """
        source: Any = data if isinstance(data, str) else getattr(data, "source", None)
        if not isinstance(source, str):
            raise TypeError(
                f"dot_snapshot compares DOT text, not {type(data).__name__}; "
                "pass st.render(graph, format='dot')"
            )
        return _text(source)
