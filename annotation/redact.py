"""Keeping secrets, internal paths and typed passwords out of forms.

Forms leave the machine (they are mailed to raters), so every piece of text
an export puts in one goes through :meth:`Redactor.text`: API keys (the ones
the LLM layer registered, any in the environment, anything shaped like a
Google or OpenAI key or an auth header) and absolute file paths are masked.
With password redaction on, text typed into a password field is masked
wherever it appears, and password fields are painted over on screenshots.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from latent_agent.accessibility.tree import Bounds, UINode
from latent_agent.grounder.actions import Action, InputText
from latent_agent.llm.secrets import redact

MASK = "[REDACTED]"
PATH_MASK = "[path]"
PASSWORD_MASK = "\u2022" * 6
_KEY_SHAPES = re.compile(r"AIza[0-9A-Za-z_\-]{35}|sk-[A-Za-z0-9_\-]{20,}|ya29\.[0-9A-Za-z_\-]{20,}")
# Absolute POSIX paths of two or more components, and Windows drive paths.
_PATHS = re.compile(r"(?<![\w.:/])(?:/[\w.\-~]+){2,}/?|\b[A-Za-z]:\\[^\s\"'<>]+")
_SECRET_ENV = re.compile(r"(?i)(key|token|secret|password)")
#: Environment values shorter than this are too likely to be ordinary words to mask.
MIN_SECRET_LENGTH = 8


def environment_secrets() -> set[str]:
    """Values of environment variables whose names say they hold a credential."""
    return {v.strip() for k, v in os.environ.items()
            if _SECRET_ENV.search(k) and len(v.strip()) >= MIN_SECRET_LENGTH}


@dataclass(slots=True)
class Redactor:
    """Masks secrets, paths and (optionally) typed passwords in text.

    Attributes:
        secrets: Literal strings to mask (API keys).
        passwords: Text typed into password fields, masked when seen.
    """

    secrets: set[str] = field(default_factory=environment_secrets)
    passwords: set[str] = field(default_factory=set)

    def text(self, value: str) -> str:
        """``value`` with every secret, absolute path and known password masked."""
        for secret in sorted(self.secrets, key=len, reverse=True):
            value = value.replace(secret, MASK)
        for password in sorted(self.passwords, key=len, reverse=True):
            value = value.replace(password, PASSWORD_MASK)
        value = _KEY_SHAPES.sub(MASK, redact(value))
        return _PATHS.sub(PATH_MASK, value)

    def optional(self, value: str | None) -> str | None:
        return None if value is None else self.text(value)


def password_fields(roots: Iterable[UINode]) -> list[UINode]:
    """Nodes marked as password fields, with bounds, in screen order."""
    return [n for root in roots for n in root.iter() if n.password and n.bounds is not None]


def typed_password(action: Action | None, fields: list[UINode]) -> bool:
    """Whether ``action`` types into one of the password ``fields``.

    The field is the one under the action's point when it has one, else the
    focused field (where the keyboard sends text).
    """
    if not isinstance(action, InputText) or not fields:
        return False
    if action.x is not None and action.y is not None:
        return any(f.bounds is not None and f.bounds.contains_point(action.x, action.y) for f in fields)
    return any(f.focused for f in fields)


def field_bounds(fields: list[UINode]) -> list[Bounds]:
    return [f.bounds for f in fields if f.bounds is not None]
