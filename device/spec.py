"""The ``--device`` spec: one loader for every backend.

Accepted forms::

    sim                 the simulated phone, seed 0
    sim:SEED            the simulated phone with an integer seed
    adb:SERIAL          a device or emulator through adb (adbutils)
    u2:SERIAL           a device through uiautomator2 (needs its on-device server)
    androidenv:CONFIG   an emulator through AndroidEnv (CONFIG: a JSON file, see docs/devices.md)
    miniwob:TASK        a MiniWoB++ task page in headless Chromium (docs/miniwob.md)
    miniwob             the same, each episode naming its task (sweeps: --devices miniwob*N)
    miniwob[:TASK]@ENDPOINT   the same in a browser on another machine (ws://HOST:PORT/PATH, cdp://HOST:PORT)

A backend that can run its devices on another machine (:class:`Reach`) takes ``@ENDPOINT`` after its
argument; its devices there have the ``remote`` capability.

Backends register themselves in :data:`BACKENDS` (from outside this module: :func:`register_backend`) with their
capabilities and how they meet ``--noise``; nothing here or in its callers branches on names.

Noise (``--noise``, :mod:`latent_agent.device.sim.noise`) belongs to the simulated phone:
``sim`` devices are built with it; a phone served by ``sim serve --noise``
reports its knobs in a system property, so an ``adb:`` spec that reaches one
is checked against the ``--noise`` asked for; any other device refuses noise
(a real phone's noise cannot be switched on).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from latent_agent.device.adb import AdbDevice
from latent_agent.device.adb_server.served_phone import NOISE_PROP
from latent_agent.device.androidenv import AndroidEnvDevice
from latent_agent.device.base import Device, DeviceCapabilities
from latent_agent.device.miniwob.device import MiniWobDevice, RemoteMiniWobDevice
from latent_agent.device.miniwob.endpoint import parse_endpoint
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.device.u2 import U2Device
from latent_agent.errors import ConfigError, DeviceError
from latent_agent.invocation import command_name
from latent_agent.suggest import closest


@dataclass(frozen=True, slots=True)
class DeviceSpec:
    """A parsed ``--device`` value.

    Attributes:
        kind: Backend name (``sim``, ``adb``, ...).
        arg: What follows the colon (empty when there is none).
        endpoint: What follows the ``@`` of a backend with a :class:`Reach` (empty: the device runs here).
    """

    kind: str
    arg: str
    endpoint: str = ""

    def __str__(self) -> str:
        text = f"{self.kind}:{self.arg}" if self.arg else self.kind
        return f"{text}@{self.endpoint}" if self.endpoint else text


#: How a backend meets ``--noise``: ``built`` (the device is built with the knobs: the simulated phone),
#: ``reported`` (the device may be a phone served by ``sim serve --noise``, which reports its knobs and is
#: checked against them) or ``none`` (it cannot have noise and refuses any).
NoiseSupport = Literal["built", "reported", "none"]


@dataclass(frozen=True, slots=True)
class Reach:
    """How a backend's devices run on another machine (``KIND[:ARG]@ENDPOINT``).

    Attributes:
        form: The accepted endpoints, for messages.
        check: Parses an endpoint without connecting (raises ``ConfigError`` for a malformed one).
        build: Makes the device from the argument and the endpoint.
    """

    form: str
    check: Callable[[str], object]
    build: Callable[[str, str], Device]


@dataclass(frozen=True, slots=True)
class Backend:
    """How to build one kind of device.

    Attributes:
        form: The accepted form, for messages (``adb:SERIAL``).
        needs_arg: Whether the part after the colon is required.
        build: Makes the device from the argument (validated by the builder) and the noise asked for
            (given only to a backend whose noise is ``built``; the others get None).
        capabilities: What its devices can do (the class attribute of the device it builds; a test
            checks that they agree). Callers decide by these flags, never by the backend's name.
        noise: How it meets ``--noise`` (:data:`NoiseSupport`).
        reach: How its devices run on another machine (``@ENDPOINT``); None if they cannot.
        extra: The optional extra it needs installed (:mod:`latent_agent.extras`), checked before a command
            writes anything; None: it needs none.
        names_address: What an argument names that only the user may choose, in words (a network address, a
            file naming programs to start); None: its arguments name nothing of the kind. A spec read from a
            file that names one is used only when given again (:func:`user_only`).
    """

    form: str
    needs_arg: bool
    build: Callable[[str, NoiseConfig | None], Device]
    capabilities: DeviceCapabilities
    noise: NoiseSupport = "none"
    reach: Reach | None = None
    extra: str | None = None
    names_address: Callable[[str], str | None] | None = None

    @property
    def declared(self) -> tuple[DeviceCapabilities, ...]:
        """The capabilities its devices declare: here, and (``remote``) on another machine when it has a reach."""
        if self.reach is None:
            return (self.capabilities,)
        return self.capabilities, replace(self.capabilities, remote=True)

    def capabilities_for(self, spec: DeviceSpec) -> DeviceCapabilities:
        """What the device ``spec`` names can do: reached at an endpoint, it is ``remote``."""
        return replace(self.capabilities, remote=True) if spec.endpoint else self.capabilities

    @property
    def seeded(self) -> bool:
        """Whether its devices start from a seed rather than being one particular device: a pool may hold
        any number of them from one spec, and a sweep gives each episode's device that episode's seed."""
        return self.capabilities.seeded_reset


def _sim(arg: str, noise: NoiseConfig | None = None) -> Device:
    if not arg:
        return SimDevice(noise=noise)
    try:
        seed = int(arg)
    except ValueError:
        raise ConfigError(f"--device sim:SEED needs an integer seed, not {arg!r}") from None
    return SimDevice(seed=seed, noise=noise)


def _adb(arg: str, noise: NoiseConfig | None = None) -> Device:
    return AdbDevice(arg)


def _u2(arg: str, noise: NoiseConfig | None = None) -> Device:
    return U2Device(arg)


def _androidenv(arg: str, noise: NoiseConfig | None = None) -> Device:
    return AndroidEnvDevice.from_config_file(arg)


def _miniwob(arg: str, noise: NoiseConfig | None = None) -> Device:
    return MiniWobDevice(arg or None)


def _miniwob_endpoint(text: str) -> object:
    return parse_endpoint(text)


def _miniwob_at(arg: str, endpoint: str) -> Device:
    return RemoteMiniWobDevice(endpoint, arg or None)


#: A phone reached over adb (adb, uiautomator2, AndroidEnv): a launcher, system keys, no seed of its own.
_PHONE = DeviceCapabilities(remote=True)


def _network_serial(serial: str) -> str | None:
    """A ``HOST:PORT`` serial is a phone on the network, which adb connects to (``adb connect``)."""
    return f"the network address {serial}" if ":" in serial else None


def _androidenv_config(path: str) -> str | None:
    return f"the AndroidEnv config {path} (it names the emulator and adb programs to start)"

BACKENDS: dict[str, Backend] = {
    "sim": Backend("sim or sim:SEED", False, _sim,
                   DeviceCapabilities(seeded_reset=True, remote=False, state_checks=True), noise="built"),
    "adb": Backend("adb:SERIAL", True, _adb, _PHONE, noise="reported", extra="adb", names_address=_network_serial),
    "u2": Backend("u2:SERIAL", True, _u2, _PHONE, extra="u2", names_address=_network_serial),
    "androidenv": Backend("androidenv:CONFIG", True, _androidenv, _PHONE, extra="androidenv",
                          names_address=_androidenv_config),
    "miniwob": Backend("miniwob:TASK", False, _miniwob,
                       DeviceCapabilities(launcher_and_apps=False, system_keys=False, seeded_reset=True, remote=False,
                                          task_reward=True, surface="web_page"),
                       reach=Reach("ws://HOST:PORT/PATH, cdp://HOST:PORT or http://HOST:PORT", _miniwob_endpoint,
                                   _miniwob_at),
                       extra="miniwob"),
}


#: What a backend's name may hold: the ``--device`` and ``--devices`` grammar splits at ``:``, ``@``, ``,`` and ``*``.
_BACKEND_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def register_backend(name: str, backend: Backend) -> None:
    """Add ``backend`` to the registry under ``name`` (registering the same entry again is harmless).

    A backend defined outside this module (a plugin, a test) is then what ``--device`` and ``--devices`` accept,
    and commands treat it by its capabilities as they do a built-in one.

    Raises:
        ConfigError: ``name`` is taken by another backend, or is not a name ``--device`` can spell.
    """
    if not _BACKEND_NAME.fullmatch(name):
        raise ConfigError(f"device backend name {name!r}: letters, digits, '_', '.' and '-' only, as "
                          "--device KIND:ARG@ENDPOINT and --devices SPEC*N,... split at the others")
    if BACKENDS.get(name, backend) != backend:
        raise ConfigError(f"device backend {name!r} is registered already")
    BACKENDS[name] = backend


def user_only(spec: DeviceSpec) -> str | None:
    """What ``spec``, read from a file (a resumed sweep's manifest), names that only the user's command line may
    choose, in words: a machine it reaches (a remote browser's endpoint, a phone's network address) or a file
    naming programs to start; None when it names neither (the simulated phone, a local browser, a USB serial)."""
    if spec.endpoint:
        return f"the endpoint {spec.endpoint}"
    backend = BACKENDS[spec.kind]
    return backend.names_address(spec.arg) if backend.names_address is not None and spec.arg else None


def capabilities_of(spec: DeviceSpec) -> DeviceCapabilities:
    """What the device a parsed ``--device`` spec names can do, without building it."""
    return BACKENDS[spec.kind].capabilities_for(spec)


def accepted_forms() -> str:
    return ", ".join(b.form + ("[@ENDPOINT]" if b.reach else "") for b in BACKENDS.values())


def parse_device_spec(text: str) -> DeviceSpec:
    """Parse a ``--device`` value without connecting to anything.

    Raises:
        ConfigError: For an unknown backend or a missing argument; the message lists the accepted forms.
    """
    stripped = text.strip()
    # The name ends at ':' or, for a backend with a reach, at '@' (miniwob@ws://...).
    name = re.match(r"[^:@]*", stripped)
    reach = BACKENDS[name.group()].reach if name and name.group() in BACKENDS else None
    head, at, endpoint = stripped.partition("@") if reach is not None else (stripped, "", "")
    kind, sep, arg = head.partition(":")
    backend = BACKENDS.get(kind)
    if backend is None:
        close = closest(kind, BACKENDS)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise ConfigError(f"unknown --device {text!r}; {hint}accepted: {accepted_forms()}")
    if (sep and not arg) or (backend.needs_arg and not arg) or (at and not endpoint):
        raise ConfigError(f"--device {text!r} is incomplete; expected {backend.form}"
                          + (f" or {backend.form}@ENDPOINT" if reach else ""))
    if reach is not None and at:
        reach.check(endpoint)
    return DeviceSpec(kind, arg, endpoint)


def _build(backend: Backend, spec: DeviceSpec, noise: NoiseConfig | None) -> Device:
    """The device ``spec`` names: here, or at its endpoint through the backend's reach."""
    if spec.endpoint and backend.reach is not None:
        return backend.reach.build(spec.arg, spec.endpoint)
    return backend.build(spec.arg, noise)


def noise_record(device: Device) -> str | None:
    """What a trajectory records as the device's noise: the knobs (or ``none``); None for a real phone.

    Never raises: an adb device that does not answer the question is recorded as None (unknown),
    and the episode meets the failure at its first real call instead.
    """
    try:
        noise = device_noise(device)
    except DeviceError:
        return None
    return noise.spec if noise is not None else None


def load_device(text: str | DeviceSpec, noise: NoiseConfig | None = None) -> Device:
    """Build the device a ``--device`` value names.

    Args:
        text: The ``--device`` value, or the spec it was parsed into.
        noise: The ``--noise`` asked for (``None``: not given). A ``sim`` device is
            built with it; an ``adb:`` device must be a phone served by ``sim serve``
            with the same noise; other backends refuse any noise.

    Raises:
        ConfigError: For a malformed spec, or noise the device cannot have.
        DeviceError: If the backend cannot reach the device.
    """
    spec = text if isinstance(text, DeviceSpec) else parse_device_spec(text)
    backend = BACKENDS[spec.kind]
    if backend.noise == "built":
        return _build(backend, spec, noise)
    if noise is not None and noise.active and backend.noise == "none":
        raise ConfigError(_no_noise(spec, noise))
    device = _build(backend, spec, None)
    if noise is not None:
        try:
            check_served_noise(spec, device, noise)
        except BaseException:
            device.close()
            raise
    return device


def _no_noise(spec: DeviceSpec, noise: NoiseConfig) -> str:
    caps = capabilities_of(spec)
    given = noise.profile or noise.spec  # a profile by its name, as it was most likely typed
    if not (caps.remote and caps.launcher_and_apps):  # only a phone has noise of its own
        return (f"--noise {given} needs the simulated phone: {spec} cannot add the simulated phone's noise "
                "(leave out --noise, or use --device sim)")
    return (f"--noise {given} needs the simulated phone: {spec} is a real device, whose noise cannot be "
            f"switched on (serve the sim with `{command_name()} sim serve --noise ...` and use its adb serial)")


def device_noise(device: Device) -> NoiseConfig | None:
    """The noise a device adds: a sim's knobs, a served sim's (read over adb); ``None`` for a real phone.

    Raises:
        DeviceError: If an adb device does not answer.
    """
    if isinstance(device, SimDevice):
        return device.noise
    if not isinstance(device, AdbDevice):
        return None
    reported = device.shell(["getprop", NOISE_PROP]).out()
    if not reported:
        return None
    try:
        return NoiseConfig.parse(reported)
    except ConfigError as exc:
        raise DeviceError(f"{device.serial} reports unreadable noise {reported!r} ({exc})") from None


def check_served_noise(spec: DeviceSpec, device: Device, noise: NoiseConfig) -> None:
    """Check that a non-sim device has exactly ``noise`` (it can only if it is a served sim).

    Raises:
        ConfigError: A real phone with noise asked for, or a served sim with other noise.
        DeviceError: If the device does not answer.
    """
    served = device_noise(device)
    if served is None:
        if noise.active:
            raise ConfigError(_no_noise(spec, noise))
        return
    if served.spec != noise.spec:
        raise ConfigError(f"{spec} is a simulated phone served with noise {served.spec}, not {noise.spec}; "
                          f"serve it with `{command_name()} sim serve --noise {noise.spec}` or pass --noise "
                          f"{served.spec}")


def check_pool_noise(specs: Sequence[DeviceSpec], noise: NoiseConfig) -> None:
    """Before a sweep: every device of the pool has ``noise`` (sims get it; served sims must have it).

    A device that cannot be reached now is left to the pool, which retires it with its reason.

    Raises:
        ConfigError: A real device with noise asked for, or a served sim with other noise.
    """
    for spec in dict.fromkeys(specs):
        backend = BACKENDS[spec.kind]
        if backend.noise == "built":
            continue
        if noise.active and backend.noise == "none":
            raise ConfigError(_no_noise(spec, noise))
        if backend.noise != "reported":
            continue
        try:
            device = _build(backend, spec, None)
        except DeviceError:
            continue
        try:
            check_served_noise(spec, device, noise)
        except DeviceError:
            continue
        finally:
            device.close()
