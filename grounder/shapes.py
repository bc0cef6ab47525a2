"""The grounder's answer shape: one JSON action of those its prompt offers on the surface.

The schema is read off the action classes (:mod:`latent_agent.grounder.actions`): per offered kind an object
with its ``action_type`` first, its fields typed as the parser reads them (integers, non-empty strings, a
direction, a key or an activity from its list, a press count and a wait within their bounds), the required ones
required and nothing else allowed. The kinds are those either grounder's prompt offers on the surface (the
``llm`` grounder's and the ``paper`` grounder's :data:`OFFERED`), so on a web page the web actions too, and on a
phone no web action. ``launch_adb_activity`` takes the field under either name the parser reads (the paper's
``activity_nickname``, the ``llm`` prompt's ``activity``).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, get_args, get_type_hints

from latent_agent.grounder import llm, paper
from latent_agent.grounder.actions import MAX_PRESSES, Action
from latent_agent.grounder.base import GROUND
from latent_agent.purposes import Purpose
from latent_agent.shapes import AnswerShape, ShapeRule
from latent_agent.surfaces import Surface, SurfaceKind

#: What the answer is, in records.
NAME = "the grounder's action"
#: Bounds of the numbers the parser takes (a press count, a wait's seconds).
_BOUNDS: dict[tuple[str, str], tuple[int, int]] = {("press_key", "times"): (1, MAX_PRESSES),
                                                   ("wait", "seconds"): (0, 60)}
#: The field the paper's grounder names ``activity_nickname`` (the parser reads either name).
_ACTIVITY = ("launch_adb_activity", "activity", "activity_nickname")
#: Fields only a web page carries out (emptying a field first needs its keys).
_WEB_FIELDS = frozenset({("input_text", "clear")})


def offered(kind: SurfaceKind) -> tuple[str, ...]:
    """The action types either grounder's prompt offers on a surface of ``kind``, in the prompts' order."""
    return tuple(dict.fromkeys((*llm.OFFERED[kind], *paper.OFFERED[kind])))


def _type(hint: Any) -> dict[str, Any]:
    """A field's JSON schema type (a Literal is its values)."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    base = next(m for m in get_args(hint) if m is not type(None)) if union else hint
    if typing.get_origin(base) is typing.Literal:
        return {"type": "string", "enum": list(get_args(base))}
    if base is bool:
        return {"type": "boolean"}
    if base is int:
        return {"type": "integer"}
    if base is float:
        return {"type": "number"}
    return {"type": "string"}


def _variant(cls: type, kind: str, rename: Mapping[str, str], web: bool) -> dict[str, Any]:
    hints = get_type_hints(cls)
    properties: dict[str, Any] = {"action_type": {"type": "string", "enum": [kind]}}
    required = ["action_type"]
    for f in dataclasses.fields(cls):
        if f.name == "action_type" or ((kind, f.name) in _WEB_FIELDS and not web):
            continue
        name = rename.get(f.name, f.name)
        schema = _type(hints[f.name])
        if (kind, f.name) in _BOUNDS:
            schema["minimum"], schema["maximum"] = _BOUNDS[(kind, f.name)]
        elif schema["type"] == "integer":
            schema["minimum"] = 0  # a point on the screen
        elif schema["type"] == "string" and "enum" not in schema and f.name != "text":
            schema["minLength"] = 1  # a name or an option is never empty (typed text may be)
        properties[name] = schema
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(name)
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def action_schema(kinds: tuple[str, ...], *, web: bool) -> dict[str, Any]:
    """The JSON schema of one action of ``kinds`` (any of them, each as the parser reads it; ``web``: with the
    fields only a web page carries out)."""
    classes = {cls.__dataclass_fields__["action_type"].default: cls for cls in get_args(Action)}
    variants: list[dict[str, Any]] = []
    for kind in kinds:
        variants.append(_variant(classes[kind], kind, {}, web))
        if kind == _ACTIVITY[0]:
            variants.append(_variant(classes[kind], kind, {_ACTIVITY[1]: _ACTIVITY[2]}, web))
    return {"anyOf": variants}


@functools.cache
def _shape(surface: Surface) -> AnswerShape:
    return AnswerShape.json(NAME, action_schema(offered(surface.kind), web=surface.web))


def ground_shape(surface: Surface) -> AnswerShape:
    """The grounder's answer shape on ``surface``."""
    return _shape(surface)


#: The grounder's call kinds and their shapes.
SHAPES: Mapping[Purpose, ShapeRule] = {GROUND: ground_shape}
