"""Shared fixtures of the statetools test suite.

Hypothesis profiles: locally the property tests explore new examples on every run
(the ``default`` profile); in CI (the ``CI`` environment variable is set, as
``.ci/run`` does) they are derandomized, so a submission's result does not depend on
luck. A failure found locally is pinned with ``@example`` next to the test.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("default")
settings.load_profile("ci" if os.environ.get("CI") else "default")
