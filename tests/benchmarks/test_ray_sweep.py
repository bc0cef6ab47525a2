"""``sweep --executor ray`` on a Ray cluster of simulated nodes on this machine (``ray.cluster_utils.Cluster``,
every process on 127.0.0.1): the head and one node offer simulated phones, another node MiniWoB++ pages.

Each sweep is checked against the local executor's or against its plan: the same keys and successes; faults
lose and repeat nothing (an actor that crashes, the driver SIGKILLed and resumed, a node removed mid-sweep);
the options that cannot work with Ray are refused in one line, and so is ``--executor ray`` without the extra.
The tests that start Ray carry the ``ray`` marker and share one cluster, so together they take about a minute.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.plan import read_manifest
from latent_agent.benchmarks.ray_cluster import on_loopback, parse_ray_address, ray_environment
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog
from latent_agent.cli.main import main
from latent_agent.errors import ConfigError
from tests.benchmarks.ray_runners import CRASH_DIR, CRASHING_TASK
from tests.cli.helpers import ROOT, cli, dead_port, one_line
from tests.cli.test_first_use import BIN, hide  # noqa: F401  # hide: the fixture hiding an extra's modules

#: A slice of the sim suite on the demo stand-in: 10 episodes.
SIM = ("--suite", "sim", "--tasks", "clock_*", "--methods", "zero-shot-", "--llm", "demo", "--devices", "sim*3")
#: The same episodes with a runner taking about a second each, long enough for a fault to land while some run.
SLOW = ("--suite", "sim", "--tasks", "clock_*", "--methods", "zero-shot-", "--llm", "scripted:echo",
        "--devices", "sim*3", "--runner", "tests.benchmarks.ray_runners:slow", "--no-screenshots")


@dataclass
class Nodes:
    """The cluster and its nodes: the head offers one simulated phone, ``phones`` two, ``pages`` one page."""

    cluster: Any
    phones: Any
    pages: Any

    @property
    def address(self) -> str:
        return str(self.cluster.address)


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Nodes]:
    if importlib.util.find_spec("ray") is None:  # not imported: Ray reads its environment when it is
        pytest.skip("the ray extra is not installed")
    saved = dict(os.environ)
    ray_environment(None)  # as a sweep's own Ray: on loopback, no usage statistics, a token of its own
    os.environ[CRASH_DIR] = str(tmp_path_factory.mktemp("crashes"))  # inherited by the nodes' workers
    from ray.cluster_utils import Cluster  # the extra, once its environment is set

    cluster: Any = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": {"sim": 1},
                                                            "include_dashboard": False})
    try:
        phones = cluster.add_node(num_cpus=1, resources={"sim": 2})
        pages = cluster.add_node(num_cpus=1, resources={"miniwob": 1})
        yield Nodes(cluster, phones, pages)
    finally:
        cluster.shutdown()
        os.environ.clear()
        os.environ.update(saved)


def _sweep(out: Path, *argv: str) -> int:
    return main(["sweep", *argv, "--out", str(out), "--no-progress"])


def _outcomes(out: Path) -> dict[str, tuple[EpisodeStatus, bool | None, int]]:
    records = ResultsLog(out).load()
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys)), "an episode was recorded twice"
    return {r.key: (r.status, r.success, r.steps) for r in records}


def _files(out: Path) -> set[str]:
    return {p.relative_to(out / "episodes").as_posix() for p in (out / "episodes").rglob("*") if p.is_file()}


def _complete(out: Path) -> None:
    """Exactly the planned episodes are recorded, each with its whole folder, and no folder without a record."""
    planned = {e.key for e in read_manifest(out).episodes}
    records = ResultsLog(out).load()
    assert sorted(r.key for r in records) == sorted(planned)
    for record in records:
        assert record.status is EpisodeStatus.FINISHED and record.success is True, record.error
        trajectory = read_trajectory(out / record.trajectory)
        assert trajectory.end is not None and trajectory.header.episode_id == record.key
    assert {p.name for p in (out / "episodes").iterdir()} == {Path(r.trajectory).name for r in records}


@pytest.mark.ray
def test_a_sim_sweep_on_two_nodes_matches_the_local_executor(nodes: Nodes, tmp_path: Path) -> None:
    assert _sweep(tmp_path / "local", *SIM) == 0
    assert _sweep(tmp_path / "ray", *SIM, "--executor", "ray", "--ray-address", nodes.address) == 0
    local, remote = _outcomes(tmp_path / "local"), _outcomes(tmp_path / "ray")
    assert remote == local and len(local) == 10
    assert sum(1 for _, success, _ in local.values() if success) >= 9
    # Every file came back, screenshots included, byte for byte what the local sweep wrote for the same step.
    assert _files(tmp_path / "ray") == _files(tmp_path / "local")
    shot = next(iter(sorted((tmp_path / "local" / "episodes").rglob("step_000.png"))))
    assert (tmp_path / "ray" / shot.relative_to(tmp_path / "local")).read_bytes() == shot.read_bytes()
    assert {r.device for r in ResultsLog(tmp_path / "ray").load()} <= {"sim#1", "sim#2", "sim#3"}


@pytest.mark.ray
def test_a_miniwob_sweep_on_the_node_with_pages_matches_the_local_executor(nodes: Nodes, tmp_path: Path) -> None:
    from tests.device.miniwob.conftest import open_device

    with open_device():  # skips, naming why, where no browser can be launched
        pass
    argv = ("--suite", "miniwob", "--split", "train", "--tasks", "click-button,enter-text", "--seeds", "2",
            "--methods", "zero-shot-", "--devices", "miniwob", "--llm", "demo", "--max-steps", "6")
    assert _sweep(tmp_path / "local", *argv) == 0
    assert _sweep(tmp_path / "ray", *argv, "--executor", "ray", "--ray-address", nodes.address) == 0
    local = {r.key: (r.success, r.raw_reward, r.goal) for r in ResultsLog(tmp_path / "local").load()}
    remote = {r.key: (r.success, r.raw_reward, r.goal) for r in ResultsLog(tmp_path / "ray").load()}
    assert remote == local and len(local) == 4 and all(success for success, _, _ in local.values())


@pytest.mark.ray
def test_an_actor_that_crashes_retires_its_device_and_its_episode_runs_elsewhere(
        nodes: Nodes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = _sweep(out, "--suite", "sim", "--tasks", "clock_alarm_*", "--methods", "zero-shot-", "--llm",
                  "scripted:echo", "--devices", "sim*3", "--runner", "tests.benchmarks.ray_runners:crash_once",
                  "--no-screenshots", "--executor", "ray", "--ray-address", nodes.address)
    err = capsys.readouterr().err
    assert code == 0, err
    _complete(out)
    retired = _retired(err)
    assert len(retired) == 1 and "the device actor died" in next(iter(retired.values())), err
    crashed = next(r for r in ResultsLog(out).load() if r.task_id == CRASHING_TASK)
    assert crashed.attempt == 1 and crashed.device not in retired  # recorded once, by another device


@pytest.mark.ray
def test_an_episode_that_crashes_every_device_is_recorded_errored_after_two(
        nodes: Nodes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = _sweep(out, "--suite", "sim", "--tasks", "clock_alarm_*", "--methods", "zero-shot-", "--llm",
                  "scripted:echo", "--devices", "sim*3", "--runner", "tests.benchmarks.ray_runners:crash_always",
                  "--no-screenshots", "--executor", "ray", "--ray-address", nodes.address)
    err = capsys.readouterr().err
    assert code == 3, err  # an episode is recorded as errored; the pool was not used up by it
    outcomes = _outcomes(out)
    assert sorted(outcomes) == sorted(e.key for e in read_manifest(out).episodes)
    crashed = next(r for r in ResultsLog(out).load() if r.task_id == CRASHING_TASK)
    assert crashed.status is EpisodeStatus.ERROR and crashed.error_kind == "device"
    assert "2 device actors died while running it" in crashed.error
    assert all(success for key, (_, success, _) in outcomes.items() if CRASHING_TASK not in key)
    assert len(_retired(err)) == 2


@pytest.mark.ray
def test_the_driver_killed_mid_sweep_resumes_losing_and_repeating_nothing(nodes: Nodes, tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    argv = ["sweep", *SLOW, "--executor", "ray", "--ray-address", nodes.address, "--out", str(out),
            "--no-progress", "--resume"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "latent_agent.cli", *argv], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _recorded(out) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    killed_with = len(_outcomes(out))
    assert 3 <= killed_with < len(read_manifest(out).episodes), "the kill missed the sweep; make it longer"

    assert main(argv) == 0  # the same command: --resume continues it
    _complete(out)
    planned = {e.key for e in read_manifest(out).episodes}
    attempts = out / "attempts"  # what the killed driver had begun is set aside, never deleted
    for aside in attempts.iterdir() if attempts.exists() else ():
        assert aside.name.startswith("results-torn-") or any(key in aside.name for key in planned), aside.name


def _retired(err: str) -> dict[str, str]:
    """The devices the sweep retired (``device retired: NAME: why`` on stderr), with why."""
    lines = [line.removeprefix("device retired: ") for line in err.splitlines() if line.startswith("device retired:")]
    return dict(line.split(": ", 1) for line in lines)  # type: ignore[misc]


def _recorded(out: Path) -> int:
    try:
        return (out / "results.jsonl").read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


@pytest.mark.ray
def test_a_node_removed_mid_sweep_loses_and_repeats_nothing(nodes: Nodes, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"

    def remove_the_phones_node() -> None:  # once episodes run on it: two of the three phones are there
        deadline = time.monotonic() + 120
        while _recorded(out) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        nodes.cluster.remove_node(nodes.phones)

    remover = threading.Thread(target=remove_the_phones_node, daemon=True)
    remover.start()
    code = _sweep(out, *SLOW, "--executor", "ray", "--ray-address", nodes.address)
    remover.join(timeout=60)
    err = capsys.readouterr().err
    assert code == 0, err
    _complete(out)
    retired = _retired(err)
    assert len(retired) == 2 and all("its node has died" in why for why in retired.values()), err
    last = max(ResultsLog(out).load(), key=lambda r: r.finished_at)
    assert last.device not in retired  # the head's phone ran the rest, the lost episodes among them


def test_the_address_is_auto_or_host_and_port() -> None:
    assert parse_ray_address(None) is None and parse_ray_address("auto") == "auto"
    assert parse_ray_address("10.0.0.5:6379") == "10.0.0.5:6379" and parse_ray_address("[::1]:6379") == "::1:6379"
    for bad in ("10.0.0.5", "host:port", ":6379", "h:70000"):
        with pytest.raises(ConfigError, match="expected auto or HOST:PORT"):
            parse_ray_address(bad)
    assert on_loopback(None) and on_loopback("127.0.0.1:6379") and on_loopback("localhost:1")
    assert not on_loopback("10.0.0.5:6379") and not on_loopback("auto") and not on_loopback("head.lan:6379")


@pytest.mark.parametrize(("extra", "line"), [
    (("--ray-address", "auto"), "--ray-address names the cluster of --executor ray; add --executor ray"),
    (("--executor", "ray", "--budget", "calls=10"), "--budget is kept by this process, and with --executor ray"),
    (("--executor", "ray", "--ray-address", "nowhere"), "--ray-address 'nowhere': expected auto or HOST:PORT"),
])
def test_what_ray_cannot_do_as_asked_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 extra: tuple[str, ...], line: str) -> None:
    assert _sweep(tmp_path / "sweep", *SIM, *extra) == 2
    assert line in one_line(capsys.readouterr().err)
    assert not (tmp_path / "sweep").exists()


def test_an_address_where_no_cluster_answers_is_one_line_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if importlib.util.find_spec("ray") is None:
        pytest.skip("the ray extra is not installed")
    address = f"127.0.0.1:{dead_port()}"
    assert _sweep(tmp_path / "sweep", *SIM, "--executor", "ray", "--ray-address", address) == 3
    assert f"--ray-address {address}: no Ray cluster answers there" in one_line(capsys.readouterr().err)
    assert not (tmp_path / "sweep").exists()


def test_without_the_extra_executor_ray_says_how_to_install_it(tmp_path: Path, hide: Any) -> None:  # noqa: F811
    hide("ray")
    out = tmp_path / "sweep"
    done = cli("sweep", *SIM, "--executor", "ray", "--out", str(out))
    assert done.returncode == 2, done.stderr
    assert one_line(done.stderr) == ("latent-agent: error: --executor ray needs the ray extra (ray not installed); "
                                     f"install it with: {BIN}/pip install -e '.[ray]'"), done.stderr
    assert not out.exists()
