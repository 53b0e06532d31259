"""A model-free embedding provider: hashed bag-of-words vectors.

Each lower-cased ASCII word ``[a-z0-9]+`` adds 1 to dimension ``md5(word) mod dims`` (the
hashing trick, as scikit-learn's ``HashingVectorizer`` does for sparse features); ``bias`` is
added to dimension 0 so that a text without words is not the zero vector (whose cosine is
undefined). Texts sharing words get similar vectors, so the vector leg ranks sensibly, yet
nothing is loaded and every machine computes the same floats: the provider for smoke runs
(``--tiny`` benchmarks), tests and demos of the pipeline's mechanics. It is not a semantic
model, and not an OpenClaw provider id (configs cannot name it; pass it as ``embedder=``).

Hand-written because ``HashingVectorizer`` returns sparse float64 rows with signed hashes and
its own tokenizer; this needs dense float32 vectors with a fixed, documented layout.

>>> p = HashingProvider()
>>> v = p.embed_query("Deploy the billing service")
>>> v.shape, v.dtype.name, round(float(v.sum()), 4)  # four words + the bias
((64,), 'float32', 4.01)
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from memlab.embed.base import EmbeddingProvider

__all__ = ["HashingProvider"]

_WORD = re.compile(r"[a-z0-9]+")


class HashingProvider(EmbeddingProvider):
    """Hashed bag-of-words vectors (see the module docstring).

    Parameters
    ----------
    dims:
        Vector length.
    bias:
        Added to dimension 0 of every vector (``0`` keeps word-less texts at the zero vector).

    ``calls`` and ``texts`` count document-embedding calls and the texts they embedded;
    ``query_calls`` counts query embeddings (tests use them to prove nothing is re-embedded).
    """

    id = "hashing"
    model = "md5-bow"

    def __init__(self, dims: int = 64, bias: float = 0.01):
        if int(dims) < 1:
            raise ValueError(f"dims must be a positive integer, got {dims!r}")
        self._dims, self.bias = int(dims), float(bias)
        self.calls = self.texts = self.query_calls = 0

    def key_settings(self) -> dict[str, Any]:
        return {"dims": self._dims, "bias": self.bias}

    @property
    def dims(self) -> int:
        return self._dims

    def vector(self, text: str) -> np.ndarray:
        """One text's vector (float32, not normalised)."""
        v = np.zeros(self._dims, dtype=np.float32)
        for word in _WORD.findall(str(text).lower()):
            v[int.from_bytes(hashlib.md5(word.encode()).digest()[:4], "little")
              % self._dims] += 1.0
        v[0] += self.bias
        return v

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        if not len(texts):
            return np.zeros((0, self._dims), dtype=np.float32)
        return np.stack([self.vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        self.query_calls += 1
        return self.vector(text)
