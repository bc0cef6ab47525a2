"""Run parsed command lines against a :class:`~latent_agent.device.adb_server.served_phone.ServedPhone`.

Expansion follows POSIX order: parameters and command substitutions, field
splitting of unquoted results, then pathname (glob) matching against the
phone's files. Commands come from :mod:`latent_agent.device.adb_server.commands`; anything
else answers ``/system/bin/sh: NAME: not found`` with status 127, as on a phone.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from latent_agent.device.adb_server.served_phone import ServedPhone
from latent_agent.device.adb_server.shell_parse import (
    AndOr,
    Pipeline,
    Redirect,
    Script,
    ShellSyntaxError,
    SimpleCommand,
    Word,
    parse,
)
from latent_agent.device.adb_server.vfs import VfsError, normalize
from latent_agent.errors import DeviceError

SHELL = "/system/bin/sh"
_IFS = " \t\n"
_GLOB_CHARS = "*?["


class Sink(Protocol):
    """Where a command's output goes: ``fd`` 1 is stdout, 2 is stderr."""

    def write(self, fd: int, data: bytes) -> None: ...


@dataclass(slots=True)
class BufferSink:
    """Collects output in memory, both per stream and interleaved."""

    stdout: bytearray = field(default_factory=bytearray)
    stderr: bytearray = field(default_factory=bytearray)
    merged: bytearray = field(default_factory=bytearray)

    def write(self, fd: int, data: bytes) -> None:
        (self.stderr if fd == 2 else self.stdout).extend(data)
        self.merged.extend(data)


class Cancelled(Exception):
    """The session was cancelled (client gone or server shutting down)."""


class ExitShell(Exception):
    """The ``exit`` builtin ran."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


@dataclass(slots=True)
class Invocation:
    """One command being run: its arguments, input and output.

    Attributes:
        phone: The phone the command acts on.
        session: The shell running it (for ``cd``, variables and paths).
        argv: Expanded arguments, ``argv[0]`` being the command name.
        stdin: Everything on the command's standard input.
        sink: Its (possibly redirected) output.
    """

    phone: ServedPhone
    session: ShellSession
    argv: list[str]
    stdin: bytes
    sink: Sink

    def out(self, data: bytes | str) -> None:
        self.sink.write(1, data.encode() if isinstance(data, str) else data)

    def err(self, data: bytes | str) -> None:
        self.sink.write(2, data.encode() if isinstance(data, str) else data)

    def fail(self, message: str, status: int = 1) -> int:
        """Print ``argv[0]: message`` on stderr and return ``status``."""
        self.err(f"{self.argv[0]}: {message}\n")
        return status


Handler = Callable[[Invocation], int]


class _Redirected:
    """A sink that sends each fd where the command's redirections say."""

    def __init__(self, parent: Sink, session: ShellSession) -> None:
        self.parent = parent
        self.session = session
        # fd -> ("fd", parent_fd) | ("file", path) | ("null",)
        self.targets: dict[int, tuple[str, ...]] = {1: ("fd", "1"), 2: ("fd", "2")}
        self.files: dict[str, bytearray] = {}

    def write(self, fd: int, data: bytes) -> None:
        target = self.targets.get(fd, ("fd", str(fd)))
        if target[0] == "fd":
            self.parent.write(int(target[1]), data)
        elif target[0] == "file":
            self.files[target[1]].extend(data)

    def flush(self) -> None:
        for path, data in self.files.items():
            self.session.phone.vfs.write(path, bytes(data), append=True)


