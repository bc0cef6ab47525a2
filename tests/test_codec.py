"""The dataclass codec: JSON shapes written, values checked on read, errors naming the field and the file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol

import pytest

from latent_agent import codec
from latent_agent.codec import DecodeError, decode, encode
from latent_agent.errors import InputError


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Inner:
    name: str
    size: int = 0


@dataclass(frozen=True, slots=True)
class Outer:
    index: int
    ratio: float
    label: str | None
    colour: Colour = Colour.RED
    items: tuple[Inner, ...] = ()
    words: tuple[str, ...] = ()
    phases: Mapping[str, float] = field(default_factory=dict)
    extra: dict[str, Any] | None = None
    flag: bool = False
    pair: tuple[int, str] | None = None


@codec.shape(omit_none=True, leading=("kind",))
@dataclass(frozen=True, slots=True)
class Tap:
    x: int
    y: int | None = None
    kind: Literal["tap"] = "tap"


@codec.shape(omit_none=True, leading=("kind",))
@dataclass(frozen=True, slots=True)
class Type:
    text: str
    kind: Literal["type"] = "type"


@dataclass(frozen=True, slots=True)
class Holder:
    action: Tap | Type | None = None
    either: int | str = 0


def test_a_record_round_trips_with_its_json_shape() -> None:
    record = Outer(3, 0.5, None, Colour.BLUE, (Inner("a", 2),), ("x", "y"), {"observe": 0.25}, {"k": [1]}, True,
                   (1, "b"))
    data = encode(record)
    assert data == {"index": 3, "ratio": 0.5, "label": None, "colour": "blue", "items": [{"name": "a", "size": 2}],
                    "words": ["x", "y"], "phases": {"observe": 0.25}, "extra": {"k": [1]}, "flag": True,
                    "pair": [1, "b"]}
    assert list(data) == [f for f in Outer.__dataclass_fields__]  # fields in declaration order
    assert decode(Outer, json.loads(json.dumps(data))) == record


def test_absent_fields_read_as_their_defaults_and_ints_stay_ints_in_float_fields() -> None:
    record = decode(Outer, {"index": 1, "ratio": 0, "label": "l"})
    assert record == Outer(1, 0, "l")
    assert type(record.ratio) is int  # kept as written: writing it again gives the same bytes
    assert json.dumps(encode(record)["ratio"]) == "0"


def test_shape_omits_none_and_puts_the_tag_first() -> None:
    assert list(encode(Tap(5))) == ["kind", "x"]
    assert encode(Holder(Tap(5, 6))) == {"action": {"kind": "tap", "x": 5, "y": 6}, "either": 0}


def test_a_union_of_tagged_records_reads_by_its_tag() -> None:
    assert decode(Holder, {"action": {"kind": "type", "text": "hi"}}).action == Type("hi")
    assert decode(Holder, {"action": {"kind": "tap", "x": 1}}).action == Tap(1)
    assert decode(Holder, {"action": None, "either": "s"}) == Holder(None, "s")
    with pytest.raises(DecodeError, match=r"^action has kind 'swipe', not one of 'tap', 'type'$"):
        decode(Holder, {"action": {"kind": "swipe"}})


@pytest.mark.parametrize(("obj", "message"), [
    ({"index": "3", "ratio": 0.5, "label": None}, "f.jsonl:2: index is a str, not int"),
    ({"index": True, "ratio": 0.5, "label": None}, "f.jsonl:2: index is a bool, not int"),
    ({"index": 1, "ratio": "x", "label": None}, "f.jsonl:2: ratio is a str, not float"),
    ({"index": 1, "ratio": 1.0, "label": 5}, "f.jsonl:2: label is an int, not str"),
    ({"index": 1, "ratio": 1.0, "label": None, "colour": "green"},
     "f.jsonl:2: colour is 'green', not one of 'red', 'blue'"),
    ({"index": 1, "ratio": 1.0, "label": None, "items": [{"name": "a"}, {"name": 7}]},
     "f.jsonl:2: items[1].name is an int, not str"),
    ({"index": 1, "ratio": 1.0, "label": None, "items": {"name": "a"}}, "f.jsonl:2: items is an object, not a list"),
    ({"index": 1, "ratio": 1.0, "label": None, "phases": {"a": "slow"}}, "f.jsonl:2: phases['a'] is a str, not float"),
    ({"index": 1, "ratio": 1.0, "label": None, "pair": [1]}, "f.jsonl:2: pair is a list, not a list of 2"),
    ({"ratio": 1.0, "label": None}, "f.jsonl:2: index is missing"),
    ({"index": 1, "ratio": 1.0, "label": None, "colour_": "red"}, "f.jsonl:2: colour_ is not a field of Outer"),
    ([1], "f.jsonl:2: is a list, not an object"),
])
def test_a_wrong_value_is_one_line_naming_the_file_and_the_field(obj: Any, message: str) -> None:
    with pytest.raises(DecodeError) as caught:
        decode(Outer, obj, source="f.jsonl:2")
    assert str(caught.value) == message and "\n" not in str(caught.value)
    assert isinstance(caught.value, InputError)


def test_a_union_of_plain_types_names_them_all() -> None:
    with pytest.raises(DecodeError, match=r"^either is a list, not int or str$"):
        decode(Holder, {"either": []})


class Shape(Protocol):
    @property
    def kind(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Square:
    side: int

    @property
    def kind(self) -> str:
        return "square"


@dataclass(frozen=True, slots=True)
class Drawing:
    shape: Shape | None
    shapes: tuple[Square, ...] = ()


def _shape_to_json(shape: Shape) -> dict[str, Any]:
    return {"kind": shape.kind, **encode(shape)}


def _shape_from_json(obj: dict[str, Any]) -> Shape:
    data = dict(obj)
    if data.pop("kind") != "square":
        raise codec.mismatch("is no known shape")
    value: Square = codec.decode_field(Square, data, "square")
    return value


def test_a_registered_type_brings_its_own_pair_of_functions() -> None:
    codec.register(Shape, _shape_to_json, _shape_from_json)
    assert encode(Drawing(Square(2))) == {"shape": {"kind": "square", "side": 2}, "shapes": []}
    assert decode(Drawing, {"shape": {"kind": "square", "side": 2}}) == Drawing(Square(2))
    assert decode(Drawing, {"shape": None}) == Drawing(None)
    with pytest.raises(DecodeError, match=r"^shape is no known shape$"):
        decode(Drawing, {"shape": {"kind": "circle"}})
    with pytest.raises(DecodeError, match=r"^shape\.square\.side is a str, not int$"):
        decode(Drawing, {"shape": {"kind": "square", "side": "2"}})
    with pytest.raises(DecodeError, match=r"^shape lacks 'kind'$"):
        decode(Drawing, {"shape": {}})


def test_an_unreadable_type_is_refused_when_compiled() -> None:
    with pytest.raises(TypeError, match="register"):
        codec.decoder(set[int])


@codec.shape(omit_default=("extra",), skip=("cached",))
@dataclass(frozen=True, slots=True)
class Counted:
    tokens: int
    extra: int = 0
    cached: bool = False


def test_a_field_may_be_left_out_at_its_default_or_never_written() -> None:
    assert encode(Counted(3)) == {"tokens": 3}
    assert encode(Counted(3, 2, True)) == {"tokens": 3, "extra": 2}
    assert decode(Counted, {"tokens": 3}) == Counted(3)
    with pytest.raises(DecodeError, match=r"^cached is not a field of Counted$"):
        decode(Counted, {"tokens": 3, "cached": True})
