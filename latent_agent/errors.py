"""One error hierarchy for the whole project.

Every failure the project reports on purpose is a subclass of
:class:`LatentAgentError`, so callers (and the CLI) can catch one type, and
nothing is signalled through sentinel strings or ``None`` results. Each area of
the pipeline has its own branch; messages say what was wrong and where.
"""

from __future__ import annotations

from latent_agent.exit_codes import ExitCode


class LatentAgentError(Exception):
    """Base class of every error latent-agent raises on purpose.

    Attributes:
        exit_code: The CLI's exit status when this error ends a command (see
            :mod:`latent_agent.exit_codes`): usage/input unless a branch says otherwise.
    """

    exit_code: ExitCode = ExitCode.USAGE


class InputError(LatentAgentError):
    """Input supplied by a user or a file is malformed or unsupported."""


class ParseError(InputError):
    """A screen dump (XML or proto) could not be parsed into a UI tree.

    Attributes:
        source: What was being parsed (a file name or a short description).
        location: Where in the input the problem was found (line/column, node path),
            or an empty string when the problem concerns the input as a whole.
        reason: The problem itself, in a few words.
    """

    def __init__(self, reason: str, *, source: str = "", location: str = "") -> None:
        self.reason = reason
        self.source = source
        self.location = location
        parts = [p for p in (source, location) if p]
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {reason}" if prefix else reason)


class TreeTooLargeError(ParseError):
    """A UI tree exceeds the configured node or depth limit and was refused."""


class FileTooLargeError(InputError):
    """A file from a folder the project did not write (a copied sweep or episode) is larger than such a file may
    be; it was refused before it was read."""


class ConfigError(InputError):
    """A command-line spec or configuration value is invalid (e.g. ``--device foo:``)."""


class MissingExtraError(ConfigError):
    """A module of an optional extra is not installed (:mod:`latent_agent.extras`); nothing was run.

    Attributes:
        extra: The extra that provides it (``ocr``, ``stats``, ...).
    """

    def __init__(self, message: str, *, extra: str) -> None:
        self.extra = extra
        super().__init__(message)


class TaskSuiteError(InputError):
    """A task-suite file is malformed: bad JSON, schema version, check or action."""


class OutputPathError(InputError):
    """A path given for output cannot be used: it cannot be created or written, or it already holds an episode."""


class AnnotationError(InputError):
    """Annotation forms, rater answers or a scores directory are inconsistent or malformed."""


class AnswerValidationError(AnnotationError):
    """A rater's answer file does not fit the form it claims to answer.

    Attributes:
        source: The answer file (its name as given).
    """

    def __init__(self, message: str, *, source: str = "") -> None:
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)


class WrongFormError(AnswerValidationError):
    """Answers name an unknown form, another episode, or a form exported differently."""


class MissingAnswerError(AnswerValidationError):
    """A question of the form was left unanswered (or answered with a value it does not offer)."""


class DuplicateRaterError(AnswerValidationError):
    """The same rater answered the same form twice (in one import, or already imported)."""


class OutputExistsError(AnnotationError):
    """A file the command would write already exists with other content; nothing was overwritten."""


class DeviceError(LatentAgentError):
    """A device backend failed to observe or act."""

    exit_code = ExitCode.INFRASTRUCTURE


class DeviceTimeoutError(DeviceError):
    """A device call did not finish within its timeout."""


class DeviceConnectionError(DeviceError):
    """The connection to a device was refused, lost or closed mid-command."""


class ServeAddressError(DeviceConnectionError):
    """A device server (``sim serve``) cannot listen on the address asked for (in use, or not allowed)."""

    exit_code = ExitCode.USAGE  # the command named a port that cannot be used; another one will do


class AppNotFoundError(DeviceError):
    """An app name or package could not be resolved on the device."""

    exit_code = ExitCode.USAGE  # the command named an app the device does not have


class DeviceActionError(DeviceError):
    """An action's arguments do not fit the device (a point off screen, an unknown activity)."""


