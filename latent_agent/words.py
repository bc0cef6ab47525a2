"""Counts in words for what people read: ``1 LLM call``, ``2 LLM calls``.

A count printed beside a fixed plural ("1 LLM calls") reads as a slip, and the pages and the terminal
print many counts; one helper keeps them right.
"""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, plural unless the number is exactly one.

    Args:
        number: How many.
        noun: The singular (``LLM call``).
        plural: The plural when it is not ``noun + "s"`` (``families``).
    """
    return f"{number} {noun if number == 1 else plural or noun + 's'}"
