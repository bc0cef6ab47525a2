"""Random answers of a shape, for tests: every answer a shape admits must be one its parser reads.

:func:`sample_text` draws a string a pattern matches (each repeat a random count, a class's character at random
from a mix of letters, digits, punctuation, spaces and other scripts); :func:`sample_json` draws a JSON value a
schema of the subset the shapes use admits (``anyOf``, objects with their required and some optional properties,
``enum``, integers and numbers within their bounds, strings, booleans).
"""

from __future__ import annotations

import random
import string
from typing import Any

from latent_agent.shapes import Alt, Chars, Lit, Pattern, Repeat, Seq

#: Characters a class's character is drawn from (what a model may write, quotes and symbols included).
ALPHABET = string.ascii_letters + string.digits + string.punctuation + "  \téàßΩ中→" + "NAME"
#: The most a repeat with no upper bound is drawn beyond its lower one.
UNBOUNDED_EXTRA = 6


def sample_text(pattern: Pattern, rng: random.Random) -> str:
    """A random string ``pattern`` matches."""
    match pattern:
        case Lit(text=text):
            return text
        case Chars():
            pool = [c for c in ALPHABET + "\n" if pattern.allows(c)] or sorted(pattern.members)
            return rng.choice(pool)
        case Seq(items=items):
            return "".join(sample_text(i, rng) for i in items)
        case Alt(options=options):
            return sample_text(rng.choice(options), rng)
        case Repeat(item=item, low=low, high=high):
            top = high if high is not None else low + UNBOUNDED_EXTRA
            # Short repeats mostly, the longest now and then: both ends of the bounds are exercised.
            count = top if rng.random() < 0.05 else rng.randint(low, min(top, low + 8))
            return "".join(sample_text(item, rng) for _ in range(count))
    raise TypeError(f"not a pattern: {pattern!r}")


def sample_json(schema: dict[str, Any], rng: random.Random) -> Any:
    """A random JSON value ``schema`` admits."""
    if "anyOf" in schema:
        return sample_json(rng.choice(schema["anyOf"]), rng)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        out: dict[str, Any] = {}
        for name, child in schema.get("properties", {}).items():
            if name in schema.get("required", ()) or rng.random() < 0.5:
                out[name] = sample_json(child, rng)
        return out
    if kind in ("integer", "number"):
        low, high = schema.get("minimum", -50), schema.get("maximum", 3000)
        return rng.randint(int(low), int(high)) if kind == "integer" else round(rng.uniform(low, high), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "string":
        length = rng.randint(schema.get("minLength", 0), 12)
        return "".join(rng.choice(ALPHABET) for _ in range(length))
    raise TypeError(f"a schema the shapes do not use: {schema!r}")
