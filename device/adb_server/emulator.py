"""The served phone presented as an Android emulator: its console (``adb emu``) and its snapshots.

A real emulator listens on two loopback ports: its console on an even port N (a line protocol) and
adbd on N+1. It tells a running adb server about itself with the host request
``host:emulator:<N+1>``; the server connects to N+1 and lists the device as ``emulator-N``.
``adb -s emulator-N emu ARGS`` does not go through the server: adb takes N from the serial, opens
127.0.0.1:N, writes ``auth TOKEN`` (the contents of ``~/.emulator_console_auth_token``, when that
file is not empty), the command and ``quit``, and prints what the console sent after its first two
``OK`` lines (the greeting's and the authentication's). :class:`EmulatorServer` does all of this for
a served phone, so the real adb binary drives it as it drives an emulator, and
``adb emu avd snapshot load NAME`` (what ``Device.reset(snapshot=)`` runs) really restores a state.

A snapshot of the served simulated phone copies its whole state (screens, apps, back stacks, the
noise streams) with the served phone's files and settings, as an emulator snapshot copies the
machine. The state the phone was served in is saved as ``default_boot`` (an emulator's quick-boot
snapshot). Only the commands below exist; every other answers ``KO: unknown command``, and the
wording of the ``KO`` lines and of ``avd snapshot list`` is this module's, not the emulator's.

* ``auth TOKEN``, ``help``, ``quit`` / ``exit``;
* ``avd name``; ``avd snapshot list``; ``avd snapshot save|load|delete NAME``.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import re
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

from latent_agent.device.adb_server.limits import ConnectionLimits
from latent_agent.device.adb_server.listener import Listener
from latent_agent.device.adb_server.served_phone import ServedPhone, ServerOptions
from latent_agent.device.adb_server.server import AdbServer
from latent_agent.device.base import Device
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ConfigError, DeviceConnectionError, DeviceError, ServeAddressError

log = logging.getLogger(__name__)

#: Where adb and the emulator keep the console's token, under the home directory.
TOKEN_FILE = ".emulator_console_auth_token"
#: The snapshot holding the state the phone was served in (an emulator's quick-boot snapshot).
BOOT_SNAPSHOT = "default_boot"
#: What ``avd name`` answers.
AVD_NAME = "latent_sim"
#: Attempts at finding a free pair of ports (console N, adbd N+1) when none is given.
PORT_ATTEMPTS = 50
_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
_READY = "Android Console: type 'help' for a list of commands"
_HELP = ("Android console commands:", "    help|h|?         print a list of commands",
         "    auth             user authentication for the emulator console",
         "    avd              control virtual device execution (name, snapshot list|save|load|delete)",
         "    quit|exit        quit control session")


def read_token(home: Path | None = None) -> str | None:
    """The console token an emulator would require: the token file's contents, or None when absent or empty."""
    path = (home or Path.home()) / TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return token or None


@dataclass(frozen=True, slots=True)
class _Snapshot:
    device: dict[str, object]
    settings: dict[str, dict[str, str]]
    files: dict[str, tuple[int, int, bytes]]


class Snapshots:
    """Named copies of a served simulated phone's whole state."""

    def __init__(self, phone: ServedPhone) -> None:
        self.phone = phone
        self._saved: dict[str, _Snapshot] = {}
        self._lock = threading.Lock()

    def _device(self) -> Device:
        if not isinstance(self.phone.device, SimDevice):
            raise DeviceError("this served device is not a simulated phone; it has no state to snapshot")
        return self.phone.device

    def save(self, name: str) -> None:
        """Save the phone's state as ``name`` (replacing a snapshot of that name).

        Raises:
            DeviceError: A name other than letters, digits, ``.``, ``_`` and ``-``, or a device that is not simulated.
        """
        if not _NAME.match(name):
            raise DeviceError(f"bad snapshot name {name!r}: use letters, digits, '.', '_' or '-'")
        device = self._device()

        def take() -> _Snapshot:
            # The memo maps the device to itself: references back to it (the apps' launch hook) stay live.
            return _Snapshot(copy.deepcopy(vars(device), {id(device): device}), copy.deepcopy(self.phone.settings),
                             self.phone.vfs.copy_entries())

        snapshot = self.phone.call(take)
        with self._lock:
            self._saved[name] = snapshot

    def load(self, name: str) -> None:
        """Put the phone back in the state saved as ``name``.

        Raises:
            DeviceError: No snapshot of that name, or a device that is not simulated.
        """
        device = self._device()
        with self._lock:
            snapshot = self._saved.get(name)
        if snapshot is None:
            raise DeviceError(f"snapshot '{name}' does not exist")

        def restore() -> None:
            state = copy.deepcopy(snapshot.device, {id(device): device})  # the snapshot stays loadable again
            vars(device).clear()
            vars(device).update(state)
            self.phone.settings.clear()
            self.phone.settings.update(copy.deepcopy(snapshot.settings))
            self.phone.vfs.restore_entries(snapshot.files)

        self.phone.call(restore)

    def delete(self, name: str) -> None:
        """Forget the snapshot ``name``.

        Raises:
            DeviceError: No snapshot of that name.
        """
        with self._lock:
            if self._saved.pop(name, None) is None:
                raise DeviceError(f"snapshot '{name}' does not exist")

    def names(self) -> list[str]:
        """The saved snapshots' names, sorted."""
        with self._lock:
            return sorted(self._saved)


