"""``AndroidEnvDevice``: an emulator driven through DeepMind's android_env.

android_env launches the emulator from an AVD and talks to it over gRPC: the
screen comes back as pixels, touches go in as normalized ``(x, y)`` positions,
and ``A11yGrpcWrapper`` forwards the accessibility forest (parsed by
:func:`latent_agent.accessibility.parse_androidenv.parse_forest`). Keys, text, app launches
and the launcher query go through adb to the same emulator (an
:class:`~latent_agent.device.adb.AdbDevice`, forwarded by
:class:`~latent_agent.device.adb_backed.AdbBackedDevice`), since android_env's action space has touches only.

Set-up for a real emulator: docs/devices.md.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from latent_agent.accessibility.parse_androidenv import parse_forest
from latent_agent.accessibility.tree import ScreenSize
from latent_agent.device.adb import AdbDevice
from latent_agent.device.adb_backed import AdbBackedDevice
from latent_agent.device.adb_phone import AdbPhone
from latent_agent.device.base import DeviceCapabilities, Hierarchy, Key
from latent_agent.device.deadline import call_with_deadline
from latent_agent.errors import ConfigError, DeviceError

#: Version of the JSON config file :meth:`AndroidEnvDevice.from_config_file` reads.
CONFIG_SCHEMA_VERSION = 1
#: Touch samples per swipe (android_env moves the finger between consecutive steps).
SWIPE_STEPS = 10


@dataclass(frozen=True, slots=True)
class AndroidEnvSettings:
    """Where the emulator and SDK live; the JSON config file holds these keys plus ``schema_version``.

    Attributes:
        avd_name: Name of the AVD to boot (``avdmanager list avd``).
        task_path: android_env task textproto (its setup steps and reset behaviour).
        android_sdk_root: SDK root.
        emulator_path: The ``emulator`` binary.
        adb_path: The ``adb`` binary.
        android_avd_home: Directory holding the AVDs.
        adb_serial: Serial of the emulator for the adb-side calls.
        run_headless: Boot without a window.
        a11y_timeout: Seconds to wait for the accessibility forest after an action.
    """

    avd_name: str
    task_path: str
    android_sdk_root: str = "~/Android/Sdk"
    emulator_path: str = "~/Android/Sdk/emulator/emulator"
    adb_path: str = "~/Android/Sdk/platform-tools/adb"
    android_avd_home: str = "~/.android/avd"
    adb_serial: str = "emulator-5554"
    run_headless: bool = True
    a11y_timeout: float = 1.0

    @classmethod
    def from_file(cls, path: str | Path) -> AndroidEnvSettings:
        """Read a config file.

        Raises:
            ConfigError: If it is missing, not JSON, of another schema version or has unknown keys.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"androidenv config {path}: {exc}") from None
        if not isinstance(data, dict) or data.get("schema_version") != CONFIG_SCHEMA_VERSION:
            raise ConfigError(f"androidenv config {path}: expected an object with "
                              f"schema_version {CONFIG_SCHEMA_VERSION}")
        data.pop("schema_version")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"androidenv config {path}: unknown keys {unknown}; known: {sorted(known)}")
        try:
            return cls(**data)
        except TypeError as exc:
            raise ConfigError(f"androidenv config {path}: {exc}") from None


def build_env_config(settings: AndroidEnvSettings) -> Any:
    """The ``android_env`` config dataclass for booting ``settings.avd_name``."""
    from android_env.components import config_classes as cc

    return cc.AndroidEnvConfig(
        task=cc.FilesystemTaskConfig(path=settings.task_path),
        simulator=cc.EmulatorConfig(
            emulator_launcher=cc.EmulatorLauncherConfig(
                emulator_path=settings.emulator_path, android_sdk_root=settings.android_sdk_root,
                android_avd_home=settings.android_avd_home, avd_name=settings.avd_name,
                run_headless=settings.run_headless),
            # From the environment, as AdbDevice takes it: android_env would otherwise delete
            # ANDROID_ADB_SERVER_PORT from this process and use 5037, another server than ours.
            adb_controller=cc.AdbControllerConfig(adb_path=settings.adb_path, use_adb_server_port_from_os_env=True),
        ),
    )


