"""A browser on another machine: ``--device miniwob[:TASK]@ENDPOINT`` over CDP and over a Playwright server.

The "other machine" is a Chromium (or a Playwright browser server) started by the test on 127.0.0.1 with a
profile of its own; it is given no pages: they are answered from this process's pages folder by request
interception, and every other request is still blocked. Nothing listens beyond 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.benchmarks.pool import make_pool, parse_devices
from latent_agent.device.base import Device
from latent_agent.device.miniwob.browser import CHROMIUM, SERVED_ORIGIN
from latent_agent.device.miniwob.device import MiniWobDevice, RemoteMiniWobDevice
from latent_agent.device.miniwob.endpoint import BrowserEndpoint, parse_endpoint
from latent_agent.device.spec import DeviceSpec, capabilities_of, load_device, parse_device_spec
from latent_agent.errors import ConfigError, DeviceError
from tests.cli.helpers import cli, dead_port, one_line
from tests.device.contract import DeviceContract
from tests.device.miniwob.conftest import open_device
from tests.device.miniwob.solvers import solve

#: Seconds a browser started here may take to print its endpoint on this loaded machine.
START_TIMEOUT_S = 60.0


def _started(argv: list[str], pattern: str, stream: str) -> tuple[subprocess.Popen[str], str]:
    """Start ``argv`` in a session of its own and return it with the first match of ``pattern`` in its output."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    pipe = proc.stderr if stream == "stderr" else proc.stdout
    assert pipe is not None
    deadline = time.monotonic() + START_TIMEOUT_S
    seen = []
    while time.monotonic() < deadline:
        line = pipe.readline()
        if not line and proc.poll() is not None:
            break
        seen.append(line)
        found = re.search(pattern, line)
        if found:
            return proc, found.group(0)
    _stop(proc)
    pytest.fail(f"{argv[0]} printed no endpoint: {''.join(seen)[-500:]}")


def _stop(proc: subprocess.Popen[str]) -> None:
    """End the started process and every process of its session (the browser's children)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser_here() -> None:
    """Skips the module, naming why, where no browser can be launched."""
    with open_device():
        pass


def _cdp_chromium(profile: Path, port: int = 0) -> tuple[subprocess.Popen[str], str]:
    """A Chromium with its DevTools on 127.0.0.1 (``port``, or one it picks) and its ``ws://.../devtools/browser/ID``."""
    return _started([str(CHROMIUM), "--headless", "--no-sandbox", "--no-first-run", f"--user-data-dir={profile}",
                     "--remote-debugging-address=127.0.0.1", f"--remote-debugging-port={port}", "about:blank"],
                    r"ws://127\.0\.0\.1:\d+/devtools/browser/\S+", "stderr")


