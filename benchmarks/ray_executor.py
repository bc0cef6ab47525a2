"""The Ray executor of a sweep (``sweep --executor ray``): each device of the pool is a Ray actor on a node that
offers it; this process, the driver, alone writes the sweep directory.

Placement. Every ``--devices`` entry becomes one :class:`DeviceWorker` actor asking for one unit of the entry's
resource (:func:`latent_agent.benchmarks.ray_cluster.device_resource`), so Ray starts it on a node that offers
that device. The actor opens the device where it lives (the simulated phone, a MiniWoB++ page in its own
Chromium, ``adb:emulator-5554`` on that node) and its own LLM client, and runs that device's episodes there,
as a worker thread of the local executor does (:func:`latent_agent.benchmarks.sweep.play`). A device the
cluster does not offer (or offers fewer of than the pool asks) is retired with a line saying so.

One writer. An actor writes its episode in a scratch folder of its node and sends back the episode's record
and its folder packed (:mod:`latent_agent.benchmarks.episode_transfer`) as the return value of the call,
through Ray's object store. The driver unpacks the folder into ``episodes/KEY`` (whole or not at all) and only
then appends the record to ``results.jsonl``; the manifest, the queue, the progress line, the pause on repeated
infrastructure failures and the summary are those of :func:`latent_agent.benchmarks.sweep.run_sweep`.

Faults. An actor that dies (its process crashed, or its node left the cluster) is retired with Ray's reason;
the episode it was running was never recorded, so it goes back to the queue and another device runs it: it is
recorded once. A node that left takes its idle actors too. An episode during which :data:`LOSSES` actor
processes died on nodes still in the cluster is recorded as errored instead, so one episode that crashes its
device cannot retire the whole pool. A driver killed mid-sweep takes its actors with
it (Ray ends the actors of a job whose driver is gone); ``--resume`` moves the folders of episodes without a
record aside and runs them again. An episode is bounded as it is by the local executor: by ``--llm-timeout``,
the devices' own deadlines and ``--max-steps``.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import ray
from ray.exceptions import RayActorError, RayError

from latent_agent.benchmarks.episode_transfer import PackedEpisode, pack_episode, unpack_episode
from latent_agent.benchmarks.episodes import errored_record
from latent_agent.benchmarks.plan import PlannedEpisode
from latent_agent.benchmarks.pool import DeviceBuilder, DeviceSlot, make_pool
from latent_agent.benchmarks.ray_cluster import device_resource, offers
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus
from latent_agent.benchmarks.sweep import (
    EPISODES_DIR,
    EpisodeContext,
    Executed,
    SweepState,
    episode_dirname,
    play,
    watch,
)
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.device.spec import DeviceSpec
from latent_agent.errors import DeviceError, InputError, SweepError

#: Seconds the driver waits for a result before it looks at the queue and the pause again.
BEAT_S = 0.2
#: Device actors whose process may die (on a node still in the cluster) during one episode before it is recorded
#: as errored rather than run again.
LOSSES = 2
#: Seconds an actor may take to be placed and open its device while no other device can run anything.
OPEN_S = 300.0
#: The namespace of the sweep's actors in the cluster.
NAMESPACE = "latent-agent-sweep"
#: The object store of a Ray the sweep starts: an episode's folder is under a megabyte and freed once recorded.
OBJECT_STORE_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class WorkerSetup:
    """What every device actor is given once (through the object store): how to run an episode and open a client.

    Attributes:
        context: What an episode is run with; its ``directory`` is replaced by the actor's scratch folder.
        client_factory: Opens the actor's LLM client (a context manager), as the local executor's threads do.
    """

    context: EpisodeContext
    client_factory: Any


@dataclass(frozen=True, slots=True)
class Played:
    """An episode an actor ran, as it sends it back.

    Attributes:
        record: Its record (its ``trajectory`` is the folder's place in the sweep directory).
        episode: Its folder, packed.
        retired: Why the device was retired after it ("" while usable).
    """

    record: EpisodeRecord
    episode: PackedEpisode
    retired: str = ""


@dataclass(frozen=True, slots=True)
class NotPlayed:
    """The device could not be reset for an episode, which did not start.

    Attributes:
        retired: Why the device was retired ("" if it was rebuilt and can go on).
    """

    retired: str = ""


class DeviceWorker:
    """One device of the pool and its LLM client, in a Ray actor on the node that offers the device.

    Args:
        slot: The device's slot (built in the actor, where the device lives).
        setup: The sweep's episode context and client factory.
    """

    def __init__(self, slot: DeviceSlot, setup: WorkerSetup) -> None:
        self.slot = slot
        self.setup = setup
        self.opened: AbstractContextManager[Any] | None = None
        self.client: Any = None

    def open(self) -> tuple[str, str, str]:
        """Open the LLM client and the device, and ask it for its screen size (the sweep's device preflight).

        Returns:
            The node's address and Ray id, and why the device cannot be used ("" when it can).
        """
        address: str = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]  # Ray's own, untyped
        node = address, ray.get_runtime_context().get_node_id()
        try:
            self.opened = self.setup.client_factory()
            self.client = self.opened.__enter__()
        except Exception as exc:  # without a client this device can run nothing; the others go on
            return *node, f"opening the LLM client failed: {type(exc).__name__}: {exc}"
        try:
            self.slot.device = self.slot.build(str(self.slot.spec), self.slot.noise)
            self.slot.device.screen_size()
        except DeviceError as exc:
            return *node, f"the device does not answer: {type(exc).__name__}: {exc}"
        return *node, ""

    def run(self, planned: PlannedEpisode, attempt: int) -> Played | NotPlayed:
        """Reset the device for ``planned`` and run it in a scratch folder; send back its record and folder."""
        scratch = Path(tempfile.mkdtemp(prefix="latent-agent-episode-"))
        try:
            context = replace(self.setup.context, directory=scratch)
            record = play(context, self.slot, self.client, planned, attempt)
            if record is None:
                return NotPlayed(self.slot.retired)
            folder = scratch / EPISODES_DIR / episode_dirname(planned, attempt)
            try:
                episode = pack_episode(folder)
            except InputError as exc:
                return Played(replace(record, status=EpisodeStatus.ERROR, success=None, error_kind="runner",
                                      error=f"the episode's folder cannot be sent: {exc}"),
                              PackedEpisode((), ()), self.slot.retired)
            return Played(record, episode, self.slot.retired)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def close(self) -> None:
        """Close the device and the client."""
        self.slot.close()
        if self.opened is not None:
            self.opened.__exit__(None, None, None)
            self.opened = None


def _why(exc: BaseException) -> str:
    """Ray's reason for a failed call, in one line (its sentence saying why, where it has one)."""
    lines = [" ".join(line.split()) for line in str(exc).splitlines() if line.strip()]
    because = [line for line in lines if "because" in line]
    text = because[0] if because else (lines[0] if lines else type(exc).__name__)
    return text if len(text) <= 300 else text[:299] + "…"


def _alive(node: str) -> bool:
    """Whether the node of this Ray id is in the cluster (an actor that died there died of itself)."""
    nodes: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]  # Ray's own, untyped
    return any(n.get("NodeID") == node and n.get("Alive") for n in nodes)


def connect(address: str | None, specs: Sequence[DeviceSpec]) -> bool:
    """Connect this process to the cluster at ``address``, or start a Ray of the sweep's own offering the pool.

    Returns:
        Whether this call connected (and so should disconnect at the end): False when the process already is.

    Raises:
        SweepError: The cluster cannot be reached.
    """
    if ray.is_initialized():
        return False
    common: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING,
                              "namespace": NAMESPACE}
    try:
        if address is None:
            ray.init(address="local", resources={name: float(n) for name, n in offers(specs).items()},
                     object_store_memory=OBJECT_STORE_BYTES, **common)
        else:
            ray.init(address=address, **common)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise SweepError(f"cannot connect to the Ray cluster at {address or 'a new local Ray'}: {_why(exc)}") from None
    return True


