"""What one run of one task under one condition produced, the journal that keeps
every finished run on disk as it comes, so an interrupted evaluation continues, and
:class:`ConditionSummary`, one condition's runs summed with the Wilson interval of its
success rate.

The journal is JSON Lines: a header naming the model, then one line per finished run.
A line cut short by an interruption is ignored; a run that had not finished when the
evaluation stopped runs again from its start.

>>> record = RunRecord("flat", "t1", 0, success=True, requests=2)
>>> RunRecord.from_json(record.to_json()) == record
True
>>> summary = ConditionSummary.of("flat", [
...     RunRecord("flat", "t1", 0, success=True, requests=2, prompt_tokens=300),
...     RunRecord("flat", "t2", 0, success=False, requests=4, prompt_tokens=500)])
>>> summary.successes, summary.runs, round(summary.low, 3), round(summary.high, 3)
(1, 2, 0.095, 0.905)
>>> summary.prompt_tokens_per_run
400.0
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

import attrs

from statetools.errors import StatetoolsError

__all__ = ["ConditionSummary", "Journal", "RunRecord", "wilson_interval"]

JOURNAL_VERSION = 1


@attrs.frozen
class RunRecord:
    """One task run under one condition (one repeat): whether it succeeded and what it
    cost. Token counts are the provider's (``usage_reported`` says in how many of the
    ``requests`` it reported any); ``tool_tokens`` counts the tool definitions sent,
    summed over the requests (o200k tokens of the OpenAI wire form).

    >>> RunRecord("flat", "t1", 0, success=False, reason="no call").key
    ('flat', 't1', 0)
    """

    condition: str
    task: str
    repeat: int
    success: bool = False
    reason: str = ""
    """Why the task failed ('' when it succeeded)."""
    requests: int = 0
    tool_tokens: int = 0
    first_tool_tokens: int = 0
    """Tool-definition tokens of the first request."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    usage_reported: int = 0
    calls: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    """The calls that ran, in order: (name, arguments)."""
    blocked: int = 0
    """Calls of locked tools (answered with guidance, not run)."""
    unknown: int = 0
    """Calls of tools that do not exist."""
    tool_errors: int = 0
    """Calls that ran and returned an error (invalid arguments included)."""
    searches: int = 0
    search_misses: int = 0
    """Searches that opened none of the tools the task expects."""
    never_found: tuple[str, ...] = ()
    """Expected tools that no request ever showed."""
    error: str | None = None
    """The kind of error that ended the run (the exception's class name), if any."""
    error_message: str = ""
    output: str = ""
    wall: float = 0.0
    messages: tuple[Mapping[str, Any], ...] = ()
    """The conversation as JSON messages (``messages_to_json``), to read why it failed."""

    @property
    def key(self) -> tuple[str, str, int]:
        """(condition, task, repeat): what identifies the run in a journal.

        >>> RunRecord("machine", "t2", 1).key
        ('machine', 't2', 1)
        """
        return self.condition, self.task, self.repeat

    def to_json(self) -> dict[str, Any]:
        """The record as JSON data.

        >>> RunRecord("flat", "t1", 0, calls=(("ping", {}),)).to_json()["calls"]
        [['ping', {}]]
        """
        data = attrs.asdict(self, recurse=False)
        data["calls"] = [[name, dict(arguments)] for name, arguments in self.calls]
        data["never_found"] = list(self.never_found)
        data["messages"] = [dict(message) for message in self.messages]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunRecord:
        """A record read back from :meth:`to_json` data.

        >>> RunRecord.from_json({"condition": "flat", "task": "t1", "repeat": 0}).success
        False
        """
        values = dict(data)
        values["calls"] = tuple((str(n), dict(a)) for n, a in values.get("calls") or ())
        values["never_found"] = tuple(values.get("never_found") or ())
        values["messages"] = tuple(dict(m) for m in values.get("messages") or ())
        known = {field.name for field in attrs.fields(cls)}
        return cls(**{key: value for key, value in values.items() if key in known})


class Journal:
    """The runs of an evaluation, appended to a JSON Lines file as they finish.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> with Journal.open(path, model="openai-chat:m") as journal:
    ...     journal.add(RunRecord("flat", "t1", 0, success=True))
    >>> sorted(Journal.open(path, model="openai-chat:m").done)
    [('flat', 't1', 0)]
    """

    def __init__(self, path: Path | None, model: str, records: Iterable[RunRecord] = ()) -> None:
        self.path = path
        self.model = model
        self.done: dict[tuple[str, str, int], RunRecord] = {r.key: r for r in records}
        self._file: TextIO | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None, *, model: str) -> Journal:
        """The journal at ``path`` (None: kept in memory only), with the runs it already
        holds; a journal written for another model is refused.

        >>> Journal.open(None, model="openai-chat:m").done
        {}
        """
        if path is None:
            return cls(None, model)
        path = Path(path)
        records: list[RunRecord] = []
        if path.exists():
            lines = path.read_text(encoding="utf-8").splitlines()
            header = _line(lines[0]) if lines else None
            if header is not None and header.get("model") != model:
                raise StatetoolsError(
                    f"the journal {path} holds runs of model {header.get('model')!r}, "
                    f"not {model!r}",
                    path=str(path),
                    hint="give another --out (or journal=...), or delete the file to start over",
                )
            for line in lines[1:]:
                data = _line(line)
                if data is not None and isinstance(data.get("run"), Mapping):
                    records.append(RunRecord.from_json(data["run"]))
        journal = cls(path, model, records)
        journal._start(write_header=not path.exists() or path.stat().st_size == 0)
        return journal

    def _start(self, *, write_header: bool) -> None:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("rb+" if self.path.exists() else "wb") as raw:
            raw.seek(0, os.SEEK_END)
            if raw.tell():  # a line cut short by an interruption ends here
                raw.seek(-1, os.SEEK_END)
                if raw.read(1) != b"\n":
                    raw.write(b"\n")
        self._file = self.path.open("a", encoding="utf-8")
        if write_header:
            self._write({"statetools_eval": JOURNAL_VERSION, "model": self.model})

    def _write(self, data: Mapping[str, Any]) -> None:
        if self._file is None:
            return
        self._file.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def add(self, record: RunRecord) -> None:
        """Keep a finished run (written to disk at once).

        >>> journal = Journal.open(None, model="m")
        >>> journal.add(RunRecord("flat", "t1", 0))
        >>> list(journal.done)
        [('flat', 't1', 0)]
        """
        self.done[record.key] = record
        self._write({"run": record.to_json()})

    def close(self) -> None:
        """Close the file.

        >>> Journal.open(None, model="m").close()
        """
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _line(text: str) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


