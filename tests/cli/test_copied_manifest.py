"""A copied sweep's manifest chooses no endpoint, device address or key-sending embedder (issue 29 item 1).

``sweep --out DIR --resume`` takes what the manifest records when it is not given again. A sweep folder
someone sent can record anything: an LLM endpoint of theirs (the key in the environment would be sent
there), a remote browser or a phone on the network, an AndroidEnv config naming programs to start, an
embedder that sends texts with the user's key. Each is refused in one line naming the manifest's field and
the option that confirms it, before anything is built or sent; given again, it is the user's choice.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.agent.resources import MethodResources
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.benchmarks.plan import MANIFEST_FILE, SweepPlan, write_manifest
from latent_agent.cli import main
from latent_agent.device.spec import parse_device_spec
from latent_agent.device.spec import user_only as device_user_only
from latent_agent.errors import ConfigError
from latent_agent.llm.embed.base import EmbedderInfo
from latent_agent.llm.embed.registry import EmbedderOptions, load_embedder
from latent_agent.llm.spec import parse_spec
from latent_agent.llm.spec import user_only as llm_user_only
from tests.listener import Listener, listening

KEY = "sk-test-copied-manifest-0123456789"
TASKS = [("settings_roaming_off", "Turn off data roaming")]


def _planned(out: Path, llm: str, devices: str = "sim", settings: EpisodeSettings | None = None) -> None:
    """A sweep planned in ``out`` with nothing run yet, its manifest recording ``llm`` and ``devices``."""
    out.mkdir()
    (out / "episodes").mkdir()
    write_manifest(out, SweepPlan.build("sim", TASKS, ["zero-shot+"], 1, llm, settings, devices=devices))


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], *, listener: Listener | None = None) -> str:
    status = main(argv)
    if listener is not None:
        assert listener.seen() == []  # first: what went out is the failure to see (the key, on old code)
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_a_manifests_llm_endpoint_gets_nothing_until_the_command_line_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with listening() as server:
        spec = f"openai:gpt-4o@{server.url}/v1"
        out = tmp_path / "sweep"
        _planned(out, spec)
        err = _refused(capsys, ["sweep", "--out", str(out), "--resume", "--no-progress"], listener=server)
        assert f"{out / MANIFEST_FILE}: field llm names the endpoint {server.url}/v1" in err
        assert f"pass --llm {spec} to confirm it" in err
        # Given again, it is the user's: the dry run plans it, and sends nothing either.
        assert main(["sweep", "--out", str(out), "--resume", "--llm", spec, "--dry-run"]) == 0
        capsys.readouterr()
        # --llm-base-url replaces the endpoint the manifest names: that one is the user's too.
        assert main(["sweep", "--out", str(out), "--resume", "--llm-base-url", f"{server.url}/v1", "--dry-run"]) == 0
    assert server.seen() == []


def test_a_manifests_remote_browser_is_not_reached(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with listening() as browser:
        devices = f"miniwob@ws://127.0.0.1:{browser.port}/playwright"
        out = tmp_path / "sweep"
        _planned(out, "scripted:echo", devices)
        err = _refused(capsys, ["sweep", "--out", str(out), "--resume", "--no-progress"], listener=browser)
        assert f"field devices names the endpoint ws://127.0.0.1:{browser.port}/playwright" in err
        assert f"pass --devices {devices} to confirm it" in err
    assert browser.seen() == []


@pytest.mark.parametrize(("devices", "named"), [
    ("adb:10.0.0.5:5555", "the network address 10.0.0.5:5555"),
    ("sim,u2:192.168.1.9:7912", "the network address 192.168.1.9:7912"),
    ("androidenv:/tmp/copied/config.json", "the AndroidEnv config /tmp/copied/config.json"),
])
def test_a_manifests_device_address_or_config_needs_the_command_line(tmp_path: Path, devices: str, named: str,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    _planned(out, "scripted:echo", devices)
    err = _refused(capsys, ["sweep", "--out", str(out), "--resume", "--no-progress"])
    assert f"field devices names {named}" in err and "--devices" in err


def test_a_manifests_key_sending_embedder_needs_the_command_line(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    _planned(out, "scripted:echo", settings=EpisodeSettings(resources=MethodResources(embedder="gemini")))
    err = _refused(capsys, ["sweep", "--out", str(out), "--resume", "--no-progress"])
    assert "field resources.embedder names the embedder gemini:gemini-embedding-001" in err
    assert "pass --embedder gemini to confirm it" in err


def test_what_the_project_runs_itself_is_taken_from_the_manifest(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # The demo's stand-in, a model answering in the process, the simulated phone, a local browser: nothing
    # that leaves the machine or runs a program the folder chose.
    out = tmp_path / "sweep"
    _planned(out, "demo@0.1", "sim*2")
    assert main(["sweep", "--out", str(out), "--resume", "--dry-run"]) == 0, capsys.readouterr().err
    for spec in ("demo", "demo:openai", "scripted:echo", "replay:cassette.jsonl", "llamacpp:qwen2.5-coder-0.5b",
                 "gemini:gemini-2.5-flash", "openai:gpt-4o-mini"):
        assert llm_user_only(parse_spec(spec)) is None, spec
    assert llm_user_only(parse_spec("llamacpp:/tmp/copied/model.gguf")) == "the model file /tmp/copied/model.gguf"
    assert llm_user_only(parse_spec("gemini:g@http://h:1"), base_url_given=True) is None
    for device in ("sim", "miniwob", "miniwob:click-test", "adb:emulator-5554", "u2:R58M12345"):
        assert device_user_only(parse_device_spec(device)) is None, device


def test_a_memorys_own_embedder_that_sends_the_key_needs_the_command_line() -> None:
    recorded = EmbedderInfo("gemini", "gemini-embedding-001", 768)
    with pytest.raises(ConfigError, match=r"the memory names the embedder gemini:gemini-embedding-001, which sends "
                                          r"texts with your API key .*pass --embedder gemini:gemini-embedding-001"):
        load_embedder(recorded)
    # Named on the command line (its text, or its endpoint or key given), it is built.
    load_embedder("gemini:gemini-embedding-001", EmbedderOptions(api_key=KEY)).close()
    load_embedder(recorded, EmbedderOptions(api_key=KEY)).close()
    assert load_embedder(EmbedderInfo("hash", "256", 256)).info.name == "hash"  # nothing leaves the machine
