"""Noise knobs: the ways a real phone hides or distorts its state (the method's §4, App. B).

The paper names three kinds of noise an agent on a phone must live with;
every kind is a set of knobs here, each off by default, each seeded:

* observation noise - what the agent reads is incomplete or misleading
  (``unlabeled_buttons``, ``behind_dialog``, ``invisible_nodes``, ``image_buttons``): elements missing
  their labels, background content the user cannot see present in the tree, an element's type a poor
  guide to its function;
* action noise - what the phone does is not what the agent commanded
  (``dropped_actions``, ``neighbour_taps``, ``tap_offset_px``, ``wrong_text``);
* environment noise - the phone changes on its own
  (``popup_rate``, ``launch_failure_rate``, ``frozen_screen``/``frozen_steps``,
  ``dynamic_content``).

The knobs change what the agent *observes* or what its actions *do*, never
the task checks: the phone state stays the ground truth. Every decision is
drawn from the phone's seed and the number of the action (or observation) it
concerns, so a noisy run replays exactly, and turning one knob on does not
change the decisions of another. ``docs/noise.md`` documents each knob and the
``paper`` profile.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, fields, replace
from typing import Any

from latent_agent.device.sim.ui import Node, Window, hit
from latent_agent.device.sim.views import FRAME, label
from latent_agent.errors import ConfigError

#: Labels given to decoy nodes that are in the tree (reported visible) but not seen by the user.
DECOYS = ("Advanced options", "Restore defaults", "Developer preview", "Hidden menu", "Sync now")
#: Descriptions decorative images get when ``image_buttons`` is on (apps describe their artwork too).
DECORATIONS = ("Icon", "Image", "Illustration", "Decoration", "Logo")
#: What the transient notifications of ``dynamic_content`` say (one is picked per observation).
NOTIFICATIONS = (
    ("Messages", "Alex: Are we still on for lunch?"),
    ("Photos", "Backup complete: 12 new items"),
    ("Play Store", "3 app updates available"),
    ("Calendar", "Team sync in 15 minutes"),
    ("Gmail", "Your package is out for delivery"),
)
#: Key-neighbours on a QWERTY keyboard, for typos of ``wrong_text``.
_KEYBOARD = ("qwertyuiop", "asdfghjkl", "zxcvbnm")

_PROBABILITIES = ("unlabeled_buttons", "image_buttons", "dropped_actions", "neighbour_taps", "wrong_text",
                  "popup_rate", "launch_failure_rate", "frozen_screen", "dynamic_content")
_COUNTS = ("invisible_nodes", "tap_offset_px", "frozen_steps")


@dataclass(frozen=True, slots=True)
class NoiseConfig:
    """How noisy the simulated phone is.

    Attributes:
        unlabeled_buttons: Probability that an icon button has no content
            description (decided once per label, so it stays unlabeled).
        behind_dialog: While a dialog or menu is open, the dump also holds the
            window behind it, reported visible although the dialog covers it
            (as ``uiautomator`` does on some releases).
        invisible_nodes: Decoy nodes added to each screen that the user cannot see: views
            behind the screen's content (a collapsed panel, a view covered by another), which the
            dump reports ``visible-to-user="true"`` as uiautomator does for covered views, so they
            reach the agent's description; they are not drawn, and a tap on one lands on what is in
            front of it. This is the paper's "background content the user cannot see present in the tree".
        image_buttons: Probability that an icon button is a plain
            ``ImageView`` (decided per label); while on, decorative images carry
            descriptions too, so the element type no longer tells a button
            from artwork.
        dropped_actions: Probability that an action (tap, swipe, key, text,
            app launch) is not performed at all.
        neighbour_taps: Probability that a tap or long press lands on the
            nearest other clickable element instead of the one under the finger.
        tap_offset_px: Taps land this many pixels away from the target, in a
            random direction.
        wrong_text: Probability that typed text arrives with a typo (a key
            neighbour, a dropped, doubled or swapped letter) in the right field.
        popup_rate: Probability that starting an app shows a notification
            permission prompt or a full-screen advert first.
        launch_failure_rate: Probability that starting an app fails with an
            "app keeps stopping" dialog.
        frozen_screen: Probability that an action freezes the display: the
            screen (dump and screenshot) keeps showing what it showed before
            that action for the next ``frozen_steps`` actions, however long
            one waits, while the actions still reach the phone.
        frozen_steps: How many actions a frozen display lasts (>= 1).
        dynamic_content: Probability that an observation shows a transient
            notification over the top of the screen; it is drawn again at
            every observation, so two looks at an unchanged phone can differ.
            A tap on it dismisses it.
    """

    unlabeled_buttons: float = 0.0
    behind_dialog: bool = False
    invisible_nodes: int = 0
    image_buttons: float = 0.0
    dropped_actions: float = 0.0
    neighbour_taps: float = 0.0
    tap_offset_px: int = 0
    wrong_text: float = 0.0
    popup_rate: float = 0.0
    launch_failure_rate: float = 0.0
    frozen_screen: float = 0.0
    frozen_steps: int = 2
    dynamic_content: float = 0.0

    def __post_init__(self) -> None:
        for name in _PROBABILITIES:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
                raise ConfigError(f"noise knob {name} must be a probability between 0 and 1, not {value!r}")
        for name in _COUNTS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"noise knob {name} must be a whole number >= 0, not {value!r}")
        if self.frozen_steps < 1:
            raise ConfigError(f"noise knob frozen_steps must be >= 1, not {self.frozen_steps}")
        if not isinstance(self.behind_dialog, bool):
            raise ConfigError(f"noise knob behind_dialog must be true or false, not {self.behind_dialog!r}")

    @classmethod
    def parse(cls, text: str) -> NoiseConfig:
        """Parse a ``--noise`` value: ``PROFILE``, ``KNOB=LEVEL,...`` or ``PROFILE,KNOB=LEVEL,...``.

        A profile (``none``, ``paper``) sets every knob; the knobs after it
        change single ones. The empty string means ``none``.

        Raises:
            ConfigError: For an unknown profile or knob, a repeated knob, or a
                level that is not a valid value for its knob (one line naming it).
        """
        parts = [p.strip() for p in text.split(",")]
        if parts == [""]:
            return cls()
        base: dict[str, Any] = {}
        seen: set[str] = set()
        kinds = {f.name: f.type for f in fields(cls)}
        for position, part in enumerate(parts):
            if not part:
                raise ConfigError(f"--noise {text!r} has an empty entry; expected PROFILE or KNOB=LEVEL,...")
            name, sep, raw = (s.strip() for s in part.partition("="))
            if not sep:
                if name not in PROFILES:
                    raise ConfigError(f"--noise: unknown profile {name!r}; profiles: {', '.join(PROFILES)} "
                                      "(or give KNOB=LEVEL,...)")
                if position != 0:
                    raise ConfigError(f"--noise: the profile {name!r} must come first (PROFILE,KNOB=LEVEL,...)")
                base = PROFILES[name].levels()
                continue
            if name not in kinds:
                raise ConfigError(f"--noise: unknown knob {name!r}; knobs: {', '.join(kinds)}")
            if name in seen:
                raise ConfigError(f"--noise sets {name} twice")
            seen.add(name)
            base[name] = _level(name, str(kinds[name]), raw)
        return cls(**base)

    def levels(self) -> dict[str, Any]:
        """Every knob and its level, in declaration order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def active(self) -> bool:
        """Whether any knob changes anything."""
        return self.spec != "none"

    @property
    def spec(self) -> str:
        """The canonical ``--noise`` value: the knobs that differ from off, or ``none``.

        It is what trajectories, manifests and results record; :meth:`parse` reads it back.
        """
        off = NoiseConfig()
        changed = [f"{name}={_format(value)}" for name, value in self.levels().items()
                   if value != getattr(off, name) and (name != "frozen_steps" or self.frozen_screen)]
        return ",".join(changed) or "none"

    @property
    def profile(self) -> str | None:
        """The name of the profile these levels are, if any."""
        return next((name for name, levels in PROFILES.items() if levels.spec == self.spec), None)


