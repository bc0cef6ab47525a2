"""``--llm llamacpp:MODEL``: llama.cpp's server started for the command, through the ``xllamacpp`` wheel.

:mod:`.options` holds the server options (flags), :mod:`.process` starts and stops the server in a child
process, :mod:`.serve` is that child, and :mod:`.client` is the LLM client that owns a server and talks to
it through the OpenAI-compatible client. It needs the ``local`` extra.
"""
