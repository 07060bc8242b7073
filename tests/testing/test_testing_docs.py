"""The docstring examples of statetools.testing run as written."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from statetools.testing import runs


@pytest.mark.parametrize("module", [runs])
def test_docstring_examples(module: ModuleType) -> None:
    outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert outcome.attempted > 0
    assert outcome.failed == 0
