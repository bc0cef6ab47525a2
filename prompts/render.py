"""The prompt templates: Jinja2 files beside the code that parses their answers.

Every template lives in ``prompts/templates/``: goal normalization, the five latent-state
aspects, the six action selectors and the grounders.
They render with :class:`jinja2.StrictUndefined`, so a missing variable is an
error rather than an empty string in a prompt.
"""

from __future__ import annotations

import functools
from typing import Any

import jinja2

from latent_agent.errors import ConfigError
from latent_agent.surfaces import Surface


@functools.cache
def environment() -> jinja2.Environment:
    """The shared Jinja2 environment (built on first use)."""
    loader = jinja2.PackageLoader("latent_agent.prompts", "templates")
    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(name: str, surface: Surface, **variables: Any) -> str:
    """Render template ``name`` (e.g. ``"latent_mistakes.j2"``) for ``surface``.

    Every template is rendered for the surface in front of the agent (``surface``, as the device declares it):
    its role line and the actions it offers are that surface's (no app, launcher, Back or Home words on a web
    page).

    Raises:
        ConfigError: The template is missing or a variable it uses was not given.
    """
    try:
        text = environment().get_template(name).render(surface=surface, **variables)
    except jinja2.TemplateNotFound as exc:
        raise ConfigError(f"prompt template {name!r} not found") from exc
    except jinja2.UndefinedError as exc:
        raise ConfigError(f"prompt template {name!r}: {exc.message}") from exc
    return text.strip() + "\n"
