"""--llm specs, the loader registry, and ``latent-agent llm ping``."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from latent_agent.cli import main
from latent_agent.cli.llm_options import add_llm_options, llm_options
from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.errors import ConfigError
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.replay import ReplayClient
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.spec import (
    ClientOptions,
    LLMSpec,
    load_client,
    parse_spec,
)
from latent_agent.llm.types import GenerationRequest

from .conftest import API_KEY


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("gemini:gemini-2.5-flash", LLMSpec("gemini", "gemini-2.5-flash")),
        ("openai:qwen2.5@http://127.0.0.1:8000/v1", LLMSpec("openai", "qwen2.5", "http://127.0.0.1:8000/v1")),
        ("replay:runs/c.jsonl", LLMSpec("replay", "runs/c.jsonl")),
        ("replay:runs/c.jsonl@gpt-4o", LLMSpec("replay", "runs/c.jsonl", "gpt-4o")),
        ("scripted:echo", LLMSpec("scripted", "echo")),
    ],
)
def test_parse_spec(text: str, spec: LLMSpec) -> None:
    assert parse_spec(text) == spec
    assert str(spec) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [("gemini", r"the model name is missing \(gemini:MODEL\), e.g. --llm gemini:gemini-2.5-flash"),
     ("claude:x", "unknown provider 'claude'"), ("gemini:", "missing"),
     ("openai:m@", "nothing after")],
)
def test_bad_specs(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_spec(text)


def test_loader_builds_each_provider(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key-123456")
    g = load_client("gemini:gemini-2.5-flash", ClientOptions(base_url="http://127.0.0.1:9"))
    assert isinstance(g, GeminiClient) and g.base_url == "http://127.0.0.1:9"
    monkeypatch.setenv("GEMINI_API_KEY", "g-key-preferred")
    assert load_client("gemini:m")._api_key == "g-key-preferred"  # type: ignore[attr-defined]
    o = load_client("openai:llama3@http://127.0.0.1:11434/v1")
    assert isinstance(o, OpenAICompatClient) and o.base_url == "http://127.0.0.1:11434/v1"
    assert isinstance(load_client("scripted:echo"), ScriptedModel)
    c = tmp_path / "c.jsonl"
    ScriptedModel(["x"], recorder=__import__("latent_agent.llm.replay", fromlist=["Cassette"]).Cassette(c)
                  ).generate_sync(GenerationRequest(prompt="p"))
    assert isinstance(load_client(f"replay:{c}"), ReplayClient)


def test_loader_errors() -> None:
    with pytest.raises(ConfigError, match="GEMINI_API_KEY"):
        load_client("gemini:m")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        load_client("openai:gpt-4o")
    with pytest.raises(ConfigError, match="http:// or https://"):
        load_client("openai:m", ClientOptions(api_key="k", base_url="localhost:8000"))


def test_cli_arguments_build_a_recording_client(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_llm_options(parser)
    args = parser.parse_args(["--llm", "scripted:echo", "--llm-record", str(tmp_path / "c.jsonl"),
                              "--llm-timeout", "5"])
    client = llm_options(args).open()
    assert client.retry.timeout_s == 5 and client.recorder is not None
    client.generate_sync(GenerationRequest(prompt="hello"))
    assert (tmp_path / "c.jsonl").exists()
    with pytest.raises(ConfigError, match="llm-timeout"):
        llm_options(parser.parse_args(["--llm", "scripted:echo", "--llm-timeout", "0"])).open()


def test_ping_through_gemini_sdk(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                 scripted: ScriptedModel, gemini_server: GeminiStandIn) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", API_KEY)
    scripted.queue("pong")
    assert main(["llm", "ping", "--llm", "gemini:gemini-2.5-flash", "--llm-base-url", gemini_server.url]) == 0
    out = capsys.readouterr().out
    assert "model:    gemini-2.5-flash" in out and "latency:" in out and "reply:    pong" in out
    assert "tokens:   " in out and API_KEY not in out
    assert scripted.requests[0].chat()[-1].text == "Reply with the single word: pong"


def test_ping_through_openai_sdk_with_key_flag(capsys: pytest.CaptureFixture[str], scripted: ScriptedModel,
                                               openai_server: OpenAIStandIn) -> None:
    scripted.queue("pong")
    code = main(["llm", "ping", "--llm", f"openai:local-model@{openai_server.url}/v1", "--api-key", API_KEY])
    captured = capsys.readouterr()
    assert code == 0 and "reply:    pong" in captured.out
    assert API_KEY not in captured.out + captured.err


def test_ping_failures_are_one_line(capsys: pytest.CaptureFixture[str], gemini_server: GeminiStandIn) -> None:
    code = main(["llm", "ping", "--llm", "gemini:m", "--llm-base-url", gemini_server.url,
                 "--api-key", "wrong-key-XYZ-123"])
    err = capsys.readouterr().err
    assert code == 3 and err.startswith("latent-agent: error: gemini m: HTTP 400")  # the provider refused
    assert "API key not valid" in err and "wrong-key-XYZ-123" not in err


def test_ping_bad_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["llm", "ping", "--llm", "nope:x"]) == 2
    assert "unknown provider" in capsys.readouterr().err


@pytest.mark.parametrize("provider", ["gemini", "openai"])
def test_ping_an_unreachable_server_is_one_line(
    provider: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import functools
    import socket

    from latent_agent.llm import spec
    from latent_agent.llm.retry import RetryPolicy

    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
        monkeypatch.setattr(spec, "RetryPolicy", functools.partial(RetryPolicy, max_attempts=2, base_delay_s=0.001))
        code = main(["llm", "ping", "--llm", f"{provider}:m", "--llm-base-url", url, "--api-key", API_KEY])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1  # infrastructure, not usage
    assert err.startswith(f"latent-agent: error: {provider} m: cannot connect to {url} (")
    assert err.endswith("; gave up after 2 attempts\n") and API_KEY not in err


def test_standin_on_a_port_in_use_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["llm", "standin", "openai", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"latent-agent: error: openai stand-in cannot listen on 127.0.0.1:{port}: ")
    assert err.count("\n") == 1


# -- the demo is a provider like the others ---------------------------------------------------


def test_demo_run_recorded_with_llm_record_replays_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.agent.trajectory import StopReason, read_trajectory

    cassette = tmp_path / "demo.jsonl"
    base = ["run", "Turn on the flashlight", "--device", "sim", "--no-screenshots", "--llm-timeout", "30"]
    assert main([*base, "--llm", "demo", "--llm-record", str(cassette), "--out", str(tmp_path / "live")]) == 0
    assert main([*base, "--llm", f"replay:{cassette}", "--out", str(tmp_path / "again")]) == 0
    live, again = read_trajectory(tmp_path / "live"), read_trajectory(tmp_path / "again")
    assert live.end is not None and live.end.stop_reason is StopReason.COMPLETED
    assert [s.selected_step for s in again.steps] == [s.selected_step for s in live.steps]
    assert again.header.llm == "replay demo-oracle"


@pytest.mark.parametrize(("extra", "message"), [
    (["--api-key", "k"], "--api-key does not apply"),
    (["--llm-base-url", "http://127.0.0.1:9"], "--llm-base-url does not apply"),
    (["--llm-timeout", "0"], "--llm-timeout must be > 0"),
])
def test_demo_refuses_the_options_that_do_not_apply_in_one_line(
        extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["llm", "ping", "--llm", "demo", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_ping_demo_through_either_sdk(capsys: pytest.CaptureFixture[str]) -> None:
    for spec in ("demo", "demo:openai"):
        assert main(["llm", "ping", "--llm", spec]) == 0
        out = capsys.readouterr().out
        assert "model:    demo-oracle" in out and "reply:    pong" in out
