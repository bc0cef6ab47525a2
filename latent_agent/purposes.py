"""What each LLM call is for: a call kind, declared once by the package that makes the call, with its output cap.

A call's purpose names it in the trajectory (``LLMCall.purpose``, written as the plain string, so trajectories of
every schema version read the same) and in error messages, bounds its answer (the output cap each sample may take,
:func:`output_cap`) and tells the scripted demo stand-in which answer to play. No table lists them all: each package
declares the kinds of call it makes (:func:`call_kind`) beside the code that makes them (the latent-state chain and
the selectors in ``agent/latent_state/purposes.py``, structured reflection, the exemplars and CAAP in theirs, the
grounder's in ``grounder/base.py``, a ping in ``llm/ping.py``), so a method from elsewhere adds its own.

Each cap is the longest answer the prompt asks for, with room to spare: at least twice the longest answer the
scripted stand-in (``--llm demo``, which plays a competent model) gave over the first six tasks of the simulated
phone's suite with every method family (in tokens, about a quarter of its characters), rounded up, and never below
what the prompt's own format can need (a long goal, a ten-step plan, twenty steps of progress). Without a cap a
small model that runs away (echoing its plan, the element list or the few-shot examples; recorded with
Qwen2.5-Coder-0.5B) generates until the request times out, and the identical request is sent again. An answer cut at
its cap is recorded with the finish reason ``length`` and each method treats it as unreadable where a cut answer could
mislead it (see ``docs/architecture.md``). A caller whose answer is longer than its purpose's usual one passes its own
``max_output_tokens`` (CoT-SC's reasoning chains and ReAct's thoughts, whose purpose is ``select`` like zero-shot's).
A cap bounds the answer: a model that thinks out of the same cap (Gemini 2.5, OpenAI's reasoning models) is sent its
thinking room on top (``thinking_tokens`` in ``llm/models.json``).

It lives at the package root because calls are made from several layers: the llm layer's ping, the grounders, the
agent's methods and the demonstrations' rationales.
"""

from __future__ import annotations

from typing import Any

from latent_agent.errors import ConfigError

#: The cap of a call whose purpose no package declared (a purpose written as a plain string elsewhere).
DEFAULT_OUTPUT_CAP = 512


class Purpose(str):
    """A kind of LLM call: the string recorded for it, with its output cap and what it is for.

    Made by :func:`call_kind`, which declares it once; it compares and hashes as its string, so a call kind read
    back from a trajectory (a plain string) finds the same entries.
    """

    _cap: int
    _summary: str

    def __new__(cls, name: str, *, cap: int, summary: str) -> Purpose:
        if cap < 1:
            raise ConfigError(f"call kind {name!r}: its output cap must be >= 1 token, got {cap}")
        kind = super().__new__(cls, name)
        kind._cap, kind._summary = cap, summary
        return kind

    def __getnewargs_ex__(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (str(self),), {"cap": self._cap, "summary": self._summary}

    @property
    def cap(self) -> int:
        """The most output tokens one sample of its answer may take."""
        return self._cap

    @property
    def summary(self) -> str:
        """What the call is for, and what bounds its answer, in words."""
        return self._summary


_KINDS: dict[str, Purpose] = {}


def call_kind(name: str, *, cap: int, summary: str) -> Purpose:
    """Declare the call kind ``name`` with its output cap (declaring the same again is harmless).

    Raises:
        ConfigError: ``name`` is declared already with another cap or summary.
    """
    known = _KINDS.get(name)
    if known is not None:
        if (known.cap, known.summary) != (cap, summary):
            raise ConfigError(f"call kind {name!r} is declared already (output cap {known.cap})")
        return known
    kind = _KINDS[name] = Purpose(name, cap=cap, summary=summary)
    return kind


def call_kinds() -> tuple[Purpose, ...]:
    """Every declared call kind, in the order they were declared."""
    return tuple(_KINDS.values())


def output_cap(purpose: str) -> int:
    """The output cap of calls made for ``purpose`` (:data:`DEFAULT_OUTPUT_CAP` for one no package declared)."""
    if isinstance(purpose, Purpose):
        return purpose.cap
    known = _KINDS.get(purpose)
    return known.cap if known is not None else DEFAULT_OUTPUT_CAP
