"""The longest text one field of a screen may carry into the agent.

Screens come from apps nobody here controls: one label of 10 MB is copied into every prompt of the
episode and into the trajectory with each call (880 MB for one episode). Parsers cut every text field
of a node to :data:`MAX_TEXT_CHARS` as they read it and say so in the text itself, so the model, the
trajectory and the episode page all see that something was cut and how much. The raw dump is kept
whole beside the trajectory.
"""

from __future__ import annotations

#: About 1,000 tokens: more than one element of a phone screen shows (the longest in the test screens,
#: a chat message, is 3,637 characters) and little beside a prompt's budget.
MAX_TEXT_CHARS = 4_000


def cap_text(text: str) -> str:
    """``text``, or its first :data:`MAX_TEXT_CHARS` characters and a note of how many were cut.

    Short text costs one comparison; the XML parser, the hot path, skips even the call for most nodes.
    """
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return f"{text[:MAX_TEXT_CHARS]}… [{len(text) - MAX_TEXT_CHARS} more characters cut]"