Z_95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


def wilson_interval(successes: int, runs: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a success rate (95% by default); (0, 1) for no runs.

    >>> [round(x, 3) for x in wilson_interval(8, 10)]
    [0.49, 0.943]
    """
    if runs == 0:
        return 0.0, 1.0
    rate = successes / runs
    denominator = 1 + z * z / runs
    centre = (rate + z * z / (2 * runs)) / denominator
    spread = z * math.sqrt(rate * (1 - rate) / runs + z * z / (4 * runs * runs)) / denominator
    return max(0.0, centre - spread), min(1.0, centre + spread)


@attrs.frozen
class ConditionSummary:
    """One condition's runs summed: success rate with its 95% Wilson interval, and
    per-run means of what they cost.

    >>> ConditionSummary.of("flat", []).rate
    0.0
    """

    name: str
    runs: int
    successes: int
    low: float
    high: float
    requests: int
    tool_tokens: int
    first_tool_tokens: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    usage_reported: int
    blocked: int
    unknown: int
    tool_errors: int
    searches: int
    search_misses: int
    never_found: int
    wall: float
    errors: Mapping[str, int]

    @classmethod
    def of(cls, name: str, records: list[RunRecord]) -> ConditionSummary:
        """The summary of ``records`` (all of one condition).

        >>> ConditionSummary.of("flat", [RunRecord("flat", "t", 0, success=True)]).successes
        1
        """
        successes = sum(record.success for record in records)
        low, high = wilson_interval(successes, len(records))

        def total(field: str) -> int:
            return sum(int(getattr(record, field)) for record in records)

        return cls(
            name=name,
            runs=len(records),
            successes=successes,
            low=low,
            high=high,
            requests=total("requests"),
            tool_tokens=total("tool_tokens"),
            first_tool_tokens=max((r.first_tool_tokens for r in records), default=0),
            prompt_tokens=total("prompt_tokens"),
            completion_tokens=total("completion_tokens"),
            cached_tokens=total("cached_tokens"),
            usage_reported=total("usage_reported"),
            blocked=total("blocked"),
            unknown=total("unknown"),
            tool_errors=total("tool_errors"),
            searches=total("searches"),
            search_misses=total("search_misses"),
            never_found=sum(len(record.never_found) for record in records),
            wall=round(sum(record.wall for record in records), 3),
            errors=dict(sorted(Counter(r.error for r in records if r.error).items())),
        )

    @property
    def rate(self) -> float:
        """Successes per run (0 for no runs).

        >>> ConditionSummary.of("flat", [RunRecord("flat", "t", 0, success=True)]).rate
        1.0
        """
        return self.successes / self.runs if self.runs else 0.0

    def _per_run(self, value: float) -> float:
        return round(value / self.runs, 1) if self.runs else 0.0

    @property
    def prompt_tokens_per_run(self) -> float:
        """Prompt tokens per run, as the provider reported them.

        >>> ConditionSummary.of("flat", [RunRecord("flat", "t", 0, prompt_tokens=90)]
        ...                     ).prompt_tokens_per_run
        90.0
        """
        return self._per_run(self.prompt_tokens)

    @property
    def cached_share(self) -> float | None:
        """The share of prompt tokens read from the provider's cache (None: not
        reported).

        >>> ConditionSummary.of("flat", [RunRecord("flat", "t", 0, prompt_tokens=200,
        ...                                         cached_tokens=150)]).cached_share
        0.75
        """
        if not self.prompt_tokens or not self.cached_tokens:
            return None
        return round(self.cached_tokens / self.prompt_tokens, 3)

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON data, with the per-run means.

        >>> ConditionSummary.of("flat", [RunRecord("flat", "t", 0, requests=3)]).to_json()[
        ...     "requests_per_run"]
        3.0
        """
        data = attrs.asdict(self)
        data["rate"] = round(self.rate, 4)
        data["low"], data["high"] = round(self.low, 4), round(self.high, 4)
        data["cached_share"] = self.cached_share
        for field in ("requests", "tool_tokens", "prompt_tokens", "completion_tokens", "wall"):
            data[f"{field}_per_run"] = self._per_run(getattr(self, field))
        return data
