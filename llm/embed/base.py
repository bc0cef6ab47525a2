"""The one interface every text embedder implements.

An :class:`Embedder` turns texts into unit-length ``float32`` vectors, so that the dot product of two
vectors is their cosine similarity. The exemplar memory stores the vectors of its keys together with
the embedder's :class:`EmbedderInfo`; a memory is only ever queried with vectors from the same embedder
(same name, model and dimension), because vectors of two models live in unrelated spaces.

Contract (``tests/llm/embed_contract.py`` checks it for every registered embedder):

* :meth:`Embedder.embed` returns an array of shape ``(len(texts), info.dimension)``, dtype ``float32``,
  every row of L2 norm 1 (within 1e-5), rows in the order of ``texts``; an empty input gives ``(0, d)``.
* The same text gives the same vector, whatever batch it comes in (within 1e-5 in cosine).
* :meth:`Embedder.aembed` returns what :meth:`Embedder.embed` returns, without blocking the event loop.
* An empty or whitespace-only text is refused with :class:`~latent_agent.errors.InputError` (it has no
  meaning to embed and providers answer it inconsistently).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from latent_agent import codec
from latent_agent.errors import InputError

#: An ``(n, d)`` float32 matrix of unit rows.
Vectors = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class EmbedderInfo:
    """Which embedder made a set of vectors: what a memory records and checks.

    Attributes:
        name: The registered embedder name (``minilm``, ``gemini``).
        model: The model within it (``all-MiniLM-L6-v2``, ``gemini-embedding-001``).
        dimension: Length of every vector.
    """

    name: str
    model: str
    dimension: int

    @property
    def spec(self) -> str:
        """The ``--embedder`` spec that selects this embedder again (``gemini:gemini-embedding-001``)."""
        return f"{self.name}:{self.model}"

    def to_json(self) -> dict[str, object]:
        """The JSON form kept in a memory's manifest."""
        out: dict[str, object] = codec.encode(self)
        return out


def check_texts(texts: Sequence[str]) -> list[str]:
    """The texts as a list, after refusing any empty one (see the module contract).

    Raises:
        InputError: A text is empty or only whitespace (its position is named).
    """
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"cannot embed text {i}: it is empty")
    return out


def normalise(matrix: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit L2 norm, as float32 (a zero row stays zero rather than becoming NaN)."""
    arr = np.asarray(matrix, dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError(f"expected a 2-D matrix of vectors, got shape {arr.shape}")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(arr / norms, dtype=np.float32)


class Embedder(ABC):
    """Texts to unit vectors (see the module docstring for the contract)."""

    @property
    @abstractmethod
    def info(self) -> EmbedderInfo:
        """Name, model and dimension of the vectors this embedder makes."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts``: an ``(len(texts), dimension)`` float32 matrix of unit rows.

        Raises:
            InputError: A text is empty.
            LLMError: A remote embedder's provider failed (its own subclasses).
        """

    async def aembed(self, texts: Sequence[str]) -> Vectors:
        """:meth:`embed` for async callers; the default runs it in a worker thread (CPU-bound models)."""
        return await asyncio.to_thread(self.embed, texts)

    def close(self) -> None:  # noqa: B027 - optional hook, most embedders hold nothing to release
        """Release what the embedder holds (sessions, connections); the default holds nothing."""