class ActionNotSupportedError(DeviceError):
    """The device has no such action (Back, Home or an app launch on a web page); nothing was done.

    The episode records the refusal with its step and goes on, as for an unknown app.
    """

    exit_code = ExitCode.USAGE  # the command asked for something this kind of device cannot do


class ElementNotFoundError(DeviceError):
    """A scripted action named an element (by text or description) that is not on screen."""


class LLMError(LatentAgentError):
    """An LLM call failed in a way that retrying will not fix."""

    exit_code = ExitCode.INFRASTRUCTURE


class LLMAuthError(LLMError):
    """The provider rejected the API key or the key is not allowed to use the model."""


class LLMRequestError(LLMError):
    """The provider refused the request itself (bad parameter, unknown model, prompt too long)."""


class LLMContextWindowError(LLMRequestError):
    """A prompt (with its output cap) does not fit the server's context window; it was not sent.

    Raised before sending, so a server never truncates a prompt unnoticed. It ends a command with the
    LLM's exit status (3, infrastructure), as the server's own refusal would: the episode stops on
    ``llm_error`` after steps that ran, and a sweep counts it toward its pause, where ``--resume``
    continues once the server has a larger window (``--llm-ctx``).

    Attributes:
        purpose: The call's declared purpose (``select``, ...), or ``request``.
        prompt_tokens: The prompt's size, as the server counts it or estimated.
        output_tokens: The output cap the call reserves (0 when it sets none).
        window: The server's context window.
    """

    def __init__(self, message: str, *, purpose: str, prompt_tokens: int, output_tokens: int, window: int) -> None:
        self.purpose = purpose
        self.prompt_tokens = prompt_tokens
        self.output_tokens = output_tokens
        self.window = window
        super().__init__(message)


class LLMSafetyBlockError(LLMError):
    """The provider blocked the prompt or every candidate for safety reasons."""


class LLMEmptyResponseError(LLMError):
    """The provider answered without any candidate text."""


class LLMResponseError(LLMError):
    """The provider's answer could not be parsed (malformed JSON, unexpected shape)."""


class LLMRetriesExhaustedError(LLMError):
    """A transient failure (rate limit, 5xx, timeout, reset) persisted through every retry.

    Attributes:
        attempts: How many attempts were made, the first one included.
    """

    def __init__(self, message: str, *, attempts: int) -> None:
        self.attempts = attempts
        super().__init__(message)


class LLMRateLimitError(LLMRetriesExhaustedError):
    """The provider kept answering 429 (rate limit / quota) until the retries ran out."""


class LLMUnavailableError(LLMRetriesExhaustedError):
    """The provider kept failing with 5xx or dropped connections until the retries ran out."""


class LLMTimeoutError(LLMRetriesExhaustedError):
    """The provider did not answer within the timeout, on every attempt."""


class LLMBudgetExceededError(LLMError):
    """The run's LLM budget (calls or tokens) is spent; no further call is sent."""


class ReplayMissError(LLMError):
    """A replay cassette holds no recorded answer for a request."""


class ScriptExhaustedError(LLMError):
    """A scripted model was asked for more replies than were queued for it."""


class GroundingError(LatentAgentError):
    """A step in words could not be mapped to a valid device action."""


class SweepStateError(InputError):
    """A sweep directory's manifest or results file is malformed or does not match the sweep asked for."""


class SweepError(LatentAgentError):
    """A benchmark sweep could not go on (no usable device left, directory in use by another sweep)."""

    exit_code = ExitCode.INFRASTRUCTURE


class PreflightError(SweepError):
    """A device or the LLM did not answer the check a sweep makes before it plans anything."""


class SweepPausedError(SweepError):
    """A sweep stopped before its plan was done; the episodes not run stay planned for ``--resume``."""

    exit_code = ExitCode.PAUSED


class ConsecutiveErrorsError(SweepPausedError):
    """The same infrastructure error ended several episodes in a row, so the sweep paused."""


class DevicePoolExhaustedError(SweepPausedError):
    """Every device of a sweep's pool failed; the episodes not run stay planned for ``--resume``."""


class SweepLockedError(SweepError):
    """Another sweep process holds the sweep directory."""
