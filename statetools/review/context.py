"""What the rules of :func:`~statetools.review.check.check` share."""

from __future__ import annotations

import attrs

from statetools.review.findings import RULES_BY_CODE, Finding, Severity
from statetools.review.model import DesignView, Reachability
from statetools.review.tokens import Provider


@attrs.frozen
class RuleContext:
    """What every rule reads: the design, what may happen in it, and the limits."""

    design: DesignView
    reach: Reachability
    token_budget: int | None
    max_facade_depth: int
    provider: Provider
    max_states: int

    def finding(
        self, code: str, message: str, path: str, severity: Severity | None = None
    ) -> Finding:
        """A finding of rule ``code`` (with the rule's severity unless given)."""
        return Finding(code, severity or RULES_BY_CODE[code].severity, message, path)
