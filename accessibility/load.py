"""Load a screen from bytes or a file, whichever of the supported formats it is in."""

from __future__ import annotations

from pathlib import Path

from latent_agent.accessibility.parse_androidenv import parse_forest
from latent_agent.accessibility.parse_xml import DEFAULT_MAX_NODES, parse_xml
from latent_agent.accessibility.tree import UITree
from latent_agent.errors import InputError, ParseError, TreeTooLargeError

_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


_NEITHER = "neither an XML screen dump (uiautomator / Appium) nor an AndroidEnv accessibility forest"
#: The first byte of a serialized forest: field 1 (``windows``), wire type 2 (length-delimited).
_FOREST_TAG = b"\x0a"
#: How much of the input is read to tell text from a forest.
_TEXT_PROBE = 4096


def _looks_like_xml(data: bytes) -> bool:
    head = data[:64]
    for bom in _BOMS:
        if head.startswith(bom):
            return True
    return head.lstrip()[:1] == b"<"


def _may_be_forest(data: bytes) -> bool:
    """Whether ``data`` can be a serialized AndroidEnv forest: its first field is its windows (field 1, a
    length-delimited record, tag byte 0x0A), and it is not plain text (a forest's field tags and lengths are
    control bytes). Text, pictures and JSON are so refused as what they are, without loading the androidenv
    extra the forest parser needs."""
    if data[:1] != _FOREST_TAG:
        return False
    head = data[:_TEXT_PROBE]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return True  # bytes, not text (a cut multi-byte character at the probe's end would say so too)
    return not all(c.isprintable() or c in "\t\n\r" for c in text)


def parse_any(data: bytes, *, source: str = "<input>", max_nodes: int = DEFAULT_MAX_NODES) -> UITree:
    """Parse XML (uiautomator or Appium) or a serialized AndroidEnv forest.

    Raises:
        ParseError: If the data is in none of the supported formats, naming why.
    """
    if not data.strip():
        raise ParseError("empty input, expected a screen dump", source=source)
    if _looks_like_xml(data):
        return parse_xml(data, source=source, max_nodes=max_nodes)
    if not _may_be_forest(data):
        raise ParseError(_NEITHER, source=source)
    try:
        return parse_forest(data, source=source, max_nodes=max_nodes)
    except TreeTooLargeError:
        raise
    except ParseError as exc:
        if not exc.reason.startswith("not an AndroidEnv accessibility forest"):
            raise ParseError(f"not XML, and not a readable AndroidEnv accessibility forest: {exc.reason}",
                             source=source, location=exc.location) from None
        raise ParseError(_NEITHER, source=source) from None


def load_tree(path: str | Path, *, max_nodes: int = DEFAULT_MAX_NODES) -> UITree:
    """Read and parse a screen file.

    Raises:
        InputError: If the file cannot be read.
        ParseError: If its content is not a supported screen dump.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a screen dump file") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror})") from None
    return parse_any(data, source=str(p), max_nodes=max_nodes)
