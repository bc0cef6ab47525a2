"""The demo stand-in's answer to an icon-naming call (``agent/icon_names.py``).

**It does not look at the screenshot.** A language model would read the icons from the image;
this scripted stand-in answers from the call's structured inputs: the boxes' ids and, where the
caller knew it, each box's true name on the simulated phone (``references``, taken from the
sim's own tree by the caller and given only to the stand-in, never to a model's prompt). An icon
without a reference gets ``unknown``, as an honest model answers for an icon it cannot tell.
The answer follows the template's format, one ``id: name`` line per icon, so it exercises the
same parser a model's answer goes through.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from latent_agent.errors import LLMRequestError

#: What the stand-in answers for an icon whose true name it was not given.
UNKNOWN = "unknown"


def name_icons(inputs: Mapping[str, Any]) -> str:
    """One ``id: name`` line per icon of ``inputs["icons"]``, the name looked up in ``inputs["references"]``.

    Raises:
        LLMRequestError: The inputs hold no list of icons with ids, or references that are not a mapping.
    """
    icons = inputs.get("icons")
    references = inputs.get("references", {})
    if not isinstance(icons, list) or not all(isinstance(i, Mapping) and isinstance(i.get("id"), str)
                                              for i in icons):
        raise LLMRequestError("the demo stand-in names icons from the call's 'icons' input (a list of boxes "
                              "with ids), which this call lacks")
    if not isinstance(references, Mapping):
        raise LLMRequestError("the demo stand-in's icon 'references' input must map icon ids to names")
    lines = []
    for icon in icons:
        name = references.get(icon["id"])
        lines.append(f"{icon['id']}: {' '.join(str(name).split()).lower() if name else UNKNOWN}")
    return "\n".join(lines)