class AndroidEnvDevice(AdbBackedDevice):
    """A device behind an android_env environment.

    Args:
        env: An android_env environment (``A11yGrpcWrapper``-wrapped for :meth:`hierarchy`).
        adb: The device used for keys, text and apps (the same emulator through adb).
        a11y_timeout: Seconds to wait for a fresh accessibility forest.
        step_timeout: Seconds one environment step (or the first reset) may take.

    Raises:
        DeviceTimeoutError: If the environment does not answer a step in time.
    """

    capabilities = DeviceCapabilities(remote=True)

    def __init__(self, env: Any, adb: AdbPhone, *, a11y_timeout: float = 1.0, step_timeout: float = 60.0) -> None:
        if step_timeout <= 0:
            raise DeviceError(f"step_timeout must be positive, got {step_timeout}")
        super().__init__(adb)
        self.env = env
        self.a11y_timeout = a11y_timeout
        self.step_timeout = step_timeout
        self._timestep = self._bounded("reset", env.reset)

    def _bounded(self, what: str, call: Callable[[], Any]) -> Any:
        def translated() -> Any:
            try:
                return call()
            except DeviceError:
                raise
            except Exception as exc:  # android_env raises plain errors from many layers
                raise DeviceError(f"android_env {what} failed: {exc}") from exc

        return call_with_deadline(f"android_env {what}", translated, self.step_timeout)

    @classmethod
    def from_config_file(cls, path: str) -> AndroidEnvDevice:
        """Boot the emulator a config file describes (see docs/devices.md)."""
        settings = AndroidEnvSettings.from_file(path)
        from android_env import loader
        from android_env.wrappers.a11y_grpc_wrapper import A11yGrpcWrapper

        try:
            env = loader.load(build_env_config(settings))
            env = A11yGrpcWrapper(env, install_a11y_forwarding=True, enable_a11y_tree_info=True,
                                  add_latest_a11y_info_to_obs=True, a11y_info_timeout=settings.a11y_timeout)
        except Exception as exc:  # android_env raises plain errors from many layers
            raise DeviceError(f"android_env could not start AVD {settings.avd_name!r}: {exc}") from exc
        return cls(env, AdbDevice(settings.adb_serial), a11y_timeout=settings.a11y_timeout)

    # -- env steps -------------------------------------------------------------------

    def _step(self, action_type: str, x: float = 0.0, y: float = 0.0) -> Any:
        from android_env.components.action_type import ActionType

        spec = self.env.action_spec()
        action = {"action_type": np.array(ActionType[action_type], dtype=spec["action_type"].dtype)}
        if action_type != "REPEAT":
            action["touch_position"] = np.array([x, y], dtype=spec["touch_position"].dtype)
        self._timestep = self._bounded(f"step {action_type}", lambda: self.env.step(action))
        return self._timestep

    def _normalized(self, x: int, y: int) -> tuple[float, float]:
        size = self.screen_size()
        if not (0 <= x < size.width and 0 <= y < size.height):
            raise DeviceError(f"point ({x}, {y}) is outside the {size.width}x{size.height} screen")
        return x / size.width, y / size.height

    # -- observation -------------------------------------------------------------------

    def screen_size(self) -> ScreenSize:
        height, width = self._timestep.observation["pixels"].shape[:2]
        return ScreenSize(int(width), int(height))

    def screenshot(self) -> bytes:
        pixels = self._step("REPEAT").observation["pixels"]
        buf = io.BytesIO()
        Image.fromarray(pixels).save(buf, format="PNG")
        return buf.getvalue()

    def hierarchy(self) -> Hierarchy:
        forest = self._step("REPEAT").observation.get("a11y_forest")
        if forest is None:
            raise DeviceError("android_env gave no accessibility forest; the env must be wrapped in "
                              "A11yGrpcWrapper(add_latest_a11y_info_to_obs=True), forwarder installed")
        raw = forest.SerializeToString()
        return Hierarchy(raw=raw, format="androidenv", tree=parse_forest(forest, source="androidenv"))

    def wait_for_idle(self, timeout: float = 2.0) -> None:
        if timeout < 0:
            raise DeviceError(f"wait_for_idle timeout must be >= 0, got {timeout}")
        time.sleep(min(timeout, self.a11y_timeout))

    # -- actions ----------------------------------------------------------------------

    def tap(self, x: int, y: int) -> None:
        nx, ny = self._normalized(x, y)
        self._step("TOUCH", nx, ny)
        self._step("LIFT", nx, ny)

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        nx, ny = self._normalized(x, y)
        self._step("TOUCH", nx, ny)
        time.sleep(duration_ms / 1000)
        self._step("TOUCH", nx, ny)
        self._step("LIFT", nx, ny)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        size = self.screen_size()
        ax, ay = self._normalized(x1, y1)
        bx = min(max(x2, 0), size.width - 1) / size.width
        by = min(max(y2, 0), size.height - 1) / size.height
        for i in range(SWIPE_STEPS + 1):
            t = i / SWIPE_STEPS
            self._step("TOUCH", ax + (bx - ax) * t, ay + (by - ay) * t)
            time.sleep(duration_ms / 1000 / SWIPE_STEPS)
        self._step("LIFT", bx, by)

    def press_key(self, key: Key) -> None:
        self.adb.press_key(key)

    def input_text(self, text: str) -> None:
        self.adb.input_text(text)

    def reset(self, *, seed: int | None = None, opened: Iterable[str] = (), snapshot: str | None = None,
              trial: int = 0) -> str:
        """Reset the environment (``env.reset``: android_env restarts its task, as its config says).

        Args:
            seed: Ignored: the environment's start state is its task's, not a seed.
            opened: Ignored: the environment's reset restarts the task's apps itself.
            trial: Ignored: the emulator's faults are its own, not drawn per trial.
            snapshot: Refused: android_env manages the emulator's snapshots itself.

        Raises:
            ConfigError: If a snapshot is asked for.
            DeviceError: If the environment fails or does not answer in time.
        """
        if snapshot:
            raise ConfigError(f"--snapshot {snapshot!r}: an AndroidEnv device is reset by its environment "
                              "(env.reset), which manages the emulator's snapshots itself")
        self._timestep = self._bounded("reset", self.env.reset)
        return "the AndroidEnv environment reset (env.reset)"

    def close(self) -> None:
        try:
            self.env.close()
        finally:
            super().close()
