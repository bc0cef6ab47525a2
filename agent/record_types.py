"""Checking that a record built from a file holds the types its dataclass declares.

A trajectory is a file anyone can edit or send: ``"index": "<script>..."`` builds a record as readily as
``"index": 3``, since dataclasses check nothing. Records read with :func:`latent_agent.codec.decode` are
checked as they are built; :func:`checked` is for a record built some other way, and checks it the same way
(every field, nested records included), so a value a page then writes is what its type says.
"""

from __future__ import annotations

from typing import TypeVar

from latent_agent import codec

R = TypeVar("R")


def checked(record: R) -> R:
    """``record`` (a dataclass built from a file), once every field of it and of its records is checked.

    Raises:
        codec.DecodeError: A field holds another type (the message names the field and the type found).
    """
    codec.decode(type(record), codec.encode(record))
    return record
