"""One JSON codec for the project's records: typed frozen dataclasses to JSON objects and back, checked.

Every record a file holds (a trajectory's steps and calls, a sweep's manifest, a server's profile) is a
frozen dataclass; :func:`encode` writes it as a JSON value and :func:`decode` reads it back, driven by
the dataclass's fields and type hints, so a record's JSON form is declared once, by its class. Reading
checks every value against its field's type (a file may come from anyone, and its values end up in
pages): a wrong value raises :class:`DecodeError`, one line naming the file and the field
(``trajectory.jsonl:3: calls[0].prompt_tokens is a str, not int``).

The JSON shapes are the ones the project has always written: fields in declaration order, tuples as
lists, enums as their values, mappings as objects; absent fields read as their defaults. A class may
ask for its ``None`` fields to be left out and for some fields to come first (:func:`shape`), and a type
the fields cannot describe (a protocol whose classes register themselves) may bring its own pair of
functions (:func:`register`). Older schema versions are upgraded to the current shape by their readers
before decoding, so the codec only ever knows the current one.

A small codec of its own rather than pydantic's ``TypeAdapter``: pydantic validates an LLM call about twice
as fast (3 against 6 microseconds), but in its lax mode it turns ``"3"`` into ``3`` and ``0`` into ``0.0``
(a record read and written again would change), its strict mode refuses a JSON list for a tuple, and its
errors span several lines. Decoding here costs about what building the records by hand did, and a whole
trajectory still loads in less time than before, now checked throughout (the JSON parsing dominates).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from latent_agent.errors import InputError

T = TypeVar("T")
Decoder = Callable[[Any], Any]
Encoder = Callable[[Any], Any]


class DecodeError(InputError):
    """A JSON value does not fit the record type it is read as.

    Attributes:
        field: Where in the record the value is (``calls[0].prompt_tokens``; empty for the record itself).
        problem: What is wrong with it, in a few words.
        source: The file (and line) it was read from, or an empty string.
    """

    def __init__(self, problem: str, *, field: str = "", source: str = "") -> None:
        self.problem = problem
        self.field = field
        self.source = source
        message = f"{field} {problem}" if field else problem
        super().__init__(f"{source}: {message}" if source else message)


class _Mismatch(Exception):
    """Raised inside the decoders; the path is built as it unwinds, then turned into a :class:`DecodeError`."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        self.path: list[str] = []


@dataclasses.dataclass(frozen=True, slots=True)
class _Shape:
    omit_none: bool = False
    leading: tuple[str, ...] = ()
    omit_default: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()


_SHAPES: dict[type, _Shape] = {}
_CUSTOM: dict[Any, tuple[Encoder, Decoder]] = {}
_DECODERS: dict[Any, Decoder] = {}
_ENCODERS: dict[type, Encoder] = {}


def shape(*, omit_none: bool = False, leading: tuple[str, ...] = (), omit_default: tuple[str, ...] = (),
          skip: tuple[str, ...] = ()) -> Callable[[type[T]], type[T]]:
    """Class decorator: how a record's JSON object is laid out.

    Args:
        omit_none: Leave out fields whose value is ``None`` (they read back as their defaults).
        leading: Fields written first, whatever their place in the class (a tag such as ``action_type``).
        omit_default: Fields left out while they hold their default (so records from before the field read
            and write as before).
        skip: Fields never written nor read: what the reader knows otherwise (a cached flag).
    """

    def apply(cls: type[T]) -> type[T]:
        _SHAPES[cls] = _Shape(omit_none, leading, omit_default, skip)
        _ENCODERS.pop(cls, None)
        _DECODERS.pop(cls, None)
        return cls

    return apply


def register(tp: Any, encoder: Encoder, decoder: Decoder) -> None:
    """Give ``tp`` (a type or a type alias used in fields) its own JSON form.

    ``decoder`` may raise :class:`TypeError`, :class:`ValueError` or :class:`KeyError`, which become a
    :class:`DecodeError` naming the field; it may call :func:`decode` for the parts it knows.
    """
    _CUSTOM[tp] = (encoder, decoder)
    # Records compiled before may hold the type: compile them again.
    _DECODERS.clear()
    _ENCODERS.clear()


