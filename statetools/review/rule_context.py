"""What the rules of :func:`~statetools.review.check.check` share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from statetools.errors import StatetoolsError
from statetools.review.dead import dead_reasons
from statetools.review.findings import RULES_BY_CODE, Finding, Severity
from statetools.review.model import DesignView, Reachability
from statetools.review.tokens import Provider

if TYPE_CHECKING:
    from statetools.review.explore import Exploration


@attrs.frozen
class RuleContext:
    """What every rule reads: the design, what may happen in it, and the limits."""

    design: DesignView
    reach: Reachability
    token_budget: int | None
    max_facade_depth: int
    provider: Provider
    max_states: int
    disabled: tuple[str, ...] = ()
    """The codes of the rules switched off."""
    _explored: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False)

    def exploration(self) -> Exploration | StatetoolsError:
        """The search over the design's disclosure states (at most ``max_states``; not
        complete beyond), shared by the rules; the error when it cannot run."""
        if "result" not in self._explored:
            from statetools.review.explore import search

            try:
                found: Exploration | StatetoolsError = search(
                    self.design, self.provider, self.max_states, None, stop_at_limit=True
                )
            except StatetoolsError as error:
                found = error
            self._explored["result"] = found
        result: Exploration | StatetoolsError = self._explored["result"]
        return result

    def dead(self) -> dict[str, str]:
        """Every tool that can never become visible -> why (worked out once)."""
        if "dead" not in self._explored:
            self._explored["dead"] = dead_reasons(self.design, self.reach)
        reasons: dict[str, str] = self._explored["dead"]
        return reasons

    def finding(
        self, code: str, message: str, path: str, severity: Severity | None = None
    ) -> Finding:
        """A finding of rule ``code`` (with the rule's severity unless given)."""
        return Finding(code, severity or RULES_BY_CODE[code].severity, message, path)
