"""``--llm demo``: the scripted demo oracle as an LLM provider, behind a local protocol stand-in.

Nothing leaves the machine: the stand-in listens on 127.0.0.1 and the key is a random local
token. The answers come from :class:`~latent_agent.demo.oracle.DemoOracle`, a scripted
stand-in that replays the sim suite's reference solutions (and plays a few MiniWoB++ tasks from
their utterances) - not a language model. It is
reached through the real SDKs (google-genai by default, ``demo:openai`` through the openai
SDK); the stand-in reads each call's purpose and inputs from the client in-process
(:mod:`latent_agent.demo.standins.client`), so the oracle answers from what the call is for and
never reads a prompt's wording, and the SDKs send only what a provider reads.

Spec: ``demo[:gemini|openai][@SECONDS]``, SECONDS being a latency the stand-in adds to every
answer (to watch a run, or to time one as if a model were thinking). The common LLM options
apply (``--llm-timeout``, ``--llm-record``, budgets, accounting) except ``--api-key`` and
``--llm-base-url``, which are refused: the demo makes its own local key and serves itself.

The LLM layer sits below the demo and cannot name it: :func:`register` adds it to the one
provider registry (:data:`latent_agent.llm.spec.PROVIDERS`); the CLI calls it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from latent_agent.benchmarks.suite import hosted_goal
from latent_agent.demo.oracle import DemoOracle
from latent_agent.demo.oracle_miniwob import FILTERED_TASKS, PAGE_TASKS, PLAYED_TASKS, page_goal, tab_link
from latent_agent.demo.standins.client import PROTOCOLS, Protocol, StandInClient
from latent_agent.errors import ConfigError
from latent_agent.invocation import command_name
from latent_agent.llm.base import LLMClient
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.spec import SDK_NEEDS, ClientOptions, LLMSpec, Provider, register_provider

#: The ``--llm`` value that selects the demo.
DEMO_SPEC = "demo"
#: The model name the demo reports.
DEMO_MODEL = "demo-oracle"
#: What the CLI prints so nobody mistakes the demo for a model.
DEMO_NOTICE = (
    "LLM: demo - a scripted stand-in (it replays the sim task's reference solution, or reads a MiniWoB++ "
    "task's steps from its utterance), not a language "
    "model; served by a local {protocol} stand-in on 127.0.0.1 and reached through {sdk}"
)


def _shorten(text: str, limit: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class DemoClient(StandInClient):
    """The demo oracle behind a local stand-in, asked through a real SDK client.

    Args:
        protocol: The stand-in's protocol and the SDK that reaches it.
        delay_s: Latency the stand-in adds to every answer.
        **client_kwargs: Passed to :class:`LLMClient` (retry, max_concurrency, budget, accountant,
            recorder); the retry policy and concurrency also shape the inner SDK client.
    """

    provider: ClassVar[str] = "demo"

    def __init__(self, *, protocol: Protocol = "gemini", delay_s: float = 0.0, **client_kwargs: Any) -> None:
        if protocol not in PROTOCOLS:
            raise ConfigError(f"--llm demo:{protocol}: the demo speaks {' or '.join(PROTOCOLS)}")
        if delay_s < 0:
            raise ConfigError(f"--llm demo@{delay_s:g}: the latency must be >= 0 seconds")
        self.oracle = DemoOracle()
        super().__init__(ScriptedModel(responder=self.oracle, model=DEMO_MODEL, keep_requests=False),
                         protocol=protocol, delay_s=delay_s, model=DEMO_MODEL, **client_kwargs)

    @property
    def notice(self) -> str:
        """What the commands print before using the demo, so nobody mistakes it for a model."""
        spoken = PROTOCOLS[self.protocol]
        return DEMO_NOTICE.format(protocol=spoken.label, sdk=spoken.sdk)

    def check_goals(self, goals: Sequence[str], *, what: str | None = None) -> None:
        """Refuse goals the demo cannot play, before any work starts.

        Args:
            goals: The goals about to be run.
            what: What the goals are, for the message (e.g. ``"suite 'paper'"``).

        Raises:
            ConfigError: A goal is none of the sim suite's nor a MiniWoB++ task the demo plays.
        """
        # A sweep plans a MiniWoB++ task under a stand-in goal (the page states the real one when it loads):
        # those of the tasks the demo plays are known.
        # The tasks whose steps depend on the page are played by CAAP's stand-in on a web page only.
        planned = {hosted_goal(task) for task in (*PLAYED_TASKS, *PAGE_TASKS, *FILTERED_TASKS)}
        unknown = [g for g in goals if g not in planned and self.oracle.find_task(g) is None and page_goal(g) is None
                   and tab_link(g) is None]
        if unknown:
            more = f" (nor are {len(unknown) - 1} more)" if len(unknown) > 1 else ""
            lead = f"--llm demo cannot play {what}: it is" if what else "--llm demo is"
            raise ConfigError(
                f"{lead} a scripted stand-in that knows only the sim suite's goals (see `{command_name()} sim tasks`) "
                f"and the MiniWoB++ tasks {', '.join(PLAYED_TASKS)} ({', '.join(PAGE_TASKS)} with CAAP; "
                f"{', '.join(FILTERED_TASKS)} with the exemplar method); "
                f"{_shorten(unknown[0])!r} is not one of them{more}"
            )


def stand_in_notice(client: LLMClient) -> str | None:
    """What the commands print before using ``client`` when it is the demo (None for a model)."""
    return client.notice if isinstance(client, DemoClient) else None


def check_playable(client: LLMClient, goals: Sequence[str], *, what: str | None = None) -> None:
    """Refuse, before any work starts, goals the demo cannot play when ``client`` is the demo.

    A language model takes any goal; the scripted demo knows only its own (:meth:`DemoClient.check_goals`).

    Raises:
        ConfigError: ``client`` is the demo and a goal is unknown to it.
    """
    if isinstance(client, DemoClient):
        client.check_goals(goals, what=what)


def _build(spec: LLMSpec, options: ClientOptions, key: str | None) -> LLMClient:
    if key:
        raise ConfigError(f"--llm {spec}: --api-key does not apply; the demo makes its own local key")
    if options.base_url:
        raise ConfigError(f"--llm {spec}: --llm-base-url does not apply; the demo serves itself on 127.0.0.1")
    delay = 0.0
    if spec.extra is not None:
        try:
            delay = float(spec.extra)
        except ValueError:
            raise ConfigError(f"--llm {spec.as_given}: the part after '@' is the stand-in's latency in seconds, "
                              f"got {spec.extra!r}") from None
    if spec.name not in PROTOCOLS:
        raise ConfigError(f"--llm {spec.as_given}: the demo speaks {' or '.join(PROTOCOLS)} (demo, demo:openai)")
    return DemoClient(protocol=spec.name, delay_s=delay, **options.client_kwargs())  # type: ignore[arg-type]


#: The demo's registry entry.
DEMO_PROVIDER = Provider(
    _build, (), "demo",
    "demo (a scripted stand-in for the sim suite and MiniWoB++'s click-button, click-checkboxes and "
    "enter-text, offline; not a language model; demo:openai reaches it through the openai SDK, demo@SECONDS "
    "adds latency)",
    default_name="gemini",
    # Reached through the SDK its name says (demo is demo:gemini).
    needs=lambda spec: SDK_NEEDS.get(spec.name, ()),
    # It answers the same with or without a simulated delay: demo@0.2 is resumed by --llm demo.
    plan_identity=lambda spec: f"demo:{spec.name}",
    scripted=True,
)


def register() -> None:
    """Register ``demo`` in the LLM provider registry (idempotent)."""
    register_provider(DEMO_SPEC, DEMO_PROVIDER)


@contextmanager
def demo_client(*, delay_s: float = 0.0, protocol: Protocol = "gemini", **client_kwargs: Any) -> Iterator[DemoClient]:
    """A :class:`DemoClient` that is closed (its stand-in stopped) when the block ends.

    Args:
        delay_s: Fixed latency the stand-in adds to every answer.
        protocol: The stand-in's protocol.
        **client_kwargs: Passed to :class:`LLMClient` (budget, accountant, retry, recorder).
    """
    client = DemoClient(protocol=protocol, delay_s=delay_s, **client_kwargs)
    try:
        yield client
    finally:
        client.close()
