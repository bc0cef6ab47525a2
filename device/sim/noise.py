"""Noise knobs: the ways a real phone hides or distorts its state.

Every knob is off by default and seeded, so a noisy run is as reproducible
as a clean one. They change what the agent *observes* (or where its touches
land), never the task checks: the phone state stays the ground truth.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, fields

from device.sim.ui import Node, Window
from latent_agent.errors import ConfigError

#: Labels given to decoy nodes that are in the tree but not visible to the user.
DECOYS = ("Advanced options", "Restore defaults", "Developer preview", "Hidden menu", "Sync now")


@dataclass(frozen=True, slots=True)
class NoiseConfig:
    """How noisy the simulated phone is.

    Attributes:
        invisible_nodes: Decoy nodes marked ``visible-to-user="false"`` added to
            each screen (like views hidden with ``INVISIBLE`` or scrolled into a
            collapsed panel).
        behind_dialog: While a dialog or menu is open, the dump also holds the
            window behind it, as ``uiautomator`` does on some releases.
        unlabeled_buttons: Probability that an icon button loses its content
            description (decided once per button label, so it stays unlabeled).
        popup_rate: Probability that launching an app shows a permission
            dialog or an advertisement first.
        delay_observations: After an action, this many observations still show
            the previous screen (until :meth:`wait_for_idle`).
        tap_offset_px: Taps land this many pixels away from the target in a
            random direction.
        launch_failure_rate: Probability that starting an app fails with an
            "app keeps stopping" dialog.
    """

    invisible_nodes: int = 0
    behind_dialog: bool = False
    unlabeled_buttons: float = 0.0
    popup_rate: float = 0.0
    delay_observations: int = 0
    tap_offset_px: int = 0
    launch_failure_rate: float = 0.0

    def __post_init__(self) -> None:
        for name in ("unlabeled_buttons", "popup_rate", "launch_failure_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"noise {name} must be a probability in [0, 1], got {value}")
        for name in ("invisible_nodes", "delay_observations", "tap_offset_px"):
            if getattr(self, name) < 0:
                raise ConfigError(f"noise {name} must be >= 0, got {getattr(self, name)}")

    @classmethod
    def parse(cls, spec: str) -> NoiseConfig:
        """Parse ``"tap_offset_px=20,popup_rate=0.3"`` (empty means no noise).

        Raises:
            ConfigError: For an unknown knob or a value of the wrong type.
        """
        known = {f.name: f.type for f in fields(cls)}
        values: dict[str, object] = {}
        for part in filter(None, (p.strip() for p in spec.split(","))):
            name, sep, raw = part.partition("=")
            name = name.strip()
            if not sep or name not in known:
                raise ConfigError(f"bad noise setting {part!r}; knobs: {', '.join(known)}")
            kind = known[name]
            try:
                if kind == "bool":
                    if raw.strip().lower() not in ("true", "false", "1", "0"):
                        raise ValueError(raw)
                    values[name] = raw.strip().lower() in ("true", "1")
                elif kind == "int":
                    values[name] = int(raw)
                else:
                    values[name] = float(raw)
            except ValueError:
                raise ConfigError(f"noise {name} needs a {kind} value, got {raw!r}") from None
        return cls(**values)  # type: ignore[arg-type]

    @property
    def active(self) -> bool:
        return self != NoiseConfig()


def stable_fraction(seed: int, text: str) -> float:
    """A number in [0, 1) fixed by ``seed`` and ``text`` (not by call order)."""
    return (zlib.crc32(f"{seed}:{text}".encode()) & 0xFFFFFFFF) / 2**32


def strip_labels(window: Window, seed: int, rate: float) -> None:
    """Remove content descriptions from icon buttons (``rate`` of distinct labels)."""
    for node in window.root.iter():
        if (
            node.desc
            and not node.text
            and node.role in ("icon", "fab")
            and stable_fraction(seed, node.desc) < rate
        ):
            node.desc = ""


def add_invisible(window: Window, rng: random.Random, count: int) -> None:
    """Add ``count`` decoy nodes that are in the tree but not visible to the user."""
    root = window.root
    left, top, right, bottom = root.bounds
    host = root
    while host.children and len(host.children) == 1:
        host = host.children[0]
    for i in range(count):
        text = DECOYS[(rng.randrange(len(DECOYS)) + i) % len(DECOYS)]
        y = rng.randrange(top, max(top + 1, bottom - 150))
        decoy = Node(
            "android.widget.TextView",
            (left + 44, y, min(right, left + 600), y + 120),
            text=text,
            visible=False,
            role="hidden",
        )
        decoy.clickable = True
        host.children.append(decoy)
