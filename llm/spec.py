"""``--llm`` specs and the one loader that turns a spec into a client.

Spec syntax, ``PROVIDER:NAME[@EXTRA]``:

* ``gemini:MODEL`` (``@BASE_URL`` optional) - Gemini via ``google-genai``;
  key from ``GEMINI_API_KEY`` / ``GOOGLE_API_KEY`` or ``--api-key``.
* ``openai:MODEL@BASE_URL`` (``@BASE_URL`` optional for api.openai.com) -
  any OpenAI-compatible server; key from ``OPENAI_API_KEY`` or ``--api-key``
  (keyless local servers need none).
* ``llamacpp:MODEL.gguf`` or ``llamacpp:qwen2.5-coder-0.5b`` (the packaged model) - llama.cpp's server
  started for the command through ``xllamacpp`` and stopped with it; ``--llm-ctx``, ``--llm-threads``,
  ``--llm-gpu-layers`` and ``--llm-parallel`` set it up (docs/local-models.md).
* ``replay:CASSETTE`` (``@MODEL`` when the cassette holds several) - answers
  from a recorded cassette, no network.
* ``scripted:FILE.json`` (a JSON list of reply texts) or ``scripted:echo`` -
  the scripted model, for offline demos.
* ``demo`` - the scripted demo stand-in (:mod:`latent_agent.demo.client`); the CLI
  registers it, since this layer sits below the demo and cannot import it.

``--llm-base-url`` overrides the URL of a spec. Providers live in one registry
(:data:`PROVIDERS`, extended with :func:`register_provider`); adding one is one entry,
not a branch.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from latent_agent.errors import ConfigError
from latent_agent.llm.accounting import Accountant
from latent_agent.llm.base import LLMClient
from latent_agent.llm.budget import Budget
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.llamacpp.client import LlamaCppClient
from latent_agent.llm.llamacpp.options import ServerOptions
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.packaged_model import PACKAGED_NAME, packaged_model_path
from latent_agent.llm.replay import Cassette, ReplayClient
from latent_agent.llm.retry import RetryPolicy
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.secrets import register_url
from latent_agent.llm.types import GenerationRequest
from latent_agent.outputs import CASSETTE, claim
from latent_agent.suggest import closest

#: ``--llm-structured``'s values.
STRUCTURED_CHOICES = ("off", "on")


@dataclass(frozen=True, slots=True)
class LLMSpec:
    """A parsed ``--llm`` value.

    Attributes:
        provider: Registry name (``gemini``, ``openai``, ``replay``, ``scripted``).
        name: Model name, cassette path or script, depending on the provider.
        extra: The part after ``@`` (base URL, or a replay model), or None.
        given: The value as it was typed (``demo@0.2`` for ``demo:gemini@0.2``), for messages about it; not
            part of what the spec is (two spellings of one spec are equal).
    """

    provider: str
    name: str
    extra: str | None = None
    given: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.provider}:{self.name}" + (f"@{self.extra}" if self.extra else "")

    @property
    def as_given(self) -> str:
        """The spec as the user typed it (else its full form)."""
        return self.given if self.given is not None else str(self)


@dataclass(frozen=True, slots=True)
class ClientOptions:
    """Everything besides the spec that shapes a client.

    Attributes:
        api_key: Key given on the command line (else the provider's environment variables).
        base_url: ``--llm-base-url``; overrides the spec's ``@BASE_URL``.
        retry: Retry and timeout policy.
        max_concurrency: Provider requests in flight at once.
        budget: Shared run budget.
        accountant: Call records.
        recorder: Cassette to record every call to.
        server: How to run a server the provider starts itself (``llamacpp``).
        output_ceiling: ``--llm-max-output``: the most output tokens any call may ask for.
        structured: ``--llm-structured on``: calls ask for their answers' shapes (:mod:`latent_agent.shapes`).
    """

    api_key: str | None = None
    base_url: str | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_concurrency: int = 8
    budget: Budget | None = None
    accountant: Accountant | None = None
    recorder: Cassette | None = None
    server: ServerOptions = field(default_factory=ServerOptions)
    output_ceiling: int | None = None
    structured: bool = False

    def client_kwargs(self) -> dict[str, Any]:
        return {
            "retry": self.retry,
            "max_concurrency": self.max_concurrency,
            "budget": self.budget,
            "accountant": self.accountant,
            "recorder": self.recorder,
            "output_ceiling": self.output_ceiling,
            "structured": self.structured,
        }


@dataclass(frozen=True, slots=True)
class Requirement:
    """An optional extra a provider needs installed (see :mod:`latent_agent.extras`).

    Attributes:
        extra: The extra's name (``llm``, ``local``, ``model``).
        modules: Only these of its modules (None: all of them).
    """

    extra: str
    modules: tuple[str, ...] | None = None


def _needs_nothing(spec: LLMSpec) -> tuple[Requirement, ...]:
    return ()


@dataclass(frozen=True, slots=True)
class Provider:
    """A registry entry: how to build the provider's client and what the provider is capable of.

    Commands read these flags instead of comparing provider names.

    Attributes:
        build: Makes the client.
        key_env: Environment variables holding its API key, in order of preference.
        example: A sample spec, for messages.
        form: How ``--llm`` help shows its specs.
        default_name: What a spec that is only the provider's name (``demo``) stands for; None:
            such a spec is refused.
        needs: The optional extras a spec of this provider needs, checked before a command writes anything.
        remote: It answers over the network, so a sweep asks it once before planning episodes (a model
            that answers in the process is checked by building its client).
        starts_server: The command starts the provider's server, and the server flags (``--llm-ctx``, ...)
            apply.
        plan_identity: What of a spec makes a sweep what it is, when not all of it does (the demo's
            simulated latency, ``demo@0.2``, does not); None: the whole spec.
        loads: The file a spec has the provider load and run, in words, when it is not the project's own
            (a GGUF path; the packaged model is the project's); None: it loads none. A spec read from a file
            that names one is used only when given again (:func:`user_only`).
        scripted: Its answers are scripted, not a language model's (``scripted:``, the demo): every page of
            a run made with it says so (:func:`scripted_model`).
    """

    build: Callable[[LLMSpec, ClientOptions, str | None], LLMClient]
    key_env: tuple[str, ...] = ()
    example: str = ""
    form: str = ""
    default_name: str | None = None
    needs: Callable[[LLMSpec], tuple[Requirement, ...]] = _needs_nothing
    remote: bool = False
    starts_server: bool = False
    plan_identity: Callable[[LLMSpec], str] | None = None
    loads: Callable[[LLMSpec], str | None] | None = None
    scripted: bool = False


def user_only(spec: LLMSpec, *, base_url_given: bool = False) -> str | None:
    """What ``spec``, read from a file (a resumed sweep's manifest), names that only the user's command line may
    choose, in words; None when it names nothing of the kind.

    That is the endpoint of a provider that answers over the network (an API key from the environment would
    be sent there), unless ``--llm-base-url`` replaces it, and a file the provider would load and run that is
    not the project's own. A model answering in the process, the demo's stand-in and the packaged model under
    a server the command starts itself name neither.
    """
    entry = PROVIDERS[spec.provider]
    if entry.remote and spec.extra and not base_url_given:
        return f"the endpoint {spec.extra}"
    return entry.loads(spec) if entry.loads is not None else None


def _base_url(spec: LLMSpec, options: ClientOptions) -> str | None:
    url = options.base_url or spec.extra
    if url is not None and not url.startswith(("http://", "https://")):
        raise ConfigError(f"--llm {spec}: base URL must start with http:// or https://, got {url!r}")
    return url


def _gemini(spec: LLMSpec, options: ClientOptions, key: str | None) -> LLMClient:

    if not key:
        raise ConfigError(
            f"--llm {spec}: no API key; set GEMINI_API_KEY or GOOGLE_API_KEY, or pass --api-key"
        )
    return GeminiClient(spec.name, api_key=key, base_url=_base_url(spec, options), **options.client_kwargs())


def _openai(spec: LLMSpec, options: ClientOptions, key: str | None) -> LLMClient:

    url = _base_url(spec, options)
    if not key and url is None:
        raise ConfigError(f"--llm {spec}: no API key; set OPENAI_API_KEY or pass --api-key")
    return OpenAICompatClient(spec.name, api_key=key, base_url=url, **options.client_kwargs())


def _llamacpp(spec: LLMSpec, options: ClientOptions, key: str | None) -> LLMClient:

    if options.base_url or spec.extra:
        raise ConfigError(f"--llm {spec}: the llamacpp provider starts its own server; for a running one use "
                          "--llm openai:MODEL@http://HOST:PORT/v1")
    if spec.name == PACKAGED_NAME:
        path, name = packaged_model_path(), PACKAGED_NAME
    else:
        path = Path(spec.name).expanduser()
        if not path.is_file():
            raise ConfigError(f"--llm {spec}: no such model file {str(path)!r} (a GGUF file, or "
                              f"llamacpp:{PACKAGED_NAME} for the packaged model)")
        name = path.stem
    return LlamaCppClient(path, name=name, options=options.server, **options.client_kwargs())


def _replay(spec: LLMSpec, options: ClientOptions, key: str | None) -> LLMClient:

    kwargs = options.client_kwargs()
    kwargs.pop("recorder")
    return ReplayClient(spec.name, model=spec.extra, **kwargs)


def _echo(request: GenerationRequest) -> str:
    return request.chat()[-1].text


def _scripted(spec: LLMSpec, options: ClientOptions, key: str | None) -> LLMClient:

    if spec.name == "echo":
        return ScriptedModel(responder=_echo, model="echo", **options.client_kwargs())
    return ScriptedModel.from_file(spec.name, model=spec.name, **options.client_kwargs())


#: Provider name -> how to build its client (:func:`register_provider` adds more).
#: What a client speaking each SDK needs installed (the demo stand-in is reached through one of them too).
SDK_NEEDS: dict[str, tuple[Requirement, ...]] = {
    "gemini": (Requirement("llm", ("google.genai",)),),
    "openai": (Requirement("llm", ("openai",)),),
}


def _llamacpp_needs(spec: LLMSpec) -> tuple[Requirement, ...]:

    # The packaged model's slices are an extra of their own; a GGUF path needs only llama.cpp.
    return (Requirement("local"),) + ((Requirement("model"),) if spec.name == PACKAGED_NAME else ())


PROVIDERS: dict[str, Provider] = {
    "gemini": Provider(_gemini, ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "gemini:gemini-2.5-flash", "gemini:MODEL",
                       needs=lambda spec: SDK_NEEDS["gemini"], remote=True),
    "openai": Provider(_openai, ("OPENAI_API_KEY",), "openai:gpt-4o-mini@https://api.openai.com/v1",
                       "openai:MODEL@BASE_URL", needs=lambda spec: SDK_NEEDS["openai"], remote=True),
    "llamacpp": Provider(_llamacpp, (), "llamacpp:qwen2.5-coder-0.5b",
                         f"llamacpp:MODEL.gguf or llamacpp:{PACKAGED_NAME} (the packaged model)",
                         needs=_llamacpp_needs, starts_server=True,
                         loads=lambda spec: None if spec.name == PACKAGED_NAME else f"the model file {spec.name}"),
    "replay": Provider(_replay, (), "replay:runs/cassette.jsonl", "replay:CASSETTE"),
    "scripted": Provider(_scripted, (), "scripted:echo", "scripted:FILE|echo", scripted=True),
}


def register_provider(name: str, provider: Provider) -> None:
    """Add ``provider`` to the registry under ``name`` (registering the same entry again is harmless).

    Raises:
        ConfigError: ``name`` is taken by another provider.
    """
    if PROVIDERS.get(name, provider) != provider:
        raise ConfigError(f"LLM provider {name!r} is registered already")
    PROVIDERS[name] = provider


def llm_help() -> str:
    """``--llm`` help: the form of every registered provider."""
    forms = [p.form or p.example for p in PROVIDERS.values()]
    listed = ", ".join(forms[:-1]) + (", or " if len(forms) > 1 else "") + forms[-1]
    return f"model to use: {listed}"


def parse_spec(text: str) -> LLMSpec:
    """Parse ``PROVIDER:NAME[@EXTRA]``.

    Raises:
        ConfigError: Unknown provider or missing name, with the accepted forms.
    """
    provider, sep, rest = text.partition(":")
    if not sep:
        # A bare provider name, with or without "@EXTRA" (``demo``, ``demo@0.2``).
        provider, at, extra = text.partition("@")
        entry = PROVIDERS.get(provider)
        if entry is not None and entry.default_name is not None:
            rest = entry.default_name + at + extra
    examples = ", ".join(p.example for p in PROVIDERS.values())
    if not sep and not rest and provider in PROVIDERS:
        # A provider alone ("gemini"): what is missing is the model, not the provider.
        entry = PROVIDERS[provider]
        form = entry.form or entry.example
        what = "the model name" if ":MODEL" in form else f"what follows '{provider}:'"
        raise ConfigError(f"--llm {text!r}: {what} is missing ({form}), e.g. --llm {entry.example}")
    if (not sep and not rest) or provider not in PROVIDERS:
        close = closest(provider, PROVIDERS)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise ConfigError(
            f"--llm {text!r}: unknown provider {provider!r}; {hint}the providers: {', '.join(sorted(PROVIDERS))} "
            f"(e.g. {examples})"
        )
    name, at, extra = rest.partition("@")
    if not name:
        raise ConfigError(
            f"--llm {text!r}: missing the part after '{provider}:' (e.g. {PROVIDERS[provider].example})"
        )
    if at and not extra:
        raise ConfigError(f"--llm {text!r}: nothing after '@'")
    return LLMSpec(provider, name, extra or None, given=text)


#: The provider's name leading what a run records of its model: an ``--llm`` spec (``demo``, ``demo:openai@0.2``,
#: ``gemini:gemini-2.5-flash``, as a sweep's manifest keeps it) or a client's name (``demo demo-oracle``, as a
#: trajectory's header keeps it).
_RECORDED_PROVIDER = re.compile(r"[A-Za-z0-9_.-]+")


def scripted_model(recorded: str) -> bool | None:
    """Whether the model a run recorded is a scripted stand-in rather than a language model.

    Args:
        recorded: The model as the run recorded it: an ``--llm`` spec or a client's ``provider model`` name.

    Returns:
        Its provider's :attr:`Provider.scripted`; None when no registered provider has that name (a
        provider registered by a command that is not running, or a record from elsewhere).
    """
    match = _RECORDED_PROVIDER.match(recorded.strip())
    entry = PROVIDERS.get(match.group()) if match is not None else None
    return entry.scripted if entry is not None else None


def load_client(spec: str | LLMSpec, options: ClientOptions | None = None) -> LLMClient:
    """Build the client a spec names.

    Raises:
        ConfigError: Bad spec, missing key, bad base URL or unreadable cassette.
    """
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    options = options or ClientOptions()
    # A base URL's credentials are secrets from here on, before any message (a refusal included) quotes it.
    register_url(options.base_url)
    register_url(parsed.extra)
    entry = PROVIDERS[parsed.provider]
    key = options.api_key or next((os.environ[v] for v in entry.key_env if os.environ.get(v)), None)
    return entry.build(parsed, options, key)


#: The server options by field, as the command line names them.
SERVER_FLAGS = {"ctx": "--llm-ctx", "threads": "--llm-threads", "gpu_layers": "--llm-gpu-layers",
                "parallel": "--llm-parallel"}


@dataclass(frozen=True, slots=True)
class LLMOptions:
    """The model a command runs with, as the user chose it: the ``--llm`` spec and what shapes its client.

    Attributes:
        spec: The spec as typed (``gemini:gemini-2.5-flash``, ``demo``, ...).
        api_key: A key given by the user (else the provider's environment variables).
        base_url: ``--llm-base-url``; overrides the spec's ``@BASE_URL``.
        timeout_s: Per-attempt timeout (``--llm-timeout``).
        output_ceiling: ``--llm-max-output``: the most output tokens any call may ask for (None: each call kind's
            own cap).
        structured: ``--llm-structured on``: calls ask for their answers' shapes.
        record: ``--llm-record``: the cassette every call is recorded to, or None.
        server: How to run a server the provider starts itself (``--llm-ctx``, ...); None: no server option
            was given (a provider that starts no server refuses any).
    """

    spec: str
    api_key: str | None = None
    base_url: str | None = None
    timeout_s: float = 60.0
    output_ceiling: int | None = None
    structured: bool = False
    record: Path | None = None
    server: ServerOptions | None = None

    def claim_record(self, *, force: bool = False) -> None:
        """Check ``record`` before any work: a new file, an empty one or a cassette (``force`` replaces).

        Raises:
            OutputPathError: It names a directory or a file that is not a cassette.
        """
        if self.record is not None:
            claim(self.record, CASSETTE, force=force)

    def server_options(self) -> ServerOptions:
        """The options of a server the provider starts (the defaults when none was given).

        Raises:
            ConfigError: A server option given to a provider that starts no server, or a bad spec.
        """
        if self.server is None:
            return ServerOptions()
        if not PROVIDERS[parse_spec(self.spec).provider].starts_server:
            default = ServerOptions()
            flags = [flag for name, flag in SERVER_FLAGS.items()
                     if getattr(self.server, name) != getattr(default, name)]
            raise ConfigError(f"{', '.join(flags or SERVER_FLAGS.values())}: only for --llm llamacpp:... (a server the "
                              f"command starts); got --llm {self.spec}")
        return self.server

    def open(self, *, budget: Budget | None = None, accountant: Accountant | None = None,
             retry: RetryPolicy | None = None, record: bool = True) -> LLMClient:
        """The client these options describe.

        Args:
            budget: Shared run budget.
            accountant: Call records.
            retry: Retry policy instead of the default one (the timeout still comes from :attr:`timeout_s`).
            record: Record to :attr:`record` (a preflight ping is not recorded).

        Raises:
            ConfigError: A bad spec, timeout, ceiling or server option, or a missing key.
            OutputPathError: The record path is not a cassette.
        """
        if self.timeout_s <= 0:
            raise ConfigError(f"--llm-timeout must be > 0, got {self.timeout_s}")
        if self.output_ceiling is not None and self.output_ceiling < 1:
            raise ConfigError(f"--llm-max-output must be >= 1 token, got {self.output_ceiling}")
        recording = self.record if record else None
        if recording is not None:
            claim(recording, CASSETTE)  # never appends to what is not a cassette
        options = ClientOptions(
            api_key=self.api_key,
            base_url=self.base_url,
            retry=replace(retry or RetryPolicy(), timeout_s=self.timeout_s),
            budget=budget,
            accountant=accountant,
            recorder=Cassette(recording) if recording is not None else None,
            server=self.server_options(),
            output_ceiling=self.output_ceiling,
            structured=self.structured,
        )
        return load_client(self.spec, options)
