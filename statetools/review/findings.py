"""Findings of :func:`~statetools.review.check.check`, the rules that make them, the report."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Literal

import attrs

from statetools.wording import counted

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@attrs.frozen
class Rule:
    """One check: a stable ``code``, a short ``name``, its usual severity, what it finds.

    >>> rule = RULES_BY_CODE["ST008"]
    >>> rule.name, rule.severity, rule.summary
    ('empty-facade', 'error', 'an unfolding facade holds no tools')
    """

    code: str
    name: str
    severity: Severity
    summary: str


RULES: tuple[Rule, ...] = (
    Rule(
        "ST001",
        "unknown-reference",
        "error",
        "a condition or transition names a tool, machine or state that does not exist",
    ),
    Rule("ST002", "duplicate-tool", "error", "two different tools have the same name"),
    Rule(
        "ST003",
        "never-unlocks",
        "error",
        "a tool can never become visible (unsatisfiable condition, unlock cycle, "
        "unreachable states or facade)",
    ),
    Rule("ST004", "unreachable-state", "warning", "no transition that can fire leads to a state"),
    Rule("ST005", "trap-state", "error", "a non-final state has no transition out that can fire"),
    Rule("ST006", "no-final-path", "error", "no final state can be reached from a state"),
    Rule("ST007", "exit-from-final", "warning", "a transition leaves a final state"),
    Rule("ST008", "empty-facade", "error", "an unfolding facade holds no tools"),
    Rule("ST009", "facade-too-deep", "warning", "facades are nested deeper than the limit"),
    Rule(
        "ST010",
        "over-token-budget",
        "warning",
        "a set of tools visible together is larger than the token budget",
    ),
    Rule("ST011", "unused-state", "warning", "an enum state has no tools and no transitions"),
    Rule(
        "ST012",
        "invalid-tool-name",
        "error",
        "a provider rejects the tool name (a warning when only some providers do)",
    ),
    Rule(
        "ST013",
        "dead-transition",
        "warning",
        "a transition's tool is not available in its source state, so it never fires",
    ),
    Rule(
        "ST014",
        "no-tools-left",
        "error",
        "after some calls no tool is visible and no machine is in a final state",
    ),
    Rule(
        "ST015",
        "unreachable-section-tool",
        "error",
        "a tool of a prompt section can never show: no read of the section can happen",
    ),
    Rule(
        "ST016",
        "empty-section-summary",
        "warning",
        "a summary section has no summary and no title to show",
    ),
    Rule(
        "ST017",
        "duplicate-section-key",
        "error",
        "two sections have the same key among their siblings",
    ),
    Rule(
        "ST018",
        "hard-to-find-tool",
        "warning",
        "a search facade does not find a tool in its first results by its own description",
    ),
    Rule(
        "ST019",
        "mcp-tool-renamed",
        "warning",
        "an MCP tool got another name: its usual one is another of the server's tools' name",
    ),
    Rule(
        "ST020",
        "mcp-tool-missing",
        "warning",
        "an MCP facade names a tool its server does not have (the facade leaves it out)",
    ),
)
"""Every rule :func:`~statetools.review.check.check` applies, in code order.