class ShellSession:
    """A shell: variables, working directory and last status, shared by the lines it runs.

    Args:
        phone: The phone commands act on.
        commands: Command name -> handler.
        cancelled: Set to stop the session between commands.
    """

    def __init__(self, phone: ServedPhone, commands: dict[str, Handler],
                 cancelled: threading.Event | None = None) -> None:
        self.phone = phone
        self.commands = commands
        self.cancelled = cancelled or threading.Event()
        self.cwd = "/"
        self.status = 0
        self.vars: dict[str, str] = {
            "HOME": "/", "PATH": "/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin",
            "SHELL": SHELL, "USER": "shell", "HOSTNAME": "latent_sim", "TMPDIR": "/data/local/tmp",
            "EXTERNAL_STORAGE": "/sdcard", "ANDROID_DATA": "/data", "ANDROID_ROOT": "/system",
        }

    # -- running ---------------------------------------------------------

    def run(self, source: str, sink: Sink, stdin: bytes = b"") -> int:
        """Parse and run one command line; returns its exit status.

        Syntax errors print ``/system/bin/sh: MESSAGE`` and return 1.
        """
        try:
            script = parse(source)
        except ShellSyntaxError as exc:
            sink.write(2, f"{SHELL}: {exc}\n".encode())
            self.status = 1
            return 1
        return self.run_script(script, sink, stdin)

    def run_script(self, script: Script, sink: Sink, stdin: bytes = b"") -> int:
        for item in script:
            self.status = self._and_or(item, sink, stdin)
        return self.status

    def _and_or(self, item: AndOr, sink: Sink, stdin: bytes) -> int:
        status = self._pipeline(item.first, sink, stdin)
        for op, pipeline in item.rest:
            self.status = status
            if (op == "&&") == (status == 0):
                status = self._pipeline(pipeline, sink, stdin)
        return status

    def _pipeline(self, pipeline: Pipeline, sink: Sink, stdin: bytes) -> int:
        data = stdin
        status = 0
        last = len(pipeline.commands) - 1
        for i, cmd in enumerate(pipeline.commands):
            if i == last:
                status = self._simple(cmd, sink, data)
            else:
                buf = _StdoutCapture(sink)
                status = self._simple(cmd, buf, data)
                data = bytes(buf.stdout)
        if pipeline.negate:
            status = 0 if status else 1
        return status

    def _simple(self, cmd: SimpleCommand, sink: Sink, stdin: bytes) -> int:
        if self.cancelled.is_set():
            raise Cancelled
        self._stderr_sink = sink
        try:
            argv: list[str] = []
            for word in cmd.words:
                argv.extend(self.expand(word))
            values = [(name, self.expand_single(word)) for name, word in cmd.assignments]
        except ShellSyntaxError as exc:
            sink.write(2, f"{SHELL}: {exc}\n".encode())
            return 1
        if not argv:
            for name, value in values:
                self.vars[name] = value
        out = _Redirected(sink, self)
        try:
            stdin = self._apply_redirects(cmd.redirects, out, stdin)
        except VfsError as exc:
            sink.write(2, f"{SHELL}: {exc}\n".encode())
            return 1
        if not argv:
            out.flush()
            return 0
        self.phone.record(tuple(argv))
        handler = self.commands.get(argv[0])
        if handler is None:
            out.write(2, f"{SHELL}: {argv[0]}: not found\n".encode())
            out.flush()
            return 127
        try:
            status = handler(Invocation(self.phone, self, argv, stdin, out))
        except DeviceError as exc:
            out.write(2, f"{argv[0]}: device error: {exc}\n".encode())
            status = 1
        out.flush()
        return status & 0xFF

    def _apply_redirects(self, redirects: tuple[Redirect, ...], out: _Redirected, stdin: bytes) -> bytes:
        for r in redirects:
            target = self.expand_single(r.target)
            if r.op in (">&", "<&"):
                if target == "-":
                    out.targets[r.fd] = ("null",)
                elif target.isdigit():
                    out.targets[r.fd] = out.targets.get(int(target), ("fd", target))
                else:
                    raise VfsError(f"{target}: illegal file descriptor name")
                continue
            if r.op == "<":
                stdin = self._read_redirect(target)
                continue
            if target == "/dev/null":
                out.targets[r.fd] = ("null",)
                continue
            path = self.path(target)
            try:
                if r.op == ">" or self.phone.vfs.stat(path) is None:
                    self.phone.vfs.write(path, b"")
            except VfsError as exc:
                raise VfsError(f"can't create {target}: {exc}") from None
            out.files.setdefault(path, bytearray())
            out.targets[r.fd] = ("file", path)
        return stdin

    def _read_redirect(self, target: str) -> bytes:
        if target == "/dev/null":
            return b""
        try:
            return self.phone.vfs.read(self.path(target))
        except VfsError as exc:
            raise VfsError(f"can't open {target}: {exc}") from None

    def path(self, p: str) -> str:
        """``p`` made absolute against the working directory."""
        return normalize(p, self.cwd)

    # -- expansion -------------------------------------------------------

    def _param(self, name: str) -> str:
        if name == "?":
            return str(self.status)
        if name == "$":
            return "4242"
        if name == "#":
            return "0"
        if name == "0":
            return SHELL
        if name in "!@*-" or name.isdigit():
            return ""
        return self.vars.get(name, "")

    def _substitute(self, source: str) -> str:
        sub = ShellSession(self.phone, self.commands, self.cancelled)
        sub.cwd, sub.vars, sub.status = self.cwd, dict(self.vars), self.status
        capture = _StdoutCapture(_ParentStderr(self._stderr_sink))
        with contextlib.suppress(ExitShell):
            sub.run(source, capture)
        return bytes(capture.stdout).decode("utf-8", "surrogateescape").rstrip("\n")

    _stderr_sink: Sink | None = None

    def expand(self, word: Word) -> list[str]:
        """Expand a word into fields: parameters, substitutions, splitting, globbing."""
        fields: list[list[tuple[str, bool]]] = []
        current: list[tuple[str, bool]] = []
        started = False
        for i, part in enumerate(word):
            if part.kind == "lit":
                text = part.text
                if i == 0 and not part.quoted and (text == "~" or text.startswith("~/")):
                    home = self.vars.get("HOME", "/")
                    current.extend((c, False) for c in (home if text == "~" else home.rstrip("/")))
                    text = text[1:]
                current.extend((c, not part.quoted) for c in text)
                started = True
                continue
            value = self._param(part.text) if part.kind == "param" else self._substitute(part.text)
            if part.quoted:
                current.extend((c, False) for c in value)
                started = True
                continue
            for c in value:
                if c in _IFS:
                    if current or started:
                        fields.append(current)
                    current, started = [], False
                else:
                    current.append((c, True))
                    started = True
        if current or started:
            fields.append(current)
        out: list[str] = []
        for f in fields:
            if any(glob and c in _GLOB_CHARS for c, glob in f):
                matches = self._glob(f)
                if matches:
                    out.extend(matches)
                    continue
            out.append("".join(c for c, _ in f))
        return out

    def expand_single(self, word: Word) -> str:
        """Expand a word without splitting or globbing (assignments, redirect targets)."""
        parts = []
        for part in word:
            if part.kind == "lit":
                parts.append(part.text)
            elif part.kind == "param":
                parts.append(self._param(part.text))
            else:
                parts.append(self._substitute(part.text))
        return "".join(parts)

    def _glob(self, chars: list[tuple[str, bool]]) -> list[str]:
        absolute = bool(chars) and chars[0][0] == "/"
        components: list[list[tuple[str, bool]]] = [[]]
        for c, g in chars:
            if c == "/":
                components.append([])
            else:
                components[-1].append((c, g))
        bases = ["/"] if absolute else [""]
        comps = [c for c in components if c] if absolute else components
        for comp in comps:
            pattern = _compile_component(comp)
            next_bases = []
            for base in bases:
                directory = self.path(base) if base else self.cwd
                if pattern is None:
                    name = "".join(c for c, _ in comp)
                    cand = _join(base, name)
                    if self.phone.vfs.stat(self.path(cand)) is not None:
                        next_bases.append(cand)
                    continue
                try:
                    entries = self.phone.vfs.listdir(directory)
                except VfsError:
                    continue
                for name, _ in entries:
                    if name.startswith(".") and not (comp and comp[0][0] == "."):
                        continue
                    if pattern.fullmatch(name):
                        next_bases.append(_join(base, name))
            bases = next_bases
        return sorted(bases)


