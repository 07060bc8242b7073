"""Server-minted session handles for the 2026-07-28 gateway.

A 2026-07-28 client has no connection state: its disclosure session lives behind a
handle the server mints (128 random bits from :mod:`secrets`) and hands out in a tool
result; the client passes it back as an ordinary tool argument. A value the server did
not mint, or one that has expired, finds nothing. Handles expire after ``ttl`` seconds
without a call (on an injectable clock); at most ``limit`` are live, and a full table
refuses new sessions rather than evicting one (a session with a call running is never
expired either).
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

__all__: list[str] = []

T = TypeVar("T")

HANDLE_BYTES = 16
"""Random bytes in a handle: 128 bits, written as 22 URL-safe characters."""


class _Entry(Generic[T]):
    """One live handle: its session, when it was last used, and its calls running."""

    __slots__ = ("busy", "session", "used")

    def __init__(self, session: T, used: float) -> None:
        self.session = session
        self.used = used
        self.busy = 0


class _Handles(Generic[T]):
    """The live sessions by handle, least recently used first."""

    def __init__(
        self,
        *,
        limit: int,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
        mint: Callable[[], str] = lambda: secrets.token_urlsafe(HANDLE_BYTES),
    ) -> None:
        self.limit = limit
        self.ttl = ttl
        self.clock = clock
        self.mint = mint
        self.entries: OrderedDict[str, _Entry[T]] = OrderedDict()

    def __len__(self) -> int:
        return len(self.entries)

    def _expired(self, entry: _Entry[T], now: float) -> bool:
        return entry.busy == 0 and now - entry.used >= self.ttl

    def sweep(self) -> None:
        """Forget expired handles (oldest first; a session with a call running stays)."""
        now = self.clock()
        expired = []
        for handle, entry in self.entries.items():
            if self._expired(entry, now):
                expired.append(handle)
            elif entry.busy == 0:
                break  # the rest were used more recently
        for handle in expired:
            del self.entries[handle]

    def open(self, session: Callable[[], T]) -> tuple[str, T] | None:
        """A new handle for a new session; None when ``limit`` sessions are live."""
        self.sweep()
        if len(self.entries) >= self.limit:
            return None
        handle = self.mint()
        while handle in self.entries:  # never with secrets; an injected mint may repeat
            handle = self.mint()
        made = session()
        self.entries[handle] = _Entry(made, self.clock())
        return handle, made

    def find(self, handle: object) -> T | None:
        """The session of ``handle``; None unless the server minted it and it is live."""
        if not isinstance(handle, str):
            return None
        entry = self.entries.get(handle)
        if entry is None:
            return None
        if self._expired(entry, self.clock()):
            del self.entries[handle]
            return None
        return entry.session

    @contextmanager
    def using(self, handle: str) -> Iterator[None]:
        """Mark ``handle`` in use for a call: it cannot expire meanwhile, and its idle
        time starts again when the call ends."""
        entry = self.entries[handle]
        entry.busy += 1
        self.entries.move_to_end(handle)
        try:
            yield
        finally:
            entry.busy -= 1
            entry.used = self.clock()
            if handle in self.entries:
                self.entries.move_to_end(handle)
