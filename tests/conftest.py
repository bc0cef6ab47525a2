"""Shared pytest configuration, and the check that the suite leaves no process of its own running.

Every process the suite starts (adb servers, served sims, stand-ins, CLI subprocesses)
inherits a marker variable naming this pytest session. At the end of the session any
process still carrying it is a leftover: the suite fails, naming it, and it is stopped.
adb servers fork away from their parent, so the marker (not the process tree) is what
tells the suite's own from those of other programs on the machine.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
#: The variable every process started by this session inherits.
SESSION_MARKER = "LATENT_AGENT_TEST_SESSION"
#: Variables that choose the adb server; libraries delete or change them (android_env deletes the port).
ADB_VARIABLES = ("ANDROID_ADB_SERVER_PORT", "ADB_MDNS", "ADB_USB", "ADB_MDNS_OPENSCREEN", "ADB_LIBUSB")
#: How long processes told to stop may take to exit before they count as left running.
GRACE_S = 3.0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _hypothesis_profiles() -> None:
    from hypothesis import settings

    # CI runs the same examples every time (a red run must be reproducible from its log); a developer's
    # run keeps exploring new ones and prints how to reproduce what it finds.
    settings.register_profile("ci", derandomize=True, print_blob=True)
    settings.register_profile("dev", print_blob=True)
    settings.load_profile("ci" if os.environ.get("CI") else "dev")


_hypothesis_profiles()


def pytest_sessionstart(session: pytest.Session) -> None:
    os.environ[SESSION_MARKER] = uuid.uuid4().hex
    # An adb server started by a test without its own port lands on a private one, never on the user's 5037.
    os.environ.setdefault("ANDROID_ADB_SERVER_PORT", str(_free_port()))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the slow work (``PRESTART``, tests/prestart.py) of every module with a selected test, beside the rest."""
    if session.config.option.collectonly:
        return
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None:  # the tmp_path plugin is off: each test starts its work when it needs it
        return
    modules = {id(item.module): item.module for item in session.items if getattr(item, "module", None)}
    for module in modules.values():
        for work in getattr(module, "PRESTART", ()):
            work.start(factory.getbasetemp())


def marked_processes(marker: str) -> dict[int, str]:
    """Processes (other than this one) whose environment carries ``SESSION_MARKER=marker``: pid -> command line."""
    needle = f"{SESSION_MARKER}={marker}".encode()
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace").strip()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if command and state != "Z":
            found[int(entry.name)] = command
    return found


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    marker = os.environ.get(SESSION_MARKER)
    if not marker or not Path("/proc/self/environ").exists():
        return
    deadline = time.monotonic() + GRACE_S
    left = marked_processes(marker)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = marked_processes(marker)
    if not left:
        return
    for pid in left:
        with contextlib.suppress(OSError):  # it may have exited meanwhile
            os.kill(pid, signal.SIGTERM)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [f"  pid {pid}: {command[:200]}" for pid, command in sorted(left.items())]
    message = "processes started by the test suite were still running at its end (now stopped):\n" + "\n".join(lines)
    if reporter is not None:
        reporter.write_line(message, red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def _keep_adb_variables() -> Iterator[None]:
    """Restore the adb variables after every test (android_env's AdbController deletes the port variable)."""
    saved = {name: os.environ.get(name) for name in ADB_VARIABLES}
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def data_dir() -> Path:
    """Folder of test data copied from public sources (see tests/data/SOURCES.md)."""
    return DATA
