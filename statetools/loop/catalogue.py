"""Kept for imports written before the engine: see :mod:`statetools.engine.catalogue`."""

from statetools.engine.catalogue import (
    CatalogueKeeper,
    definition,
)

__all__ = [
    "CatalogueKeeper",
    "definition",
]
