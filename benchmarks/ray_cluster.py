"""Where a sweep's Ray cluster is, what its nodes offer, and the environment Ray starts in (``sweep --executor ray``).

Nothing here imports Ray (the ``ray`` extra): the command line checks and plans a Ray sweep with this module,
and :class:`RayExecutor` imports :mod:`latent_agent.benchmarks.ray_executor` only when the sweep runs, after
Ray's environment is set, since Ray reads it when it is imported.

A node offers devices as Ray resources, one unit per device, named by the ``--devices`` entry that asks for
them (:func:`device_resource`): ``ray start --resources '{"sim": 8, "miniwob": 4}'`` offers eight simulated
phones and four MiniWoB++ pages, ``'{"adb:emulator-5554": 1}'`` the emulator of that serial on that node.
Without ``--ray-address`` the sweep starts a Ray of its own on this machine that offers exactly its pool.

Ray is kept to itself: its usage statistics are off, its dashboard is not started, and a Ray on this machine
(no address, or a loopback one) listens on 127.0.0.1 only. A Ray the sweep starts authenticates its processes
with a token made for it, which never leaves the process environment (Ray would otherwise write one to
``~/.ray``).
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from latent_agent.device.spec import DeviceSpec
from latent_agent.errors import ConfigError, SweepError

if TYPE_CHECKING:
    from latent_agent.benchmarks.pool import DeviceBuilder
    from latent_agent.benchmarks.sweep import Executed, SweepState

#: The executors of ``sweep --executor`` (the worker threads of this process, or a Ray cluster's device actors).
EXECUTORS = ("local", "ray")
#: ``--ray-address`` for the cluster that ``ray start`` started on this machine.
AUTO = "auto"
#: Seconds to wait for a cluster's address to accept a connection before saying that none answers.
CONNECT_S = 5.0


def parse_ray_address(text: str | None) -> str | None:
    """``--ray-address``: ``auto``, ``HOST:PORT``, or None (a Ray of the sweep's own on this machine).

    Raises:
        ConfigError: Not ``auto`` nor ``HOST:PORT`` with a port number.
    """
    if text is None or text == AUTO:
        return text
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--ray-address {text!r}: expected auto or HOST:PORT (the head node's GCS address, "
                          "e.g. 10.0.0.5:6379)")
    return f"{host.strip('[]')}:{port}"


def on_loopback(address: str | None) -> bool:
    """Whether the Ray of ``address`` runs on this machine's loopback (no address: the sweep starts it there)."""
    if address is None:
        return True
    if address == AUTO:
        return False
    host = address.rpartition(":")[0]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def ray_environment(address: str | None) -> None:
    """Set what Ray reads when it is imported and started, in this process (and so in the Ray it starts).

    Ray's usage statistics are turned off. A Ray on loopback stays there: Ray otherwise replaces a loopback
    address by the machine's outward address, and would listen there; with clusters switched off for the
    process (Ray's own switch for a Ray that is one machine), every Ray process binds 127.0.0.1. A Ray the
    sweep starts gets a token of its own unless the environment chooses one.
    """
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    if on_loopback(address):
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    if address is None and "RAY_AUTH_MODE" not in os.environ and "RAY_AUTH_TOKEN" not in os.environ:
        os.environ["RAY_AUTH_MODE"] = "token"
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)


def check_reachable(address: str | None) -> None:
    """Refuse, in one line, an address at which nothing accepts a connection (Ray would retry for minutes).

    Raises:
        SweepError: Nothing answers at ``HOST:PORT``.
    """
    if address is None or address == AUTO:
        return
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_S).close()
    except OSError as exc:
        raise SweepError(f"--ray-address {address}: no Ray cluster answers there ({exc.strerror or exc}); start "
                         "its head node with `ray start --head`, or leave the option out for a Ray on this "
                         "machine") from None


def device_resource(spec: DeviceSpec) -> str:
    """The Ray resource a node offers the device ``spec`` names under: the ``--devices`` entry itself.

    ``sim`` and ``miniwob`` are any number of interchangeable devices (a node offering ``{"sim": 8}`` hosts
    eight); ``adb:emulator-5554`` is the one emulator of that serial, on the node that offers it.
    """
    return str(spec)


def offers(specs: Sequence[DeviceSpec]) -> dict[str, int]:
    """The resources a Ray of the sweep's own offers: one unit per device of the pool."""
    counts: dict[str, int] = {}
    for spec in specs:
        counts[device_resource(spec)] = counts.get(device_resource(spec), 0) + 1
    return counts


@dataclass(frozen=True, slots=True)
class RayExecutor:
    """The Ray executor (:data:`latent_agent.benchmarks.sweep.SweepExecutor`) of one cluster.

    Attributes:
        address: ``HOST:PORT`` or ``auto`` of a running cluster; None: a Ray of the sweep's own on this machine.
    """

    address: str | None = None

    def __call__(self, state: SweepState, devices: Sequence[DeviceSpec], build_device: DeviceBuilder) -> Executed:
        ray_environment(self.address)
        check_reachable(self.address)
        # The ray extra, imported once its environment is set.
        from latent_agent.benchmarks.ray_executor import run_on_ray

        return run_on_ray(state, devices, build_device, address=self.address)
