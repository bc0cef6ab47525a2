"""Checking that a record read back from a file holds the plain types its dataclass declares.

A trajectory is a file anyone can edit or send: ``"index": "<script>..."`` builds a :class:`StepRecord`
as readily as ``"index": 3``, since dataclasses check nothing. Every record the reader builds is
checked here, nested records included, so a value the page then writes is what its type says.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, TypeVar

R = TypeVar("R")
#: The field types checked here; records inside a record are checked in turn, enums are checked by their
#: constructors, and other values (tuples of text, mappings) are escaped wherever a page shows them.
_PLAIN: tuple[type, ...] = (bool, int, float, str, type(None))


#: The plain fields of each record class, worked out once (type hints are slow to resolve).
_FIELDS: dict[str, tuple[tuple[str, tuple[type, ...]], ...]] = {}


def _plain_fields(cls: Any) -> tuple[tuple[str, tuple[type, ...]], ...]:
    """``(field name, allowed types)`` for each field of ``cls`` declared with plain types only."""
    key = f"{cls.__module__}.{cls.__qualname__}"
    if key not in _FIELDS:
        _FIELDS[key] = _resolve(cls)
    return _FIELDS[key]


def _resolve(cls: Any) -> tuple[tuple[str, tuple[type, ...]], ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        union = typing.get_origin(hint) in (typing.Union, types.UnionType)
        allowed = typing.get_args(hint) if union else (hint,)
        if all(a in _PLAIN for a in allowed):
            out.append((field.name, allowed))
    return tuple(out)


def _fits(value: object, allowed: tuple[type, ...]) -> bool:
    if isinstance(value, bool):  # a bool is an int to isinstance, and no count or index is one
        return bool in allowed
    if isinstance(value, int):
        return int in allowed or float in allowed  # JSON writes 0.0 as 0
    return any(isinstance(value, a) for a in allowed if a is not bool)


def checked(record: R) -> R:
    """``record`` (a dataclass built from a file), once its plain-typed fields and its records' are checked.

    Raises:
        TypeError: A field holds another type (the message names the field and the type found).
    """
    _check(record, "")
    return record


def _check(record: Any, where: str) -> None:
    for name, allowed in _plain_fields(type(record)):
        value = getattr(record, name)
        if not _fits(value, allowed):
            wanted = " or ".join("null" if a is type(None) else a.__name__ for a in allowed)
            raise TypeError(f"{where}{name} is a {type(value).__name__}, not {wanted}")
    for field in dataclasses.fields(record):
        value = getattr(record, field.name)
        items = value if isinstance(value, tuple) else (value,)
        for i, item in enumerate(items):
            if dataclasses.is_dataclass(item) and not isinstance(item, type):
                label = f"{field.name}[{i}]" if isinstance(value, tuple) else field.name
                _check(item, f"{where}{label}.")