def _join(base: str, name: str) -> str:
    return f"{base}{name}" if base.endswith("/") or not base else f"{base}/{name}"


def _compile_component(comp: list[tuple[str, bool]]) -> re.Pattern[str] | None:
    """Regex for one path component, or ``None`` when it holds no active glob character."""
    if not any(g and c in _GLOB_CHARS for c, g in comp):
        return None
    out: list[str] = []
    i = 0
    while i < len(comp):
        c, g = comp[i]
        if g and c == "*":
            out.append(".*")
        elif g and c == "?":
            out.append(".")
        elif g and c == "[":
            j = i + 1
            if j < len(comp) and comp[j][0] in "!^":
                j += 1
            if j < len(comp) and comp[j][0] == "]":
                j += 1
            while j < len(comp) and not (comp[j][0] == "]" and comp[j][1]):
                j += 1
            if j >= len(comp):
                out.append(re.escape(c))
            else:
                body = "".join(ch for ch, _ in comp[i + 1:j])
                if body[:1] in "!^":
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


class _StdoutCapture:
    """Captures stdout; passes stderr on to ``parent``."""

    def __init__(self, parent: Sink | None) -> None:
        self.parent = parent
        self.stdout = bytearray()

    def write(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.stdout.extend(data)
        elif self.parent is not None:
            self.parent.write(fd, data)


class _ParentStderr:
    def __init__(self, parent: Sink | None) -> None:
        self.parent = parent

    def write(self, fd: int, data: bytes) -> None:
        if self.parent is not None:
            self.parent.write(2, data)
