"""The optional extras a command's arguments need, checked before the command writes anything.

Without this check a command met a missing extra part-way: ``run --observation screen`` without the
``ocr`` extra wrote its trajectory's first record, then failed, and then refused to run again into its
own episode folder. Checked here, a missing extra is one line (:mod:`latent_agent.extras`) and nothing
is written.
"""

from __future__ import annotations

from collections.abc import Iterable

from latent_agent.device.spec import BACKENDS
from latent_agent.extras import require
from latent_agent.llm.spec import PROVIDERS, parse_spec


def require_for_llm(spec: str) -> None:
    """Check the extras the ``--llm`` spec's provider needs (the SDK it speaks; llama.cpp; the packaged model).

    Raises:
        MissingExtraError: One is not installed.
        ConfigError: The spec is malformed.
    """
    parsed = parse_spec(spec)
    for need in PROVIDERS[parsed.provider].needs(parsed):
        require(need.extra, f"--llm {parsed.provider}:{parsed.name}", need.modules)


def require_extras(*, llm: str | None = None, device_kinds: Iterable[str] = (),
                   observations: Iterable[str] = ()) -> None:
    """Check that every extra the arguments need is installed, without importing any of them.

    Args:
        llm: The ``--llm`` spec, if the command takes one.
        device_kinds: The device backends the command will open (``sim``, ``adb``, ``miniwob``, ...).
        observations: The observation sources (``screen`` and ``both`` read screenshots by OCR).

    Raises:
        MissingExtraError: One is not installed; the message names the command that installs it here.
    """
    for kind in dict.fromkeys(device_kinds):
        extra = BACKENDS[kind].extra if kind in BACKENDS else None
        if extra is not None:
            require(extra, f"--device {kind}")
    for source in dict.fromkeys(observations):
        if source != "a11y":
            require("ocr", f"--observation {source}")
    if llm is not None:
        require_for_llm(llm)
