"""The statetools pytest plugin, loaded automatically when statetools is installed.

Fixtures:

- ``scripted_model``: a factory, ``scripted_model(steps) -> ScriptedModel``; ``steps``
  may also be a YAML script (a path relative to the test file, or YAML text);
- ``trace_snapshot``: compares a run's trace (a ``LoopResult`` or ``Trace``) with the
  stored ``.trace`` text, ``assert result == trace_snapshot``;
- ``dot_snapshot``: compares DOT text with the stored ``.dot`` file,
  ``assert st.render(graph, format="dot") == dot_snapshot``.

The snapshot fixtures need syrupy (``pip install statetools[testing]``); without it,
only the tests that use them fail, with a message saying so. Accept changes with
``pytest --snapshot-update``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest

from statetools.models.base import ModelCapabilities
from statetools.models.scripted import ScriptedModel
from statetools.testing.runs import Script, ScriptedModelFactory

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion

MISSING_SYRUPY = (
    "the {fixture} fixture needs syrupy, which is not installed. "
    "Install it with: pip install 'statetools[testing]'"
)


def syrupy_installed() -> bool:
    """Whether syrupy can be imported (checked without importing it).

    >>> syrupy_installed()
    True
    """
    try:
        return importlib.util.find_spec("syrupy") is not None
    except (ImportError, ValueError):
        return False


@pytest.fixture
def scripted_model(request: pytest.FixtureRequest) -> ScriptedModelFactory:
    """A factory of scripted models: ``scripted_model(steps) -> ScriptedModel``.

    ``steps`` is a list of steps, YAML text, or the path of a YAML script (relative
    paths are read next to the test file)::

        def test_search_then_answer(scripted_model):
            model = scripted_model([("search", {"q": "tides"}), "The moon."])
            assert st.ToolLoop(model).run("Why tides?", tools=[search]).output == "The moon."
    """
    here = request.path.parent

    def make(steps: Script, *, capabilities: ModelCapabilities | None = None) -> ScriptedModel:
        if not isinstance(steps, str | Path):
            return ScriptedModel(steps, capabilities=capabilities)
        if isinstance(steps, Path) or ("\n" not in steps and steps.endswith((".yaml", ".yml"))):
            steps = here / steps
        model = ScriptedModel.from_yaml(steps)
        if capabilities is not None:
            model.capabilities_value = capabilities
        return model

    return make


if syrupy_installed():

    @pytest.fixture
    def trace_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
        """syrupy's ``snapshot``, storing a run's trace as a ``.trace`` text file."""
        from statetools.testing.snapshots import TraceSnapshotExtension

        return snapshot.use_extension(TraceSnapshotExtension)

    @pytest.fixture
    def dot_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
        """syrupy's ``snapshot``, storing DOT text as a ``.dot`` file."""
        from statetools.testing.snapshots import DotSnapshotExtension

        return snapshot.use_extension(DotSnapshotExtension)

else:  # pragma: no cover - exercised by a test that hides syrupy

    @pytest.fixture(name="trace_snapshot")
    def _trace_snapshot_unavailable() -> NoReturn:
        """Fails the test: syrupy is missing."""
        pytest.fail(MISSING_SYRUPY.format(fixture="trace_snapshot"), pytrace=False)

    @pytest.fixture(name="dot_snapshot")
    def _dot_snapshot_unavailable() -> NoReturn:
        """Fails the test: syrupy is missing."""
        pytest.fail(MISSING_SYRUPY.format(fixture="dot_snapshot"), pytrace=False)