class EmulatorConsole:
    """The emulator console of a served phone: a line protocol on a loopback port.

    Args:
        snapshots: The phone's snapshots.
        host: Address to listen on.
        port: Port to listen on (an emulator's is even; adbd listens on the next one).
        auth_token: The token ``auth`` must give before any other command, or None when none is needed.
        limits: Bounds on sessions (how many at once, line length, silence before and after ``auth``).
    """

    def __init__(self, snapshots: Snapshots, *, host: str, port: int, auth_token: str | None,
                 limits: ConnectionLimits | None = None) -> None:
        self.snapshots = snapshots
        self.auth_token = auth_token
        self.limits = limits or ConnectionLimits()
        self._listener: Listener[socket.socket] = Listener(
            "a console session", thread="emulator-console", host=host, port=port, backlog=8,
            max_connections=self.limits.max_connections, accept=lambda client: client, serve=self._session,
            drop=_drop)

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        if not self._listener.started:
            raise DeviceConnectionError("the emulator console is not started")
        return self._listener.port

    def start(self) -> EmulatorConsole:
        """Bind and start accepting connections.

        Raises:
            ServeAddressError: If the address cannot be bound.
        """
        self._listener.start("emulator-console")
        return self

    def _session(self, client: socket.socket) -> None:
        authed = self.auth_token is None
        limits = self.limits
        try:
            # A silent peer is dropped (a timeout is an OSError): soon before auth, later after it.
            client.settimeout(limits.idle_s if authed else limits.handshake_s)
            if authed:
                greeting = [_READY]
            else:
                greeting = ["Android Console: Authentication required",
                            "Android Console: type 'auth <auth_token>' to authenticate",
                            "Android Console: you can find your <auth_token> in ", f"'~/{TOKEN_FILE}'"]
            self._send(client, [*greeting, "OK"])
            lines = client.makefile("rb")
            while raw := lines.readline(limits.max_line + 1):
                if len(raw) > limits.max_line:
                    self._send(client, [f"KO: line longer than {limits.max_line} bytes; closing"])
                    break
                words = raw.decode("utf-8", "replace").split()
                if not words:
                    continue
                command = words[0].lower()
                if command in ("quit", "exit"):
                    break
                if command == "auth":
                    if self.auth_token is not None and words[1:] != [self.auth_token]:
                        self._send(client, [f"KO: authentication token does not match ~/{TOKEN_FILE}"])
                        continue
                    authed = True
                    client.settimeout(limits.idle_s)
                    self._send(client, [_READY, "OK"])
                elif command in ("help", "h", "?"):
                    self._send(client, [*_HELP, "OK"])
                elif not authed:
                    self._send(client, ["KO: unknown command, try 'help'"])
                else:
                    self._send(client, self._command(words))
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                client.close()

    def _command(self, words: list[str]) -> list[str]:
        """The answer lines to an authenticated command (ending "OK", or one "KO: ..." line)."""
        if words[:2] == ["avd", "name"]:
            return [AVD_NAME, "OK"]
        if words[:2] != ["avd", "snapshot"]:
            return ["KO: unknown command, try 'help'"]
        verb, names = (words[2] if len(words) > 2 else ""), words[3:]
        if verb == "list" and not names:
            return ["List of snapshots present on all disks:", *self.snapshots.names(), "OK"]
        actions = {"save": self.snapshots.save, "load": self.snapshots.load, "delete": self.snapshots.delete}
        if verb not in actions or len(names) != 1:
            return ["KO: usage: avd snapshot list | avd snapshot save|load|delete NAME"]
        try:
            actions[verb](names[0])
        except DeviceError as exc:
            return [f"KO: {exc}"]
        log.info("console: avd snapshot %s %s", verb, names[0])
        return ["OK"]

    @staticmethod
    def _send(client: socket.socket, lines: list[str]) -> None:
        client.sendall("".join(f"{line}\r\n" for line in lines).encode("utf-8"))

    def close(self, timeout: float = 5.0) -> None:
        """Stop accepting, drop every session and wait up to ``timeout`` s for their threads."""
        self._listener.close(timeout)


