"""One check per noise knob, run on the SimDevice itself and through AdbDevice against the served sim.

Each check gets ``make(seed, noise)``, which returns the device the agent would use and the
simulated phone behind it (the ground truth); it shows the knob's effect through the device
only, so the same check proves that the noise lives in the phone, not in the client.
"""

from __future__ import annotations

import io
from collections.abc import Callable

from PIL import Image
from rapidfuzz.distance import Levenshtein

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.benchmarks.steps import find_element
from latent_agent.device.base import Device, Key
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import DECOYS, NoiseConfig

Make = Callable[[int, NoiseConfig], tuple[Device, SimDevice]]
LAUNCHER = "com.google.android.apps.nexuslauncher"
CLOCK = "com.google.android.deskclock"


def labels(dev: Device) -> set[str]:
    return {n.text or n.content_desc for n in dev.hierarchy().tree.iter()} - {""}


def tap_on(dev: Device, label: str) -> None:
    node = find_element(dev, label)
    assert node.bounds is not None
    dev.tap(*node.bounds.center)


def check_unlabeled_buttons(make: Make) -> None:
    quiet, _ = make(5, NoiseConfig())
    noisy, _ = make(5, NoiseConfig(unlabeled_buttons=1.0))
    for dev in (quiet, noisy):
        dev.open_app("Clock")
    icons = {"More options", "Add alarm", "Expand alarm"}
    assert icons <= labels(quiet)
    assert not icons & labels(noisy)
    buttons = [n for n in noisy.hierarchy().tree.iter() if n.class_name.endswith("ImageButton")]
    assert buttons and all(not n.content_desc for n in buttons)


def check_behind_dialog(make: Make) -> None:
    quiet, _ = make(0, NoiseConfig())
    noisy, sim = make(0, NoiseConfig(behind_dialog=True))
    for dev in (quiet, noisy):
        dev.open_app("Settings")
        tap_on(dev, "Network & internet")
        tap_on(dev, "Private DNS")
    assert "Airplane mode" not in labels(quiet)
    tree = noisy.hierarchy().tree
    assert len(tree.roots) == 2
    # The content behind the dialog is in the tree and reported visible, though the user cannot see it ...
    row = next(n for n in tree.roots[0].iter() if n.text == "Airplane mode")
    assert row.visible is True and {"Private DNS", "Save"} <= labels(noisy)
    # ... nor reach it: a tap there hits the dialog's scrim.
    assert row.bounds is not None
    noisy.tap(*row.bounds.center)
    assert sim.state.settings.network.airplane_mode is False


def check_invisible_nodes(make: Make) -> None:
    quiet, quiet_sim = make(1, NoiseConfig())
    dev, sim = make(1, NoiseConfig(invisible_nodes=3))
    for phone in (quiet, dev):
        phone.open_app("Settings")
    tree = dev.hierarchy().tree
    decoys = [n for n in tree.iter() if n.text in DECOYS]
    # Background content the user cannot see, present in the tree: reported visible, so the cleaner keeps
    # it and the agent's description shows it (the method's observation noise) ...
    assert len(decoys) == 3 and all(n.visible is True for n in decoys)
    assert not any(n.text in DECOYS for n in quiet.hierarchy().tree.iter())
    assert all(f'"{n.text}"' in describe(clean_tree(tree)) for n in decoys)
    assert dev.hierarchy().raw == dev.hierarchy().raw  # decoys are not added again by a second look
    # ... but not seen by the user (the screen is drawn as without them), and a tap on one lands on what is
    # in front of it, as on the quiet phone.
    assert dev.screenshot() == quiet.screenshot()
    assert decoys[0].bounds is not None
    for phone in (quiet, dev):
        phone.tap(*decoys[0].bounds.center)
    assert sim.state.history.pages == quiet_sim.state.history.pages


def check_image_buttons(make: Make) -> None:
    quiet, quiet_sim = make(1, NoiseConfig())
    noisy, noisy_sim = make(1, NoiseConfig(image_buttons=1.0))
    for dev in (quiet, noisy):
        dev.open_app("Clock")
    quiet_classes = {n.content_desc: n.class_name for n in quiet.hierarchy().tree.iter()}
    assert quiet_classes["Expand alarm"] == "android.widget.ImageButton"
    assert quiet_classes["Add alarm"] == "android.widget.Button"
    images = [n for n in noisy.hierarchy().tree.iter() if n.class_name == "android.widget.ImageView"]
    buttons = {n.content_desc for n in images if n.clickable}
    artwork = [n for n in images if not n.clickable and n.content_desc]
    # The same class and a description for both: the type no longer tells a button from decoration.
    assert {"Add alarm", "Expand alarm", "More options"} <= buttons and artwork
    for dev in (quiet, noisy):
        tap_on(dev, "Add alarm")  # still a button, doing what it did
    assert noisy_sim.state.history.pages == quiet_sim.state.history.pages
    assert noisy_sim.state.history.pages[-1] != f"{CLOCK}/alarms"


def check_dropped_actions(make: Make) -> None:
    dev, sim = make(2, NoiseConfig(dropped_actions=1.0))
    home = dev.hierarchy().raw
    dev.open_app("Clock")
    dev.launch_activity("quick_settings")
    dev.press_key(Key.APP_SWITCH)
    dev.tap(540, 1200)
    assert dev.foreground_package() == LAUNCHER and dev.hierarchy().raw == home
    assert sim.state.history.packages == []
    outcomes = []
    for _ in range(2):
        half, half_sim = make(0, NoiseConfig(dropped_actions=0.5))
        for _ in range(12):
            half.press_key(Key.HOME)
            half.open_app("Clock")
        outcomes.append(len(half_sim.state.history.packages))
    assert outcomes[0] == outcomes[1] and 2 <= outcomes[0] <= 10  # seeded: the same seed drops the same actions