def _level(name: str, kind: str, raw: str) -> object:
    if kind == "bool":
        if raw.lower() not in ("true", "false", "1", "0", "on", "off"):
            raise ConfigError(f"--noise: {name} needs true or false, not {raw!r}")
        return raw.lower() in ("true", "1", "on")
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(f"--noise: {name} needs a whole number, not {raw!r}") from None
    try:
        return float(raw)
    except ValueError:
        raise ConfigError(f"--noise: {name} needs a probability between 0 and 1, not {raw!r}") from None


def _format(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


#: Named levels for ``--noise PROFILE``. ``paper`` is a realistic mix of every kind the
#: paper names (levels and reasons in docs/noise.md).
PROFILES: dict[str, NoiseConfig] = {
    "none": NoiseConfig(),
    "paper": NoiseConfig(
        unlabeled_buttons=0.1, behind_dialog=True, invisible_nodes=2, image_buttons=0.3,
        dropped_actions=0.03, neighbour_taps=0.03, wrong_text=0.05,
        popup_rate=0.1, launch_failure_rate=0.02, frozen_screen=0.05, frozen_steps=2, dynamic_content=0.05,
    ),
}


def describe_noise(spec: str) -> str:
    """A recorded noise spec for people: ``paper (knob=level,...)``, or the spec itself."""
    if not spec or spec == "none":
        return spec or "none"
    try:
        config = NoiseConfig.parse(spec)
    except ConfigError:
        return spec
    name = config.profile
    return f"{name} ({spec})" if name and name != "none" else spec


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


def confuse_images(window: Window, seed: int, rate: float) -> None:
    """Make icon buttons plain ``ImageView`` s (``rate`` of labels) and describe decorative images."""
    glyphs = 0
    for node in window.root.iter():
        if node.role in ("icon", "fab") and node.clickable and stable_fraction(seed, f"image:{node.desc}") < rate:
            node.cls = "android.widget.ImageView"
        elif node.role == "glyph" and not node.clickable:
            if not node.desc:
                pick = stable_fraction(seed, f"glyph:{window.package}:{glyphs}")
                node.desc = DECORATIONS[int(pick * len(DECORATIONS))]
            glyphs += 1


def with_decoys(window: Window, rng: random.Random, count: int) -> Window:
    """A copy of ``window`` holding ``count`` decoy nodes behind its content, which the user cannot see.

    The decoys are reported visible (a dump does not know they are covered), so the cleaner keeps them
    and they reach the agent; they are first among their siblings (drawn first, under the rest), not
    drawn at all, and take no touches. Only the nodes on the way to the decoys are copied: the window
    the phone keeps (and routes touches through) stays as it was, so observing twice never adds decoys
    twice.
    """
    root = replace(window.root, children=list(window.root.children))
    host = root
    while host.children and len(host.children) == 1:
        child = replace(host.children[0], children=list(host.children[0].children))
        host.children[0] = child
        host = child
    left, top, right, bottom = root.bounds
    decoys: list[Node] = []
    for i in range(count):
        text = DECOYS[(rng.randrange(len(DECOYS)) + i) % len(DECOYS)]
        y = rng.randrange(top, max(top + 1, bottom - 150))
        decoy = Node(
            "android.widget.TextView",
            (left + 44, y, min(right, left + 600), y + 120),
            text=text,
            role="hidden",
            covered=True,
        )
        decoy.clickable = True
        decoys.append(decoy)
    host.children[:0] = decoys
    return replace(window, root=root)


def _centre(node: Node) -> tuple[int, int]:
    left, top, right, bottom = node.bounds
    return (left + right) // 2, (top + bottom) // 2


def nearest_other_target(root: Node, x: int, y: int) -> tuple[int, int] | None:
    """The centre of the clickable element nearest to the one under ``(x, y)`` (None if there is no other).

    The element under the finger, its ancestors and its descendants are not "other": tapping a
    row's switch instead of the row does the same thing.
    """
    path = hit(root, x, y)
    target = next((n for n in reversed(path) if n.on_tap is not None or n.field), None)
    mine = {id(n) for n in path}
    if target is not None:
        mine.update(id(n) for n in target.iter())
    origin = _centre(target) if target is not None else (x, y)
    others = [n for n in root.iter()
              if id(n) not in mine and n.visible and n.enabled and (n.on_tap is not None or n.field)]
    if not others:
        return None
    best = min(others, key=lambda n: (_centre(n)[0] - origin[0]) ** 2 + (_centre(n)[1] - origin[1]) ** 2)
    return _centre(best)


def garble(text: str, rng: random.Random) -> str:
    """``text`` with one typo a thumb makes: a key neighbour, a dropped, doubled or swapped letter.

    Never returns ``text`` itself (text without letters gets a stray letter appended).
    """
    letters = [i for i, c in enumerate(text) if c.isalpha()]
    for _ in range(8):
        if not letters:
            break
        i = rng.choice(letters)
        kind = rng.randrange(4)
        if kind == 0:
            row = next((r for r in _KEYBOARD if text[i].lower() in r), _KEYBOARD[0])
            j = row.find(text[i].lower())
            near = row[j - 1] if j > 0 and (rng.random() < 0.5 or j == len(row) - 1) else row[min(j + 1, len(row) - 1)]
            near = near.upper() if text[i].isupper() else near
            out = text[:i] + near + text[i + 1:]
        elif kind == 1:
            out = text[:i] + text[i + 1:]
        elif kind == 2:
            out = text[:i] + text[i] + text[i:]
        else:
            out = text[:i] + text[i + 1:i + 2] + text[i] + text[i + 2:] if i + 1 < len(text) else text[:i]
        if out != text:
            return out
    return text + "x"


def notification(width: int, top: int, pick: float) -> Window:
    """A heads-up notification over the top of the screen (``pick`` in [0, 1) chooses which)."""
    app, message = NOTIFICATIONS[int(pick * len(NOTIFICATIONS))]
    box = (24, top + 12, width - 24, top + 232)
    rid = "com.android.systemui:id/"
    root = Node(
        FRAME,
        box,
        rid=rid + "notification_headsup",
        role="card",
        children=[
            label((80, top + 40, width - 80, top + 100), app, rid=rid + "app_name_text", size=34),
            label((80, top + 110, width - 80, top + 190), message, rid=rid + "notification_text", fit=False),
        ],
    )
    return Window(root, "com.android.systemui", modal=False)
