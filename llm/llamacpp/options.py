"""The options of a llama.cpp server the ``llamacpp`` provider starts (``--llm-ctx`` and friends)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from latent_agent.errors import ConfigError

#: Context window per slot when none is asked for: the largest prompt measured per method, with room for
#: the answer (see docs/local-models.md).
DEFAULT_CTX = 8192


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """How to run a llama.cpp server.

    Attributes:
        ctx: Context window of each slot, in tokens (``--llm-ctx``).
        threads: CPU threads (``--llm-threads``); None: one per core but one (at least one).
        gpu_layers: Layers offloaded to a GPU (``--llm-gpu-layers``); 0 on a CPU-only build.
        parallel: Requests the server decodes at once (``--llm-parallel``), each in its own slot.
    """

    ctx: int = DEFAULT_CTX
    threads: int | None = None
    gpu_layers: int = 0
    parallel: int = 1

    def __post_init__(self) -> None:
        if self.ctx < 256:
            raise ConfigError(f"--llm-ctx must be at least 256 tokens, got {self.ctx}")
        if self.threads is not None and self.threads < 1:
            raise ConfigError(f"--llm-threads must be >= 1, got {self.threads}")
        if self.gpu_layers < 0:
            raise ConfigError(f"--llm-gpu-layers must be >= 0, got {self.gpu_layers}")
        if self.parallel < 1:
            raise ConfigError(f"--llm-parallel must be >= 1, got {self.parallel}")

    @property
    def thread_count(self) -> int:
        """The threads the server runs with.

        One core is left to the agent by default: llama.cpp's threads wait for each other at every layer,
        so when the agent's own work (the device, rendering, parsing; a sweep's other episodes) takes a core
        that one of them needs, every call stalls. Measured on 2 cores beside one busy process: 24.6 s a call
        with 2 threads, 5.8 s with 1 (docs/local-models.md).
        """
        return self.threads if self.threads is not None else max(1, cores() - 1)