def check_neighbour_taps(make: Make) -> None:
    exact, exact_sim = make(1, NoiseConfig())
    noisy, noisy_sim = make(1, NoiseConfig(neighbour_taps=1.0))
    for dev in (exact, noisy):
        dev.open_app("Settings")
        tap_on(dev, "Battery")
    assert exact_sim.state.history.pages[-1] == "com.android.settings/battery"
    landed = noisy_sim.state.history.pages[-1]
    # Not a miss into nothing: the row next to Battery opened instead.
    assert landed.startswith("com.android.settings/") and landed not in ("com.android.settings/battery",
                                                                          "com.android.settings/main")


def check_tap_offset_px(make: Make) -> None:
    exact, exact_sim = make(0, NoiseConfig())
    off, off_sim = make(0, NoiseConfig(tap_offset_px=400))
    for dev in (exact, off):
        dev.open_app("Settings")
        tap_on(dev, "Battery")
    assert exact_sim.state.history.pages[-1] == "com.android.settings/battery"
    assert off_sim.state.history.pages[-1] != "com.android.settings/battery"


def check_wrong_text(make: Make) -> None:
    typed = {}
    for level in (0.0, 1.0):
        dev, sim = make(1, NoiseConfig(wrong_text=level))
        dev.open_app("Play Store")
        tap_on(dev, "Search apps & games")
        dev.input_text("spotify")
        typed[level] = sim.phone.field_text("com.android.vending/search")
        assert typed[level] in labels(dev)  # the right field shows it
    assert typed[0.0] == "spotify"
    # One slip of the thumb: a neighbouring key, a dropped, doubled or swapped letter.
    assert typed[1.0] != "spotify" and Levenshtein.distance(typed[1.0], "spotify") <= 2


def check_popup_rate(make: Make) -> None:
    dev, _ = make(3, NoiseConfig(popup_rate=1.0))
    for app in ("Settings", "Clock", "Chrome", "Files"):
        dev.open_app(app)
        texts = labels(dev)
        assert "Close ad" in texts or any(t.startswith("Allow ") for t in texts), texts
        dev.press_key(Key.BACK)
        assert "Close ad" not in labels(dev)
    blocked, blocked_sim = make(3, NoiseConfig(popup_rate=1.0))
    blocked.open_app("Clock")
    enabled = blocked_sim.state.clock.alarms[0].enabled
    blocked.tap(540, 1200)  # lands on the popup, not on the app
    assert blocked_sim.state.clock.alarms[0].enabled == enabled


def check_launch_failure_rate(make: Make) -> None:
    dev, _ = make(9, NoiseConfig(launch_failure_rate=1.0))
    dev.open_app("Clock")
    assert dev.foreground_package() == "android"
    assert "Clock keeps stopping" in labels(dev)
    tap_on(dev, "Close app")
    assert dev.foreground_package() == LAUNCHER


def check_frozen_screen(make: Make) -> None:
    dev, sim = make(0, NoiseConfig(frozen_screen=1.0, frozen_steps=2))
    home = dev.hierarchy().raw
    dev.open_app("Clock")  # freezes the display on the home screen ...
    dev.wait_for_idle()
    assert dev.hierarchy().raw == home and dev.hierarchy().raw == home  # ... and waiting does not thaw it,
    assert sim.state.history.packages == [CLOCK]  # though the app did start
    dev.press_key(Key.BACK)  # one more action: still frozen (it lasts frozen_steps actions)
    dev.wait_for_idle()
    assert dev.hierarchy().raw == home
    dev.open_app("Clock")  # the second action after the freeze: the display shows the phone again
    dev.wait_for_idle()
    assert CLOCK.encode() in dev.hierarchy().raw


def check_dynamic_content(make: Make) -> None:
    dev, _ = make(1, NoiseConfig(dynamic_content=0.5))
    dev.open_app("Settings")
    looks = [b"notification_headsup" in dev.hierarchy().raw for _ in range(12)]
    assert any(looks) and not all(looks)  # the phone did nothing, yet the screen changed between looks
    always, always_sim = make(1, NoiseConfig(dynamic_content=1.0))
    always.open_app("Settings")
    banner = next(n for n in always.hierarchy().tree.iter() if n.resource_id.endswith("notification_headsup"))
    assert banner.bounds is not None
    pages = list(always_sim.state.history.pages)
    always.tap(*banner.bounds.center)  # the notification takes the touch; the app below gets nothing
    assert always_sim.state.history.pages == pages


def check_screenshot_follows_the_dump(make: Make) -> None:
    """A frozen display freezes the screenshot too (the agent cannot see through it)."""
    dev, _ = make(0, NoiseConfig(frozen_screen=1.0))
    before = Image.open(io.BytesIO(dev.screenshot())).convert("RGB").tobytes()
    dev.open_app("Clock")
    dev.wait_for_idle()
    assert Image.open(io.BytesIO(dev.screenshot())).convert("RGB").tobytes() == before


#: Every knob's check (``frozen_steps`` is shown by ``frozen_screen``).
CHECKS: dict[str, Callable[[Make], None]] = {
    "unlabeled_buttons": check_unlabeled_buttons,
    "behind_dialog": check_behind_dialog,
    "invisible_nodes": check_invisible_nodes,
    "image_buttons": check_image_buttons,
    "dropped_actions": check_dropped_actions,
    "neighbour_taps": check_neighbour_taps,
    "tap_offset_px": check_tap_offset_px,
    "wrong_text": check_wrong_text,
    "popup_rate": check_popup_rate,
    "launch_failure_rate": check_launch_failure_rate,
    "frozen_screen": check_frozen_screen,
    "dynamic_content": check_dynamic_content,
}