@dataclass
class _Driver:
    """The driver's loop: hand queued episodes to idle actors, record what comes back, retire what dies."""

    state: SweepState
    slots: list[DeviceSlot]
    setup: Any
    actors: dict[str, Any] = field(default_factory=dict)  # Ray's actor handles
    nodes: dict[str, str] = field(default_factory=dict)
    node_ids: dict[str, str] = field(default_factory=dict)
    opening: dict[Any, str] = field(default_factory=dict)
    running: dict[Any, tuple[str, tuple[PlannedEpisode, int]]] = field(default_factory=dict)
    idle: collections.deque[str] = field(default_factory=collections.deque)
    retired: dict[str, str] = field(default_factory=dict)
    losses: collections.Counter[str] = field(default_factory=collections.Counter)
    opened_at: float = 0.0
    error: BaseException | None = None

    def start(self) -> None:
        """Create one actor per device the cluster offers; retire the others with the reason."""
        available: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]  # Ray's own, untyped
        asked: collections.Counter[str] = collections.Counter()
        remote: Any = ray.remote(DeviceWorker)
        for slot in self.slots:
            resource = device_resource(slot.spec)
            asked[resource] += 1
            offered = int(available.get(resource, 0))
            if asked[resource] > offered:
                self.retired[slot.name] = (f"the Ray cluster offers {offered} {resource!r} (the pool asks more); a "
                                           f"node offers it with ray start --resources '{{\"{resource}\": N}}'")
                continue
            actor = remote.options(resources={resource: 1}, num_cpus=0, max_restarts=0,
                                   max_task_retries=0).remote(slot, self.setup)
            self.actors[slot.name] = actor
            self.opening[actor.open.remote()] = slot.name
        self.opened_at = time.monotonic()

    def run(self) -> None:
        try:
            while True:
                self._assign()
                if not self.running and not (self.opening and self._more()):
                    return
                if not self.running and not self.idle and time.monotonic() - self.opened_at > OPEN_S:
                    for name in list(self.opening.values()):
                        self._retire(name, f"not placed and opened within {OPEN_S:.0f} s")
                    self.opening.clear()
                    continue
                waiting: list[Any] = [*self.opening, *self.running]
                done, _ = ray.wait(waiting, num_returns=1, timeout=BEAT_S)
                for ref in done:
                    if ref in self.opening:
                        self._opened(ref, self.opening.pop(ref))
                    else:
                        name, item = self.running.pop(ref)
                        self._finished(ref, name, item)
        except BaseException as exc:  # handed to the caller, which raises it where the sweep runs
            self.error = exc

    def _more(self) -> bool:
        return bool(self.state.queue) and not self.state.stop.is_set()

    def _assign(self) -> None:
        while self.idle:
            item = self.state.take()
            if item is None:
                return
            name = self.idle.popleft()
            self.state.progress.started()
            self.running[self.actors[name].run.remote(*item)] = (name, item)

    def _opened(self, ref: Any, name: str) -> None:
        try:
            node, node_id, reason = ray.get(ref)
        except RayError as exc:
            self._retire(name, f"the device actor died: {_why(exc)}")
            return
        self.nodes[name], self.node_ids[name] = node, node_id
        if reason:
            self._retire(name, reason)
        else:
            self.idle.append(name)

    def _finished(self, ref: Any, name: str, item: tuple[PlannedEpisode, int]) -> None:
        try:
            outcome = ray.get(ref)
        except RayError as exc:  # the actor died, or the call failed outside the episode (which play catches)
            what = "died" if isinstance(exc, RayActorError) else "failed"
            reason = f"the device actor {what}: {_why(exc)}"
            node = self.node_ids.get(name, "")
            self._retire(name, reason)
            if isinstance(exc, RayActorError) and not _alive(node):
                self._node_left(node, reason)
                self.state.progress.abandoned()  # the node left: nothing says the episode is to blame
                self.state.give_back(item)
            else:
                self._lost(name, item, reason)
            return
        if isinstance(outcome, NotPlayed):
            self.state.progress.abandoned()
            self.state.give_back(item)
        else:
            self._record(name, item, outcome)
        if outcome.retired:
            self._retire(name, outcome.retired)
        else:
            self.idle.append(name)

    def _record(self, name: str, item: tuple[PlannedEpisode, int], played: Played) -> None:
        """Write the episode's folder, then its record (the record names the folder the driver chose)."""
        planned, attempt = item
        record = played.record
        if (record.key, record.attempt) != (planned.key, attempt):
            raise SweepError(f"the device actor {name} sent {record.key} (attempt {record.attempt}) for "
                             f"{planned.key} (attempt {attempt})")
        dirname = episode_dirname(planned, attempt)
        relative = f"{EPISODES_DIR}/{dirname}"
        try:
            unpack_episode(played.episode, self.state.directory / relative)
        except (InputError, OSError) as exc:
            record = self._errored(name, planned, attempt, InputError(f"its folder, sent by {name}, is refused: "
                                                                      f"{exc}"))
        self._append(replace(record, trajectory=relative))

    def _node_left(self, node: str, reason: str) -> None:
        """Retire the idle actors of a node that left the cluster (their next call would fail too)."""
        for name in [n for n in self.idle if self.node_ids.get(n) == node]:
            self.idle.remove(name)
            self._retire(name, reason)

    def _lost(self, name: str, item: tuple[PlannedEpisode, int], reason: str) -> None:
        """The episode's actor died: run it again elsewhere, or record it errored after :data:`LOSSES` deaths."""
        planned, attempt = item
        self.losses[planned.key] += 1
        if self.losses[planned.key] < LOSSES:
            self.state.progress.abandoned()
            self.state.give_back(item)
            return
        self._append(self._errored(name, planned, attempt, DeviceError(
            f"{LOSSES} device actors died while running it (last: {reason})")))

    def _errored(self, name: str, planned: PlannedEpisode, attempt: int, exc: BaseException) -> EpisodeRecord:
        task = self.state.suite.task(planned.task_id)
        dirname = episode_dirname(planned, attempt)
        record = errored_record(planned=planned, suite=task.benchmark or self.state.suite.name, device_name=name,
                                attempt=attempt, relative_dir=f"{EPISODES_DIR}/{dirname}", exc=exc,
                                out_dir=self.state.directory / EPISODES_DIR / dirname)
        return replace(record, noise=self.state.plan.noise, observation=planned.observation)

    def _append(self, record: EpisodeRecord) -> None:
        self.state.log.append(record)
        self.state.note(record)
        self.state.progress.finished(record.status is EpisodeStatus.ERROR or record.success is False)

    def _retire(self, name: str, reason: str) -> None:
        where = self.nodes.get(name)
        self.retired[name] = f"{reason} (on node {where})" if where else reason
        actor = self.actors.pop(name, None)
        if actor is not None:
            with contextlib.suppress(RayError):
                ray.kill(actor, no_restart=True)

    def stop(self) -> None:
        """Close the devices and clients of the actors that opened them, then end every actor (one still
        being placed or opening is ended as it is)."""
        opening = set(self.opening.values())
        closing = [actor.close.remote() for name, actor in self.actors.items() if name not in opening]
        with contextlib.suppress(RayError):
            ray.wait(closing, num_returns=len(closing), timeout=30)
        for actor in self.actors.values():
            with contextlib.suppress(RayError):
                ray.kill(actor, no_restart=True)


