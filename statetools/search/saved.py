"""Embeddings of a catalogue kept in a file: computed once, reloaded without the model.

:class:`SavedVectors` keeps one vector per tool text in a JSON file, keyed by a hash of
the embedding model's name and the text: a tool whose text is unchanged is never
embedded again, a changed or new one is (and the file is written again), and vectors
of another model are never mixed in. A search facade's ``vectors=`` (YAML: ``search:
{ranker: hybrid, vectors: find_tools.vectors.json}``) uses one, as a design's ``listing:``
keeps an MCP server's tools.

>>> import tempfile, os
>>> calls = []
>>> def embed(texts):
...     calls.append(len(texts))
...     return [[float(len(t)), 1.0] for t in texts]
>>> path = os.path.join(tempfile.mkdtemp(), "vectors.json")
>>> SavedVectors(path).vectors(embed, ["open an issue", "list commits"]).shape
(2, 2)
>>> SavedVectors(path).vectors(embed, ["open an issue", "list the commits"]).shape
(2, 2)
>>> calls  # the second time only the changed text was embedded
[2, 1]
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from statetools.errors import StatetoolsError

__all__ = ["SavedVectors", "model_name"]

FORMAT = "statetools-vectors/1"


def model_name(embed: Any) -> str:
    """The name vectors of ``embed`` are saved under: its ``model_name`` attribute (as
    :func:`~statetools.search.local_embedder` has), else its module and qualified name.

    >>> def embed(texts): return [[1.0] for _ in texts]
    >>> model_name(embed)
    'statetools.search.saved.embed'
    """
    named = getattr(embed, "model_name", None)
    if isinstance(named, str) and named:
        return named
    kind = embed if callable(embed) and hasattr(embed, "__qualname__") else type(embed)
    return f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', '?')}"


def _key(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\n{text}".encode()).hexdigest()[:32]


class SavedVectors:
    """The vectors of tool texts saved in ``path`` (JSON; written when a text had to be
    embedded, holding the vectors of the texts of the last index only). ``model``
    names the embedding model (default: :func:`model_name` of the function used).

    >>> SavedVectors("vectors.json").path.name
    'vectors.json'
    """

    def __init__(self, path: str | os.PathLike[str], *, model: str | None = None) -> None:
        self.path = Path(path)
        self.model = model

    def _read(self) -> dict[str, str]:
        if not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StatetoolsError(
                f"cannot read saved vectors: {exc}",
                path=str(self.path),
                hint="delete the file: the vectors are computed and saved again",
            ) from exc
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise StatetoolsError(
                "not a statetools vectors file",
                path=str(self.path),
                hint=f'the file holds {{"format": "{FORMAT}", ...}}; delete it to save it again',
            )
        vectors = data.get("vectors")
        return dict(vectors) if isinstance(vectors, dict) else {}

    def vectors(self, embed: Any, texts: Sequence[str]) -> Any:
        """One float32 vector per text: saved ones reused, the others embedded with
        ``embed`` in one call (then the file is written)."""
        import numpy as np

        model = self.model or model_name(embed)
        keys = [_key(model, text) for text in texts]
        saved = self._read()
        missing = [i for i, key in enumerate(keys) if key not in saved]
        fresh: dict[str, Any] = {}
        if missing:
            computed = np.asarray(embed([texts[i] for i in missing]), dtype=np.float32)
            if computed.ndim != 2 or computed.shape[0] != len(missing):
                raise StatetoolsError(
                    f"the embedding function returned shape {computed.shape} for "
                    f"{len(missing)} texts",
                    path=str(self.path),
                    hint="embed(texts) returns one vector per text, all of one length",
                )
            fresh = {keys[i]: computed[row] for row, i in enumerate(missing)}
        rows = [
            fresh[key] if key in fresh else np.frombuffer(base64.b64decode(saved[key]), np.float32)
            for key in keys
        ]
        if len({row.shape for row in rows}) > 1:
            raise StatetoolsError(
                "saved vectors and new ones differ in length",
                path=str(self.path),
                hint="pass model= to tell embedding models apart, or delete the file",
            )
        if fresh:
            self._write(model, dict(zip(keys, rows, strict=True)))
        return np.stack(rows) if rows else np.zeros((0, 0), np.float32)

    def _write(self, model: str, vectors: dict[str, Any]) -> None:
        encoded = {key: base64.b64encode(row.tobytes()).decode() for key, row in vectors.items()}
        text = json.dumps({"format": FORMAT, "model": model, "vectors": encoded}, indent=0)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, self.path)