@pytest.fixture(scope="module")
def cdp(browser_here: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Chromium with its DevTools on 127.0.0.1 (a port it picks); yields its ``ws://.../devtools/browser/ID``."""
    proc, ws = _cdp_chromium(tmp_path_factory.mktemp("remote-profile"))
    yield ws
    _stop(proc)


@pytest.fixture(scope="module")
def playwright_server(browser_here: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Playwright browser server (the driver's ``launch-server``) on 127.0.0.1 running this machine's Chromium."""
    config = tmp_path_factory.mktemp("pw-server") / "config.json"
    config.write_text(json.dumps({"executablePath": str(CHROMIUM), "headless": True, "host": "127.0.0.1",
                                  "port": 0}))
    proc, ws = _started([sys.executable, "-m", "playwright", "launch-server", "--browser", "chromium",
                         "--config", str(config)], r"ws://127\.0\.0\.1:\d+/\S+", "stdout")
    yield ws
    _stop(proc)


def _port(ws: str) -> int:
    found = re.search(r":(\d+)/", ws)
    assert found
    return int(found.group(1))


def _plays_served_pages(device: MiniWobDevice) -> None:
    for seed in (1000, 1001, 1002):
        assert solve(device, "click-button", seed).success
        assert solve(device, "click-checkboxes", seed).success
    page = device._page  # what the remote page loaded and tried to load
    assert page.run(lambda p: p.evaluate("() => location.href")).startswith(SERVED_ORIGIN + "miniwob/")
    assert page.blocked == []
    # A path out of the pages folder once decoded here (the browser leaves an encoded slash as it is).
    escape = SERVED_ORIGIN + "miniwob/" + "..%2f" * 20 + "etc%2fhostname"  # /etc/hostname, which exists
    for url in ("http://example.com/x", escape):
        assert page.evaluate(f"() => fetch({url!r}).then(() => 'fetched', () => 'refused')") == "refused"
    assert page.blocked == ["http://example.com/x", escape]


def test_a_chromium_reached_over_cdp_plays_pages_it_never_had(cdp: str) -> None:
    text = f"miniwob:click-button@cdp://127.0.0.1:{_port(cdp)}"
    with load_device(text) as device:
        assert isinstance(device, RemoteMiniWobDevice)
        assert device.capabilities.remote and device.capabilities == capabilities_of(parse_device_spec(text))
        _plays_served_pages(device)


def test_the_browsers_own_devtools_websocket_is_cdp_too(cdp: str) -> None:
    assert parse_endpoint(cdp).protocol == "cdp"
    with load_device(f"miniwob@{cdp}") as device:
        assert isinstance(device, RemoteMiniWobDevice)
        assert solve(device, "click-button", 7).success


def test_a_playwright_browser_server_plays_them_too(playwright_server: str) -> None:
    assert parse_endpoint(playwright_server).protocol == "playwright"
    with load_device(f"miniwob@{playwright_server}") as device:
        assert isinstance(device, RemoteMiniWobDevice)
        _plays_served_pages(device)


def test_a_sweep_runs_on_a_pool_of_pages_of_the_remote_browser(cdp: str, tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    done = cli("sweep", "--suite", "miniwob", "--split", "train", "--tasks", "click-button,click-checkboxes",
               "--seeds", "2", "--methods", "zero-shot-", "--devices", f"miniwob@cdp://127.0.0.1:{_port(cdp)}*2",
               "--llm", "demo", "--max-steps", "6", "--out", str(out), "--no-progress", timeout=300)
    assert done.returncode == 0, done.stderr
    episodes = [r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())
                if r.get("record") == "episode"]
    assert sorted((r["task_id"], r["seed"], r["raw_reward"]) for r in episodes) == [
        ("click-button", 3000, 1.0), ("click-button", 3001, 1.0),
        ("click-checkboxes", 3000, 1.0), ("click-checkboxes", 3001, 1.0)]
    assert {r["device"] for r in episodes} <= {f"miniwob@cdp://127.0.0.1:{_port(cdp)}#{i}" for i in (1, 2)}


def test_run_on_the_remote_browser_ends_with_the_pages_reward_and_refuses_a_snapshot(cdp: str, tmp_path: Path) -> None:
    device = f"miniwob:click-button@cdp://127.0.0.1:{_port(cdp)}"
    done = cli("run", "--device", device, "--seed", "3", "--llm", "demo", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    assert "(noise none)" in " ".join(done.stdout.split())  # a page has no noise, remote or not
    assert "task_ended" in done.stdout and "success" in done.stdout
    refused = cli("run", "--device", device, "--llm", "demo", "--snapshot", "clean", "--out", str(tmp_path / "snap"))
    assert refused.returncode == 2
    assert one_line(refused.stderr).startswith("latent-agent: error: --snapshot clean loads an emulator snapshot")
    assert not (tmp_path / "snap").exists()


def test_a_device_built_after_its_browser_went_away_reaches_the_browser_started_again(browser_here: None,
                                                                                     tmp_path: Path) -> None:
    port = dead_port()
    first, _ = _cdp_chromium(tmp_path / "first", port)
    try:
        old = RemoteMiniWobDevice(f"cdp://127.0.0.1:{port}")
    except BaseException:
        _stop(first)
        raise
    with old:
        assert solve(old, "click-button", 1).success
        _stop(first)  # the machine's browser goes away while the device still holds its page
        with pytest.raises(DeviceError):
            old.load_task("click-button", 2)
        second, _ = _cdp_chromium(tmp_path / "second", port)
        try:  # a sweep's slot rebuilding its device: not lent a page of the browser that went away
            with RemoteMiniWobDevice(f"cdp://127.0.0.1:{port}") as new:
                assert isinstance(new, RemoteMiniWobDevice)
                assert solve(new, "click-button", 2).success
        finally:
            _stop(second)


def test_an_endpoint_nothing_answers_is_one_device_error(browser_here: None) -> None:
    port = dead_port()
    with pytest.raises(DeviceError, match=rf"the browser at cdp://127\.0\.0\.1:{port} cannot be reached: browser: "):
        load_device(f"miniwob@cdp://127.0.0.1:{port}")


def test_the_spec_forms_parse_without_connecting() -> None:
    assert parse_device_spec("miniwob@cdp://127.0.0.1:9222") == DeviceSpec("miniwob", "", "cdp://127.0.0.1:9222")
    spec = parse_device_spec("miniwob:click-button@ws://127.0.0.1:3000/abc")
    assert spec == DeviceSpec("miniwob", "click-button", "ws://127.0.0.1:3000/abc")
    assert str(spec) == "miniwob:click-button@ws://127.0.0.1:3000/abc"
    assert parse_device_spec(str(spec)) == spec
    assert capabilities_of(spec).remote and not capabilities_of(parse_device_spec("miniwob")).remote
    pool = parse_devices("miniwob@cdp://127.0.0.1:9222*2,miniwob*2")
    assert [slot.name for slot in make_pool(pool)] == ["miniwob@cdp://127.0.0.1:9222#1",
                                                      "miniwob@cdp://127.0.0.1:9222#2", "miniwob#1", "miniwob#2"]
    assert parse_endpoint("cdp://127.0.0.1:9222") == BrowserEndpoint("cdp", "http://127.0.0.1:9222",
                                                                     "cdp://127.0.0.1:9222")
    assert parse_endpoint("http://127.0.0.1:9222").protocol == "cdp"
    with pytest.raises(ConfigError, match=r"use miniwob@cdp://127\.0\.0\.1:9222 or miniwob@cdp://127\.0\.0\.1:9222\*N"):
        parse_devices("miniwob:click-button@cdp://127.0.0.1:9222*2")
    # An adb serial or AndroidEnv path with '@' is that backend's argument: only a backend with a reach splits it.
    assert parse_device_spec("adb:a@b") == DeviceSpec("adb", "a@b")


@pytest.mark.parametrize(("text", "message"), [
    ("miniwob@", r"--device 'miniwob@' is incomplete; expected miniwob:TASK or miniwob:TASK@ENDPOINT"),
    ("miniwob@ftp://127.0.0.1:21", r"browser endpoint 'ftp://127\.0\.0\.1:21' has an unknown scheme; accepted: ws://"),
    ("miniwob@cdp://127.0.0.1", r"browser endpoint 'cdp://127\.0\.0\.1' needs a host and a port"),
    ("miniwob@ws://127.0.0.1:port/x", r"needs a host and a port"),
    ("sim@cdp://127.0.0.1:9222", r"unknown --device 'sim@cdp://127\.0\.0\.1:9222'"),
    ("miniwob:click-buton@cdp://127.0.0.1:9222", r"close matches: click-button"),
])
def test_a_bad_endpoint_is_one_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_device(text)


class TestRemoteMiniWobDevice(DeviceContract):
    """The Device contract on a page of the remote browser (its capabilities: ``remote`` besides the page's)."""

    endpoint = ""

    @pytest.fixture(autouse=True)
    def _reach(self, cdp: str) -> None:
        type(self).endpoint = f"cdp://127.0.0.1:{_port(cdp)}"

    def make_device(self) -> Device:
        device = RemoteMiniWobDevice(self.endpoint, "enter-text")
        device.reset(seed=1)
        return device

    def open_text_field(self, device: Device) -> None:
        assert isinstance(device, RemoteMiniWobDevice)
        device.load_task("enter-text", 2)

    def open_long_list(self, device: Device) -> None:
        assert isinstance(device, RemoteMiniWobDevice)
        device.load_task("email-inbox", 2)
