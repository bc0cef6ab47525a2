"""The provider registry carries what commands ask of a provider: its extras, whether it is remote, whether it
starts a server. A provider registered from outside gets the same treatment as a built-in one."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from latent_agent.benchmarks.needs import require_for_llm
from latent_agent.cli.llm_options import add_llm_options, llm_options
from latent_agent.errors import ConfigError, MissingExtraError
from latent_agent.llm.packaged_model import PACKAGED_NAME
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.spec import (
    PROVIDERS,
    Provider,
    Requirement,
    parse_spec,
    register_provider,
)
from tests.name_comparisons import attribute_or_name, name_comparisons, package_comparisons


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_llm_options(parser)
    return parser.parse_args(list(argv))


def test_each_built_in_provider_names_its_extras_and_capabilities() -> None:
    _providers()

    def needs(spec: str) -> list[tuple[str, tuple[str, ...] | None]]:
        parsed = parse_spec(spec)
        return [(r.extra, r.modules) for r in PROVIDERS[parsed.provider].needs(parsed)]

    assert needs("gemini:gemini-2.5-flash") == [("llm", ("google.genai",))]
    assert needs("openai:m@http://127.0.0.1:1/v1") == [("llm", ("openai",))]
    assert needs("demo") == [("llm", ("google.genai",))]  # demo is demo:gemini
    assert needs("demo:openai") == [("llm", ("openai",))]
    assert needs(f"llamacpp:{PACKAGED_NAME}") == [("local", None), ("model", None)]
    assert needs("llamacpp:/models/x.gguf") == [("local", None)]
    assert needs("scripted:echo") == []
    assert {name for name, p in PROVIDERS.items() if p.remote} == {"gemini", "openai"}
    assert {name for name, p in PROVIDERS.items() if p.starts_server} == {"llamacpp"}


@pytest.fixture
def toy() -> Iterator[str]:
    """A provider registered from outside that starts a server and needs an extra that is not installed."""
    name = "toyserver"
    register_provider(name, Provider(lambda spec, options, key: ScriptedModel(["x"], **options.client_kwargs()),
                                     example=f"{name}:m", form=f"{name}:MODEL",
                                     needs=lambda spec: (Requirement("local", ("no_such_module_here",)),),
                                     starts_server=True))
    yield name
    del PROVIDERS[name]


def test_a_registered_provider_is_judged_by_its_flags_not_its_name(toy: str) -> None:
    # The server flags apply to any provider that starts a server, and to no other.
    assert llm_options(_args("--llm", f"{toy}:m", "--llm-ctx", "2048")).server_options().ctx == 2048
    with pytest.raises(ConfigError, match="--llm-ctx: only for"):
        llm_options(_args("--llm", "scripted:echo", "--llm-ctx", "2048")).server_options()
    # Its extras are checked before anything is written, in the one line every missing extra gets.
    with pytest.raises(MissingExtraError, match=rf"--llm {toy}:m needs the local extra \(no_such_module_here"):
        require_for_llm(f"{toy}:m")


def _providers() -> dict[str, Provider]:
    """Every provider, the demo among them (registered as a command that takes --llm registers it)."""
    from latent_agent.demo.client import register

    register()
    return PROVIDERS


def test_no_module_compares_a_providers_name() -> None:
    found = package_comparisons(attribute_or_name("provider"), _providers())
    assert not found, "decide by the Provider entry's flags instead:\n" + "\n".join(found)


def test_the_check_finds_a_comparison_of_a_providers_name() -> None:
    source = 'def f(spec, provider):\n    return spec.provider in ("gemini", "x") or provider == "demo"\n'
    assert name_comparisons(source, "p.py", attribute_or_name("provider"), _providers()) == [
        "p.py:2: compares with 'gemini'", "p.py:2: compares with 'demo'"]
