"""A model-free embedder: hashed bag of words (feature hashing), for tests and the Gemini stand-in.

Each lower-cased word and each pair of neighbouring words is hashed (BLAKE2b, so the vectors are the
same in every process and on every machine) to one of ``dimension`` slots with a sign; a term's weight
is ``1 + log(count)``. Goals that share words get similar vectors, which is enough to exercise retrieval
end to end without a model, but paraphrases that share no words are far apart: this is not a substitute
for :mod:`~latent_agent.llm.embed.minilm` when retrieval quality matters.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from latent_agent.errors import ConfigError
from latent_agent.llm.embed.base import Embedder, EmbedderInfo, Vectors, check_texts, normalise

NAME = "hash"
DEFAULT_DIMENSION = 256
_WORD = re.compile(r"\w+")


def _slot(term: str, dimension: int) -> tuple[int, float]:
    digest = hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dimension, (1.0 if value >> 63 else -1.0)


def hashed_vector(text: str, dimension: int) -> list[float]:
    """The (not yet normalised) hashed bag-of-words vector of ``text``."""
    words = _WORD.findall(text.lower())
    terms = Counter(words + [f"{a} {b}" for a, b in itertools.pairwise(words)])
    vector = [0.0] * dimension
    for term, count in terms.items():
        slot, sign = _slot(term, dimension)
        vector[slot] += sign * (1.0 + math.log(count))
    return vector


class HashingEmbedder(Embedder):
    """Hashed bag of words and word pairs.

    Args:
        model: The dimension, as text (``--embedder hash:512``); default :data:`DEFAULT_DIMENSION`.

    Raises:
        ConfigError: The model is not a positive whole number.
    """

    def __init__(self, model: str = str(DEFAULT_DIMENSION)) -> None:
        if not model.isdigit() or int(model) < 1:
            raise ConfigError(f"--embedder {NAME}:{model}: the model of {NAME} is its dimension, a positive number")
        self._info = EmbedderInfo(NAME, str(int(model)), int(model))

    @property
    def info(self) -> EmbedderInfo:
        return self._info

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        dim = self._info.dimension
        if not items:
            return np.zeros((0, dim), dtype=np.float32)
        raw = np.asarray([hashed_vector(t, dim) for t in items], dtype=np.float32)
        if np.any(np.linalg.norm(raw, axis=1) == 0):
            # Text of punctuation alone has no words: give it a fixed direction rather than a zero vector.
            raw[np.linalg.norm(raw, axis=1) == 0, 0] = 1.0
        return normalise(raw)