def _drop(client: socket.socket) -> None:
    """End a console session from another thread (a refused one, or every open one as the console closes)."""
    with contextlib.suppress(OSError):
        client.shutdown(socket.SHUT_RDWR)
    client.close()


class EmulatorServer:
    """A device served as an emulator: its console on ``console_port``, adbd on the port after it.

    Args:
        device: The device to serve (snapshots need a simulated phone).
        console_port: An even port; 0 picks a free pair.
        host: Address to listen on.
        options: Identity and fault injection of the served phone.
        auth_token: The console token (:func:`read_token` reads the one an emulator would use), or None.
        limits: Bounds on the connections of both ports.

    Example::

        with EmulatorServer(SimDevice()) as emulator:
            emulator.register(5037)   # the adb server now lists emulator.serial
            ...

    Raises:
        ConfigError: An odd console port (an emulator's is even: adb names it, adbd takes the next).
    """

    def __init__(self, device: Device, *, console_port: int = 0, host: str = "127.0.0.1",
                 options: ServerOptions | None = None, auth_token: str | None = None,
                 limits: ConnectionLimits | None = None) -> None:
        if console_port % 2:
            raise ConfigError(f"an emulator's console port is even (adbd takes the next one), not {console_port}")
        self.device = device
        self._console_port = console_port
        self._host = host
        self._options = options
        self._auth_token = auth_token
        self._limits = limits
        self.adb: AdbServer | None = None
        self.console: EmulatorConsole | None = None

    def start(self) -> EmulatorServer:
        """Bind both ports (a free pair, when none was given) and save the ``default_boot`` snapshot.

        Raises:
            ServeAddressError: The ports cannot be bound (or no free pair was found).
        """
        attempts = PORT_ATTEMPTS if self._console_port == 0 else 1
        for _ in range(attempts):
            adb = AdbServer(self.device, host=self._host, port=self._console_port + 1 if self._console_port else 0,
                            options=self._options, limits=self._limits).start()
            console_port = adb.port - 1
            if console_port % 2 == 0:
                snapshots = Snapshots(adb.phone)
                try:
                    console = EmulatorConsole(snapshots, host=self._host, port=console_port,
                                              auth_token=self._auth_token, limits=self._limits).start()
                except ServeAddressError:
                    if self._console_port:
                        adb.close()
                        raise
                else:
                    self.adb, self.console = adb, console
                    with contextlib.suppress(DeviceError):  # a device that is not simulated has no snapshots
                        snapshots.save(BOOT_SNAPSHOT)
                    return self
            adb.close()
        raise ServeAddressError(f"found no free pair of ports (console, adbd) on {self._host} "
                                f"in {attempts} attempts")

    @property
    def console_port(self) -> int:
        """The console's port (adb names the device after it)."""
        if self.console is None:
            raise DeviceConnectionError("the emulator is not started")
        return self.console.port

    @property
    def serial(self) -> str:
        """The serial the adb server lists once the emulator is registered (``emulator-N``)."""
        return f"emulator-{self.console_port}"

    @property
    def phone(self) -> ServedPhone:
        """The served phone."""
        if self.adb is None:
            raise DeviceConnectionError("the emulator is not started")
        return self.adb.phone

    def register(self, server_port: int, server_host: str = "127.0.0.1", timeout: float = 5.0) -> None:
        """Tell the adb server at ``server_host:server_port`` about this emulator, as an emulator does at boot.

        Raises:
            DeviceConnectionError: No adb server answers there.
        """
        request = f"host:emulator:{self.console_port + 1}".encode()
        try:
            with socket.create_connection((server_host, server_port), timeout=timeout) as sock:
                sock.sendall(b"%04x" % len(request) + request)
                # The server answers nothing; wait until it has read the request and closed its end.
                with contextlib.suppress(OSError):
                    sock.recv(1)
        except OSError as exc:
            raise DeviceConnectionError(f"no adb server answers on {server_host}:{server_port} to register "
                                        f"{self.serial} with ({exc}); start one (adb start-server)") from None

    def close(self) -> None:
        """Stop both servers."""
        if self.console is not None:
            self.console.close()
        if self.adb is not None:
            self.adb.close()

    def __enter__(self) -> EmulatorServer:
        if self.adb is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
