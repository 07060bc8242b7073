"""Testing kit: run a definition against a script, snapshot its trace and its diagram.

Installed statetools registers a pytest plugin (``statetools.testing.plugin``) with the
fixtures ``scripted_model``, ``trace_snapshot`` and ``dot_snapshot``; the snapshot
fixtures need syrupy (``pip install statetools[testing]``). A whole test::

    import statetools as st
    from statetools.testing import run_scripted

    def test_research(trace_snapshot):
        result = run_scripted(research_playbook(), [("search", {"query": "tides"}), "Done."])
        assert result == trace_snapshot

Without pytest:

>>> from statetools.testing import run_scripted
>>> search = st.Tool.create("search", "Search the web", lambda query: "found")
>>> research = st.PlaybookTool("research", "Research").with_tool(search)
>>> run_scripted(research, [("search", {"query": "tides"}), "Done."]).output
'Done.'

Accept an intended change with ``pytest --snapshot-update``. Importing this package
needs neither pytest nor syrupy; ``statetools.testing.snapshots`` (the syrupy
extensions) needs syrupy.
"""

from statetools.testing.runs import (
    VOLATILE_FIELDS,
    LoopOptions,
    Script,
    ScriptedModelFactory,
    format_trace,
    run_scripted,
)

__all__ = [
    "LoopOptions",
    "Script",
    "ScriptedModelFactory",
    "VOLATILE_FIELDS",
    "format_trace",
    "run_scripted",
]
