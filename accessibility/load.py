"""Load a screen from bytes or a file, whichever of the supported formats it is in."""

from __future__ import annotations

from pathlib import Path

from latent_agent.accessibility.parse_androidenv import parse_forest
from latent_agent.accessibility.parse_xml import DEFAULT_MAX_NODES, parse_xml
from latent_agent.accessibility.tree import UITree
from latent_agent.errors import InputError, ParseError, TreeTooLargeError

_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def _looks_like_xml(data: bytes) -> bool:
    head = data[:64]
    for bom in _BOMS:
        if head.startswith(bom):
            return True
    return head.lstrip()[:1] == b"<"


def parse_any(data: bytes, *, source: str = "<input>", max_nodes: int = DEFAULT_MAX_NODES) -> UITree:
    """Parse XML (uiautomator or Appium) or a serialized AndroidEnv forest.

    Raises:
        ParseError: If the data is in none of the supported formats, naming why.
    """
    if not data.strip():
        raise ParseError("empty input, expected a screen dump", source=source)
    if _looks_like_xml(data):
        return parse_xml(data, source=source, max_nodes=max_nodes)
    try:
        return parse_forest(data, source=source, max_nodes=max_nodes)
    except TreeTooLargeError:
        raise
    except ParseError as exc:
        if not exc.reason.startswith("not an AndroidEnv accessibility forest"):
            raise ParseError(f"not XML, and not a readable AndroidEnv accessibility forest: {exc.reason}",
                             source=source, location=exc.location) from None
        raise ParseError(
            "neither an XML screen dump (uiautomator / Appium) nor an AndroidEnv accessibility forest",
            source=source,
        ) from None


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
