"""The contract every :class:`~latent_agent.llm.embed.base.Embedder` keeps (see its module docstring).

A test module for an embedder derives a class from :class:`EmbedderContract` and defines the
``embedder`` fixture; every test here then runs against it.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from latent_agent.errors import InputError
from latent_agent.llm.embed.base import Embedder

TEXTS = ("Open the Wi-Fi settings", "Set an alarm for 7:30 AM", "Créer un contact nommé Zoë",
         "Delete the note \"Groceries\" in Notes")


class EmbedderContract:
    """Tests every embedder passes; subclasses provide the ``embedder`` fixture."""

    def test_shape_dtype_and_unit_rows(self, embedder: Embedder) -> None:
        vectors = embedder.embed(TEXTS)
        assert vectors.shape == (len(TEXTS), embedder.info.dimension)
        assert vectors.dtype == np.float32
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)

    def test_empty_input_gives_no_rows(self, embedder: Embedder) -> None:
        assert embedder.embed([]).shape == (0, embedder.info.dimension)

    def test_same_text_same_vector_whatever_the_batch(self, embedder: Embedder) -> None:
        alone = embedder.embed([TEXTS[1]])[0]
        batched = embedder.embed(TEXTS)[1]
        assert float(alone @ batched) > 1 - 1e-5

    def test_rows_follow_the_input_order(self, embedder: Embedder) -> None:
        forward = embedder.embed(TEXTS)
        backward = embedder.embed(TEXTS[::-1])
        assert np.allclose(forward, backward[::-1], atol=1e-5)

    def test_different_texts_differ(self, embedder: Embedder) -> None:
        vectors = embedder.embed(TEXTS[:2])
        assert float(vectors[0] @ vectors[1]) < 0.99

    def test_async_matches_sync(self, embedder: Embedder) -> None:
        assert np.allclose(asyncio.run(embedder.aembed(TEXTS)), embedder.embed(TEXTS), atol=1e-5)

    @pytest.mark.parametrize("bad", ["", "   \n"])
    def test_empty_text_refused(self, embedder: Embedder, bad: str) -> None:
        with pytest.raises(InputError, match="text 1: it is empty"):
            embedder.embed(["fine", bad])

    def test_info_names_a_registered_spec(self, embedder: Embedder) -> None:
        from latent_agent.llm.embed.registry import parse_embedder_spec

        assert parse_embedder_spec(embedder.info.spec) == (embedder.info.name, embedder.info.model)
