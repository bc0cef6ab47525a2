"""Every built-in call kind's answer shape, registered from one table (``--llm-structured on``).

Each method package declares its call kinds' shapes beside their parsers (``<package>/shapes.py``: a
``SHAPES`` mapping from purpose to the rule that gives the shape on a surface); the grounder's are in
``grounder/shapes.py``. :func:`register_builtin_shapes` puts them in the one registry,
:func:`latent_agent.shapes.shape_for`, which the caller asks by purpose; the method registry
(:mod:`latent_agent.agent.methods`) calls it as it registers the built-in methods. A method from elsewhere
registers its own with :func:`latent_agent.shapes.register_shape`.
"""

from __future__ import annotations

from collections.abc import Mapping

from latent_agent.agent.caap import shapes as caap
from latent_agent.agent.exemplars import shapes as exemplars
from latent_agent.agent.latent_state import shapes as latent_state
from latent_agent.agent.reflection import shapes as reflection
from latent_agent.grounder import shapes as grounder
from latent_agent.purposes import Purpose
from latent_agent.shapes import ShapeRule, register_shape

#: The built-in call kinds' shapes, by package.
BUILTIN_SHAPES: tuple[Mapping[Purpose, ShapeRule], ...] = (
    grounder.SHAPES, latent_state.SHAPES, reflection.SHAPES, exemplars.SHAPES, caap.SHAPES)


def register_builtin_shapes() -> None:
    """Register every built-in call kind's shape (again: harmless)."""
    for table in BUILTIN_SHAPES:
        for purpose, rule in table.items():
            register_shape(purpose, rule)