>>> [rule.code for rule in RULES][:3], RULES[1].name
(['ST001', 'ST002', 'ST003'], 'duplicate-tool')
"""
RULES_BY_CODE = {rule.code: rule for rule in RULES}
RULES_BY_NAME = {rule.name: rule for rule in RULES}


@attrs.frozen
class Finding:
    """One problem: ``code`` (``ST003``), ``severity``, ``message`` and ``path``.

    ``path`` says where, from the outermost definition in: ``playbook:research/tool:b``,
    ``machine:order/state:DRAFT``, ``facade:files/facade:write``, ``visible-set:start``.

    >>> f = Finding("ST008", "error", "Facade 'files' holds no tools.", "facade:files")
    >>> f.rule
    'empty-facade'
    """

    code: str
    severity: Severity
    message: str
    path: str
    source: str | None = None
    """Where in a file, for designs read from one: ``design.yaml:12`` (None otherwise)."""

    @property
    def rule(self) -> str:
        """The rule's name, e.g. ``never-unlocks``.

        >>> f = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> f.rule
        'empty-facade'
        """
        return RULES_BY_CODE[self.code].name

    def to_dict(self) -> dict[str, str]:
        """The finding as a JSON-ready dict (``source`` only when known).

        >>> f = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> f.to_dict()  # doctest: +NORMALIZE_WHITESPACE
        {'code': 'ST008', 'rule': 'empty-facade', 'severity': 'error', 'path': 'facade:f',
         'message': "Facade 'f' holds no tools."}
        """
        data = {
            "code": self.code,
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
        }
        if self.source is not None:
            data["source"] = self.source
        return data

    def __str__(self) -> str:
        where = f"{self.source}: {self.path}" if self.source else self.path
        return f"{where}: {self.code} {self.severity} [{self.rule}] {self.message}"


def _order(finding: Finding) -> tuple[str, str, str]:
    return (finding.code, finding.path, finding.message)


def _sorted(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    return tuple(sorted(findings, key=_order))


@attrs.frozen
class Report:
    """Everything :func:`check` found, sorted by code and path.

    >>> report = Report((Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f"),))
    >>> report.ok, len(report.errors)
    (False, 1)
    >>> print(report.to_text())
    facade:f: ST008 error [empty-facade] Facade 'f' holds no tools.
    1 error, 0 warnings
    """

    findings: tuple[Finding, ...] = attrs.field(default=(), converter=_sorted)
    disabled: tuple[str, ...] = ()
    """Codes of the checks that were switched off."""

    @property
    def errors(self) -> tuple[Finding, ...]:
        """The findings of severity ``error``.

        >>> empty = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> unreachable = Finding("ST004", "warning", "State 'X' is unreachable.", "machine:m")
        >>> report = Report((empty, unreachable))
        >>> [finding.code for finding in report.errors]
        ['ST008']
        """
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """The findings of severity ``warning``.

        >>> empty = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> unreachable = Finding("ST004", "warning", "State 'X' is unreachable.", "machine:m")
        >>> report = Report((empty, unreachable))
        >>> [finding.code for finding in report.warnings]
        ['ST004']
        """
        return tuple(f for f in self.findings if f.severity == "warning")

    @property
    def notes(self) -> tuple[Finding, ...]:
        """The findings of severity ``info``.

        >>> empty = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> unreachable = Finding("ST004", "warning", "State 'X' is unreachable.", "machine:m")
        >>> report = Report((empty, unreachable))
        >>> report.notes
        ()
        """
        return tuple(f for f in self.findings if f.severity == "info")

    @property
    def ok(self) -> bool:
        """True when there are no errors (warnings and notes allowed).

        >>> empty = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> unreachable = Finding("ST004", "warning", "State 'X' is unreachable.", "machine:m")
        >>> report = Report((empty, unreachable))
        >>> report.ok, Report(report.warnings).ok
        (False, True)
        """
        return not self.errors

    @property
    def codes(self) -> list[str]:
        """The codes found, each once, sorted.

        >>> empty = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> unreachable = Finding("ST004", "warning", "State 'X' is unreachable.", "machine:m")
        >>> report = Report((empty, unreachable))
        >>> report.codes
        ['ST004', 'ST008']
        """
        return sorted({f.code for f in self.findings})

    def by_code(self, code: str) -> tuple[Finding, ...]:
        """The findings with this code (or rule name).

        >>> empty = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> unreachable = Finding("ST004", "warning", "State 'X' is unreachable.", "machine:m")
        >>> report = Report((empty, unreachable))
        >>> report.by_code("empty-facade") == report.by_code("ST008") == (empty,)
        True
        """
        wanted = RULES_BY_NAME[code].code if code in RULES_BY_NAME else code
        return tuple(f for f in self.findings if f.code == wanted)

    def to_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready dict: ``ok``, counts, ``findings``.

        >>> empty = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> unreachable = Finding("ST004", "warning", "State 'X' is unreachable.", "machine:m")
        >>> report = Report((empty, unreachable))
        >>> {key: value for key, value in report.to_dict().items() if key != "findings"}
        {'ok': False, 'errors': 1, 'warnings': 1, 'notes': 0, 'disabled': []}
        """
        return {
            "ok": self.ok,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "notes": len(self.notes),
            "disabled": list(self.disabled),
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON text (what ``statetools check --format json`` prints).

        >>> empty = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> unreachable = Finding("ST004", "warning", "State 'X' is unreachable.", "machine:m")
        >>> report = Report((empty, unreachable))
        >>> json.loads(report.to_json())["ok"]
        False
        """
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def to_text(self) -> str:
        """One line per finding, then a summary line.

        >>> empty = Finding("ST008", "error", "Facade 'f' holds no tools.", "facade:f")
        >>> unreachable = Finding("ST004", "warning", "State 'X' is unreachable.", "machine:m")
        >>> report = Report((empty, unreachable))
        >>> print(report.to_text())
        machine:m: ST004 warning [unreachable-state] State 'X' is unreachable.
        facade:f: ST008 error [empty-facade] Facade 'f' holds no tools.
        1 error, 1 warning
        """
        summary = f"{counted(len(self.errors), 'error')}, {counted(len(self.warnings), 'warning')}"
        if self.notes:
            summary += f", {counted(len(self.notes), 'note')}"
        if not self.findings:
            return f"No problems found. {summary}"
        return "\n".join([*(str(f) for f in self.findings), summary])

    def __str__(self) -> str:
        return self.to_text()


def resolve_codes(values: Iterable[str]) -> tuple[str, ...]:
    """Rule codes for codes or rule names; unknown ones raise StatetoolsError."""
    from statetools.errors import StatetoolsError

    codes: list[str] = []
    for value in values:
        rule = RULES_BY_CODE.get(value.upper()) or RULES_BY_NAME.get(value)
        if rule is None:
            raise StatetoolsError(
                f"unknown check {value!r}",
                hint=f"use a code or name: {', '.join(f'{r.code} {r.name}' for r in RULES)}",
            )
        codes.append(rule.code)
    return tuple(sorted(set(codes)))
