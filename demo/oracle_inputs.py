"""Reading a call's structured inputs in the demo oracles: the one place that says what a missing input is."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from latent_agent.errors import LLMRequestError

#: The structured inputs a call carries (``GenerationRequest.inputs``).
Inputs = Mapping[str, Any]


def text_input(inputs: Inputs, name: str) -> str:
    """The string input ``name``.

    Raises:
        LLMRequestError: The call did not carry it as a string (naming what it carried).
    """
    value = inputs.get(name)
    if not isinstance(value, str):
        raise LLMRequestError(f"the demo stand-in needs the input {name!r} (a string); the call carried "
                              f"{sorted(inputs)}")
    return value


def list_input(inputs: Inputs, name: str) -> list[Any]:
    """The list input ``name``.

    Raises:
        LLMRequestError: The call did not carry it as a list (naming what it carried).
    """
    value = inputs.get(name)
    if not isinstance(value, list | tuple):
        raise LLMRequestError(f"the demo stand-in needs the input {name!r} (a list); the call carried "
                              f"{sorted(inputs)}")
    return list(value)


def texts_input(inputs: Inputs, name: str) -> list[str]:
    """The list input ``name``, each item as a string.

    Raises:
        LLMRequestError: The call did not carry it as a list.
    """
    return [str(v) for v in list_input(inputs, name)]
