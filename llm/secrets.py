"""Keeping API keys out of everything the LLM layer writes.

Loaders register each key they use; :func:`redact` replaces registered keys
(and anything shaped like an auth header) in text before it reaches a
cassette, a call log or an error message, and :class:`RedactingFilter` does
the same for log records. The registry is process-wide because logging is.
"""

from __future__ import annotations

import logging
import re
import threading

_lock = threading.Lock()
_secrets: set[str] = set()

#: Header values that carry credentials, whatever key they hold.
_AUTH_PATTERN = re.compile(
    r"(?i)((?:authorization|x-goog-api-key|api[-_]?key)[\"']?\s*[:=]\s*[\"']?(?:bearer\s+)?)([^\s\"',}]+)"
)
MASK = "[REDACTED]"


def register_secret(value: str | None) -> None:
    """Remember ``value`` as a secret to mask from now on (empty values are ignored)."""
    if value and value.strip():
        with _lock:
            _secrets.add(value.strip())


def redact(text: str) -> str:
    """``text`` with every registered secret and auth header value masked."""
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return _AUTH_PATTERN.sub(lambda m: m.group(1) + MASK, text)


class RedactingFilter(logging.Filter):
    """A logging filter that masks secrets in a record's final message.

    Attach it to a handler (handler filters see records from every logger,
    the SDKs' included)::

        handler.addFilter(RedactingFilter())
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg = cleaned
            record.args = None
        return True