def mismatch(problem: str) -> Exception:
    """An error a :func:`register`-ed decoder raises for a bad value; the codec adds the field and the file."""
    return _Mismatch(problem)


# ----------------------------------------------------------------------------------------------- encoding


def encode(value: Any) -> Any:
    """``value`` as a JSON value: records as objects (fields in order), tuples as lists, enums as values."""
    if value is None or isinstance(value, str | int | float):
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k.value if isinstance(k, enum.Enum) else k): encode(v) for k, v in value.items()}
    if isinstance(value, enum.Enum):
        return value.value
    cls = type(value)
    encoder = _ENCODERS.get(cls)
    if encoder is None:
        encoder = _ENCODERS[cls] = _record_encoder(cls)
    return encoder(value)


def _record_encoder(cls: type) -> Encoder:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"cannot write a {cls.__name__} as JSON")
    config = _SHAPES.get(cls, _Shape())
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls) if f.name not in config.skip]
    names = [*config.leading, *(n for n in names if n not in config.leading)]
    writers = tuple((n, _field_encoder(hints[n])) for n in names)
    if config.omit_default:
        defaults = {f.name: f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
                    for f in dataclasses.fields(cls) if f.name in config.omit_default}
        return lambda value: {n: write(v) for n, write in writers
                              if not ((v := getattr(value, n)) is None and config.omit_none)
                              and not (n in defaults and v == defaults[n])}
    if config.omit_none:
        return lambda value: {n: write(v) for n, write in writers if (v := getattr(value, n)) is not None}
    return lambda value: {n: write(getattr(value, n)) for n, write in writers}


def _field_encoder(hint: Any) -> Encoder:
    """A field's writer: its type's own (:func:`register`), else :func:`encode` (which goes by the value)."""
    members = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    rest = [m for m in members if m is not type(None)]
    if len(rest) == 1 and rest[0] in _CUSTOM:
        write = _CUSTOM[rest[0]][0]
        return lambda value: None if value is None else write(value)
    return encode


# ----------------------------------------------------------------------------------------------- decoding


def decode(tp: type[T], obj: Any, *, source: str = "") -> T:
    """The value of type ``tp`` that ``obj`` (parsed JSON) describes, every field checked.

    Args:
        tp: A dataclass, or any type a field may have.
        obj: What :func:`json.loads` gave.
        source: The file (and line) ``obj`` came from, for the error message.

    Raises:
        DecodeError: A value does not fit its field (wrong type, unknown enum value, missing field).
    """
    try:
        value: T = decoder(tp)(obj)
    except _Mismatch as exc:
        raise DecodeError(exc.problem, field=_path(exc.path), source=source) from None
    return value


def decode_field(tp: Any, obj: Any, name: str) -> Any:
    """Inside a :func:`register`-ed decoder: decode ``obj`` as ``tp``, errors naming ``name`` below the field."""
    try:
        return decoder(tp)(obj)
    except _Mismatch as exc:
        exc.path.append(name)
        raise


def _path(parts: list[str]) -> str:
    out = ""
    for part in reversed(parts):
        out += part if part.startswith("[") or not out else "." + part
    return out


def decoder(tp: Any) -> Decoder:
    """The (cached) function that reads a JSON value as ``tp``, raising the codec's internal mismatch."""
    found = _DECODERS.get(tp)
    if found is None:
        found = _compile(tp)
    return found


def _compile(tp: Any) -> Decoder:
    if tp in _CUSTOM:
        _DECODERS[tp] = _custom_decoder(_CUSTOM[tp][1])
        return _DECODERS[tp]
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        # Placed first so that a record holding records of its own kind finds it while being compiled.
        fields: list[tuple[str, frozenset[type], Decoder, bool]] = []

        def cell(obj: Any) -> Any:
            return _read_record(tp, fields, obj)

        _DECODERS[tp] = cell
        hints = typing.get_type_hints(tp)
        skip = _SHAPES.get(tp, _Shape()).skip
        for f in dataclasses.fields(tp):
            if f.init and f.name not in skip:
                required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
                read = decoder(hints[f.name])
                fields.append((f.name, _TAKEN_AS_IS.get(read, frozenset()), read, required))
        return cell
    made = _compile_type(tp)
    _DECODERS[tp] = made
    return made


