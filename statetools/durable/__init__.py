"""Durable sessions: runs saved after every step and continued later.

:class:`SqliteStore` is the embedded default (the standard library's ``sqlite3``).
"""

from statetools.durable.failures import SessionBusy, StoreDamaged, StoreReadOnly
from statetools.durable.sqlite import SessionInfo, SqliteStore

__all__ = ["SessionBusy", "SessionInfo", "SqliteStore", "StoreDamaged", "StoreReadOnly"]
