"""Answers cut at their output cap: a method whose answer is a list of lines keeps the finished ones."""

from __future__ import annotations


def whole_lines(text: str, cut: bool) -> str:
    """``text`` without its last line when the answer was ``cut`` at the output cap (that line is unfinished)."""
    if not cut:
        return text
    end = text.rfind("\n")
    return text[:end] if end >= 0 else ""
