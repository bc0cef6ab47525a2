"""The child process that runs llama.cpp's server (``python -m latent_agent.llm.llamacpp.serve``).

Its configuration is the first line of its stdin, a JSON object: ``model`` (a GGUF path), ``ctx``,
``threads``, ``gpu_layers``, ``parallel`` and ``api_key``. The key is one the parent drew for this server
alone: every request but ``/health`` must carry it, so no other user of the machine (nor any other
program) can use the model, read its path or its slots. It travels on the pipe, never on the command
line, which every local user can read. The server listens on a free loopback port; its address is the one
line written to stdout. The child runs until its stdin closes: the parent closes it to stop the server,
and a parent that dies closes it too, so a server never outlives the command that started it.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def _params(config: dict[str, Any]) -> Any:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(config["model"])
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, read back from the server
    params.n_parallel = int(config["parallel"])
    # The window is shared by the slots; each slot gets the window asked for.
    params.n_ctx = int(config["ctx"]) * int(config["parallel"])
    params.n_gpu_layers = int(config["gpu_layers"])
    params.cpuparams.n_threads = int(config["threads"])
    params.cpuparams_batch.n_threads = int(config["threads"])
    params.api_keys = [str(config["api_key"])]
    return params


def main() -> int:
    """Serve until stdin closes; returns the exit status."""
    import xllamacpp

    config = json.loads(sys.stdin.readline())
    try:
        server = xllamacpp.Server(_params(config))
    except RuntimeError as exc:
        # llama.cpp has logged why (a bad file, too little memory); the parent quotes that, not a traceback.
        sys.stderr.write(f"xllamacpp: {exc}\n")
        return 1
    sys.stdout.write(f"{server.listening_address}\n")
    sys.stdout.flush()
    sys.stdin.read()  # blocks until the parent closes the pipe (or dies)
    del server  # the server's destructor stops its loop and frees the model
    return 0


if __name__ == "__main__":
    sys.exit(main())