def run_on_ray(state: SweepState, devices: Sequence[DeviceSpec], build_device: DeviceBuilder, *,
               address: str | None) -> Executed:
    """Run the sweep's queued episodes on a Ray cluster's device actors (the :data:`SweepExecutor` of Ray).

    Args:
        state: The sweep's queue, log and progress.
        devices: The pool.
        build_device: Builds a device from its spec (in the actor, on its node).
        address: The cluster's ``HOST:PORT`` or ``auto``; None: a Ray of the sweep's own on this machine.

    Raises:
        SweepError: The cluster cannot be reached, or an actor sent another episode than it was given.
    """
    slots = make_pool(devices, state.options.reset, build_device, noise=NoiseConfig.parse(state.plan.noise))
    connected = connect(address, devices)
    driver = _Driver(state, slots, ray.put(WorkerSetup(state.context, state.client_factory)))
    try:
        driver.start()
        thread = threading.Thread(target=driver.run, name="sweep-ray-driver", daemon=True)
        thread.start()
        try:
            watch([thread], state.progress, enabled=state.options.progress)
        except BaseException:  # Ctrl-C: the loop hands out no more episodes while the actors are ended
            state.stop.set()
            raise
        if driver.error is not None:
            raise driver.error
        retired = tuple(f"{slot.name}: {driver.retired[slot.name]}" for slot in slots if slot.name in driver.retired)
        return Executed(retired, len(driver.retired) == len(slots))
    finally:
        driver.stop()
        if connected:
            ray.shutdown()