def _custom_decoder(read: Decoder) -> Decoder:
    def run(obj: Any) -> Any:
        try:
            return read(obj)
        except _Mismatch:
            raise
        except KeyError as exc:
            raise _Mismatch(f"lacks {exc}") from None
        except (TypeError, ValueError) as exc:
            raise _Mismatch(f"is not valid ({exc})") from None

    return run


def _read_record(cls: type, fields: list[tuple[str, frozenset[type], Decoder, bool]], obj: Any) -> Any:
    if type(obj) is not dict:
        raise _Mismatch(f"is {_a(obj)}, not an object")
    kwargs = {}
    for name, as_is, read, required in fields:
        if name in obj:
            value = obj[name]
            if type(value) in as_is:  # most fields are plain: checked without a call (trajectories are long)
                kwargs[name] = value
                continue
            try:
                kwargs[name] = read(value)
            except _Mismatch as exc:
                exc.path.append(name)
                raise
        elif required:
            raise _at(_Mismatch("is missing"), name)
    if len(obj) > len(kwargs):
        unknown = sorted(set(obj) - {name for name, _, _, _ in fields})
        if unknown:
            raise _at(_Mismatch(f"is not a field of {cls.__name__}"), unknown[0])
    return cls(**kwargs)


def _at(exc: _Mismatch, name: str) -> _Mismatch:
    exc.path.append(name)
    return exc


def _a(value: Any) -> str:
    """``a str``, ``an int``, ``null``: a JSON value's type, in the error messages."""
    if value is None:
        return "null"
    names: dict[type, str] = {dict: "object", list: "list"}
    name = names.get(type(value), type(value).__name__)
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


#: The JSON types each plain decoder returns unchanged, so a record's reader can take them without calling it.
_TAKEN_AS_IS: dict[Decoder, frozenset[type]] = {}


def _plain(kind: type, wanted: str) -> Decoder:
    def read(obj: Any) -> Any:
        if type(obj) is not kind:
            raise _Mismatch(f"is {_a(obj)}, not {wanted}")
        return obj

    _TAKEN_AS_IS[read] = frozenset({kind})
    return read


def _read_int(obj: Any) -> Any:
    if type(obj) is not int:  # a bool is an int to isinstance, and no count or index is one
        raise _Mismatch(f"is {_a(obj)}, not int")
    return obj


def _read_float(obj: Any) -> Any:
    # JSON writes 0.0 as 0 in some writers; the value is kept as written, so writing it again changes nothing.
    if type(obj) is not float and type(obj) is not int:
        raise _Mismatch(f"is {_a(obj)}, not float")
    return obj


def _read_any(obj: Any) -> Any:
    return obj


_TAKEN_AS_IS[_read_int] = frozenset({int})
_TAKEN_AS_IS[_read_float] = frozenset({int, float})


def _compile_type(tp: Any) -> Decoder:
    if tp is Any or tp is object:
        return _read_any
    if tp is type(None) or tp is None:
        return _plain(type(None), "null")
    if tp is bool:
        return _plain(bool, "bool")
    if tp is int:
        return _read_int
    if tp is float:
        return _read_float
    if tp is str:
        return _plain(str, "str")
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_decoder(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return _literal_decoder(args)
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _tuple_decoder(decoder(args[0]))
        return _fixed_tuple_decoder(tuple(decoder(a) for a in args))
    if origin is list:
        return _list_decoder(decoder(args[0]) if args else _read_any)
    if origin in (dict, Mapping) or tp in (dict, Mapping):
        return _mapping_decoder(decoder(args[1]) if args else _read_any)
    if tp in (tuple, list):
        return _list_decoder(_read_any) if tp is list else _tuple_decoder(_read_any)
    raise TypeError(f"the codec cannot read the type {tp!r}; register() it")


def _enum_decoder(cls: type[enum.Enum]) -> Decoder:
    def read(obj: Any) -> Any:
        try:
            return cls(obj)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in cls)
            raise _Mismatch(f"is {obj!r}, not one of {allowed}") from None

    return read


def _literal_decoder(allowed: tuple[Any, ...]) -> Decoder:
    kinds = {type(a) for a in allowed}  # True == 1, but a bool does not fit Literal[1]

    def read(obj: Any) -> Any:
        if obj not in allowed or type(obj) not in kinds:
            raise _Mismatch(f"is {obj!r}, not {' or '.join(map(repr, allowed))}")
        return obj

    return read


