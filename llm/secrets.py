"""Keeping API keys out of everything the LLM layer writes.

Loaders register each key they use; :func:`redact` replaces registered keys
(and anything shaped like an auth header) in text before it reaches a
cassette, a call log or an error message, and :class:`RedactingFilter` does
the same for log records. The registry is process-wide because logging is.

A base URL can carry credentials too: a password (``http://user:pass@host``) or a query value
such as ``?key=`` or ``?access_token=``. :func:`register_url` registers them when a client is
built, and :func:`redact` masks them in any URL it meets, registered or not.
"""

from __future__ import annotations

import logging
import re
import threading
from urllib.parse import parse_qsl, unquote, urlsplit

_lock = threading.Lock()
_secrets: set[str] = set()

#: Header values that carry credentials, whatever key they hold. Values (here and in URLs below) end at ``&``,
#: the next query parameter, and at a backslash, so text already JSON-encoded stays valid JSON.
_AUTH_PATTERN = re.compile(
    r"(?i)((?:authorization|x-goog-api-key|api[-_]?key)[\"']?\s*[:=]\s*[\"']?(?:bearer\s+)?)([^\s\"',}&\\]+)"
)
MASK = "[REDACTED]"
#: The credentials part of a URL: ``scheme://USER:PASSWORD@`` (group 3) or a lone ``scheme://TOKEN@``
#: (group 2, a token given as the user name, as some proxies take it).
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]{0,31}://)([^\s/?#@:\"'\\]*)(?::([^\s/?#@\"'\\]*))?@")
#: Query parameter names whose value is a credential: ``key``, ``api_key``, ``apiKey``, ``access_token``,
#: ``client_secret``, ``password``, ``sig``, ``X-Amz-Signature``, ``auth`` ...
_SECRET_NAME = r"[\w.-]{0,64}?(?:key|token|secret|passw(?:or)?d|pwd|sig|signature|auth|credentials?)"
_SECRET_QUERY = re.compile(rf"(?i)([?&;]{_SECRET_NAME}=)([^&;#\s\"'<>\\]+)")
#: Shorter values of a URL are masked only where they stand in a URL: masking a short word everywhere
#: would mangle ordinary text ("pass" in "passed").
_MIN_REGISTERED = 8


def register_secret(value: str | None) -> None:
    """Remember ``value`` as a secret to mask from now on (empty values are ignored)."""
    if value and value.strip():
        with _lock:
            _secrets.add(value.strip())


def url_secrets(url: str) -> list[str]:
    """The credentials ``url`` carries: its password (or a lone user name), secret-looking query values.

    Each is listed as written and percent-decoded; a URL that does not parse carries none.
    """
    try:
        parts = urlsplit(url.strip())
        query = parse_qsl(parts.query, keep_blank_values=False)
        password, user = parts.password, parts.username
    except ValueError:
        return []
    found = [password] if password else [user] if user and "@" in parts.netloc else []
    found += [value for name, value in query if re.fullmatch(_SECRET_NAME, name, re.IGNORECASE)]
    return [form for value in found for form in dict.fromkeys((value, unquote(value))) if form]


def register_url(url: str | None) -> None:
    """Register the credentials of a base URL (see :func:`url_secrets`) as secrets."""
    for value in url_secrets(url or ""):
        if len(value) >= _MIN_REGISTERED:
            register_secret(value)


def redact_url_credentials(text: str) -> str:
    """``text`` with the password (or lone user name) and secret query values of every URL masked."""

    def userinfo(m: re.Match[str]) -> str:
        if m.group(3) is None:  # scheme://TOKEN@ : the user name is the credential
            return f"{m.group(1)}{MASK}@" if m.group(2) else m.group(0)
        return f"{m.group(1)}{m.group(2)}:{MASK}@"

    return _SECRET_QUERY.sub(lambda m: m.group(1) + MASK, _USERINFO.sub(userinfo, text))


def redact(text: str) -> str:
    """``text`` with every registered secret, auth header value and URL credential masked."""
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return redact_url_credentials(_AUTH_PATTERN.sub(lambda m: m.group(1) + MASK, text))


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