def _union_decoder(members: tuple[Any, ...]) -> Decoder:
    optional = type(None) in members
    rest = tuple(m for m in members if m is not type(None))
    if len(rest) == 1:
        inner = decoder(rest[0])

        def read_optional(obj: Any) -> Any:
            return None if obj is None else inner(obj)

        if inner in _TAKEN_AS_IS:
            _TAKEN_AS_IS[read_optional] = _TAKEN_AS_IS[inner] | {type(None)}
        return read_optional
    tagged = _tag_map(rest)
    if tagged is not None:
        key, by_tag = tagged

        def read_tagged(obj: Any) -> Any:
            if obj is None and optional:
                return None
            if type(obj) is not dict:
                raise _Mismatch(f"is {_a(obj)}, not an object")
            read = by_tag.get(obj.get(key))
            if read is None:
                raise _Mismatch(f"has {key} {obj.get(key)!r}, not one of {', '.join(map(repr, by_tag))}")
            return read(obj)

        return read_tagged
    readers = tuple(decoder(m) for m in rest)
    wanted = " or ".join(getattr(m, "__name__", str(m)) for m in members)

    def read_any_of(obj: Any) -> Any:
        if obj is None and optional:
            return None
        for read in readers:
            try:
                return read(obj)
            except _Mismatch:
                continue
        raise _Mismatch(f"is {_a(obj)}, not {wanted}")

    return read_any_of


def _tag_map(members: tuple[Any, ...]) -> tuple[str, dict[Any, Decoder]] | None:
    """For a union of records told apart by a ``Literal`` field with a default (``action_type``): that field's
    name and each value's reader; None for any other union."""
    if not all(dataclasses.is_dataclass(m) and isinstance(m, type) for m in members):
        return None
    keys: set[str] | None = None
    for m in members:
        hints = typing.get_type_hints(m)
        own = {f.name for f in dataclasses.fields(m) if typing.get_origin(hints[f.name]) is typing.Literal}
        keys = own if keys is None else keys & own
    if not keys or len(keys) != 1:
        return None
    key = keys.pop()
    by_tag: dict[Any, Decoder] = {}
    for m in members:
        default = next(f.default for f in dataclasses.fields(m) if f.name == key)
        if default is dataclasses.MISSING or default in by_tag:
            return None
        by_tag[default] = decoder(m)
    return key, by_tag


def _tuple_decoder(item: Decoder) -> Decoder:
    as_is = _TAKEN_AS_IS.get(item, frozenset())

    def read(obj: Any) -> Any:
        if type(obj) is not list and type(obj) is not tuple:
            raise _Mismatch(f"is {_a(obj)}, not a list")
        if item is _read_any or all(type(v) in as_is for v in obj):
            return tuple(obj)
        out = []
        for i, v in enumerate(obj):
            try:
                out.append(item(v))
            except _Mismatch as exc:
                exc.path.append(f"[{i}]")
                raise
        return tuple(out)

    return read


def _fixed_tuple_decoder(items: tuple[Decoder, ...]) -> Decoder:
    def read(obj: Any) -> Any:
        if (type(obj) is not list and type(obj) is not tuple) or len(obj) != len(items):
            raise _Mismatch(f"is {_a(obj)}, not a list of {len(items)}")
        out = []
        for i, (read_item, v) in enumerate(zip(items, obj, strict=True)):
            try:
                out.append(read_item(v))
            except _Mismatch as exc:
                exc.path.append(f"[{i}]")
                raise
        return tuple(out)

    return read


def _list_decoder(item: Decoder) -> Decoder:
    read_tuple = _tuple_decoder(item)
    return lambda obj: list(read_tuple(obj))


def _mapping_decoder(value: Decoder) -> Decoder:
    as_is = _TAKEN_AS_IS.get(value, frozenset())

    def read(obj: Any) -> Any:
        if type(obj) is not dict:
            raise _Mismatch(f"is {_a(obj)}, not an object")
        if value is _read_any or all(type(v) in as_is for v in obj.values()):
            return dict(obj)
        out = {}
        for k, v in obj.items():
            try:
                out[k] = value(v)
            except _Mismatch as exc:
                exc.path.append(f"[{k!r}]")
                raise
        return out

    return read
