"""The simulated phone's state: what tasks query and checks compare against.

The state is a tree of small mutable dataclasses (the phone changes as it is
used); task checks address it with dotted paths such as
``settings.network.roaming`` (see :mod:`latent_agent.device.sim.checks`). Everything the
screens show comes from here, so a screen never disagrees with a check.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

#: The simulated "today". Fixed rather than taken from the host so task goals
#: ("tomorrow", "October 15") mean the same thing on every run.
SIM_DATE = dt.date(2024, 10, 14)


@dataclass(slots=True)
class NetworkState:
    wifi: bool = True
    airplane_mode: bool = False
    mobile_data: bool = True
    roaming: bool = True
    data_saver: bool = False
    hotspot: bool = False
    #: "off", "automatic" or "hostname" (then see ``private_dns_host``).
    private_dns: str = "off"
    private_dns_host: str = ""
    data_used_mb: int = 2310


@dataclass(slots=True)
class ConnectedState:
    bluetooth: bool = True
    nfc: bool = False


@dataclass(slots=True)
class DisplayState:
    dark_theme: bool = False
    #: One of :data:`FONT_SIZES`.
    font_size: str = "Default"
    adaptive_brightness: bool = True
    auto_rotate: bool = False
    brightness: int = 60
    screen_timeout: str = "30 seconds"


FONT_SIZES = ("Small", "Default", "Large", "Largest")


@dataclass(slots=True)
class AccessibilityState:
    color_inversion: bool = False
    color_correction: bool = False
    talkback: bool = False


@dataclass(slots=True)
class NotificationState:
    dots: bool = False
    #: "all", "hide_silent" or "none".
    lock_screen: str = "all"
    snoozing: bool = False


@dataclass(slots=True)
class SettingsState:
    network: NetworkState = field(default_factory=NetworkState)
    connected: ConnectedState = field(default_factory=ConnectedState)
    display: DisplayState = field(default_factory=DisplayState)
    accessibility: AccessibilityState = field(default_factory=AccessibilityState)
    notifications: NotificationState = field(default_factory=NotificationState)
    battery_percentage: bool = False
    battery_saver: bool = False
    location: bool = True
    do_not_disturb: bool = False
    flashlight: bool = False
    battery_level: int = 80


@dataclass(slots=True)
class Alarm:
    id: int
    hour: int
    minute: int
    enabled: bool = True
    days: list[str] = field(default_factory=list)
    sound: str = "Default (Cesium)"
    label: str = ""
    vibrate: bool = True


@dataclass(slots=True)
class Timer:
    #: Length the timer was set to, in seconds.
    duration: int
    #: Seconds left.
    seconds: int
    running: bool = True


@dataclass(slots=True)
class ClockState:
    alarms: list[Alarm] = field(default_factory=list)
    #: "analog" or "digital".
    style: str = "analog"
    snooze_minutes: int = 10
    silence_after_minutes: int = 10
    timers: list[Timer] = field(default_factory=list)
    stopwatch_running: bool = False
    stopwatch_elapsed: int = 0
    stopwatch_laps: list[int] = field(default_factory=list)
    bedtime_enabled: bool = False
    bedtime_hour: int = 22
    bedtime_minute: int = 30
    wake_hour: int = 7
    wake_minute: int = 0
    next_alarm_id: int = 1


@dataclass(slots=True)
class Tab:
    url: str
    title: str
    reloads: int = 0
    #: URLs to return to with Back, most recent last.
    back: list[str] = field(default_factory=list)


@dataclass(slots=True)
class CartItem:
    product: str
    price_cents: int
    quantity: int = 1


@dataclass(slots=True)
class Order:
    number: int
    items: list[CartItem]
    total_cents: int


@dataclass(slots=True)
class ChromeState:
    tabs: list[Tab] = field(default_factory=list)
    current: int = 0
    visited: list[str] = field(default_factory=list)
    cart: list[CartItem] = field(default_factory=list)
    orders: list[Order] = field(default_factory=list)
    shop_searches: list[str] = field(default_factory=list)

    @property
    def current_tab(self) -> Tab:
        return self.tabs[self.current]

    @property
    def current_url(self) -> str:
        return self.tabs[self.current].url if self.tabs else ""

    @property
    def tab_count(self) -> int:
        return len(self.tabs)

    @property
    def cart_count(self) -> int:
        return sum(i.quantity for i in self.cart)

    @property
    def total_reloads(self) -> int:
        return sum(t.reloads for t in self.tabs)

    @property
    def tab_urls(self) -> list[str]:
        return [t.url for t in self.tabs]

    @property
    def ordered_products(self) -> list[str]:
        return [item.product for order in self.orders for item in order.items]


@dataclass(slots=True)
class StoreState:
    #: Packages installed from the store, in install order.
    installed: list[str] = field(default_factory=list)
    searches: list[str] = field(default_factory=list)


@dataclass(slots=True)
class FileEntry:
    #: Full path below the storage root, e.g. ``Download/report.pdf``.
    path: str
    is_dir: bool
    size_kb: int = 0

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def parent(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else ""


@dataclass(slots=True)
class FilesState:
    entries: list[FileEntry] = field(default_factory=list)

    def children(self, folder: str) -> list[FileEntry]:
        found = [e for e in self.entries if e.parent == folder]
        return sorted(found, key=lambda e: (not e.is_dir, e.name.lower()))


@dataclass(slots=True)
class CalendarEntry:
    #: "event" or "task".
    kind: str
    title: str
    description: str = ""
    #: ISO date, e.g. ``2024-10-15``.
    date: str = ""
    all_day: bool = False
    hour: int = 9
    minute: int = 0


@dataclass(slots=True)
class CalendarState:
    entries: list[CalendarEntry] = field(default_factory=list)


@dataclass(slots=True)
class History:
    """What the user did: the basis of partial-completion checks.

    Attributes:
        packages: Packages in the order they came to the foreground.
        pages: ``package/page`` (``package/page:arg`` for pages with an argument,
            such as a Clock tab or a Files folder) for every screen shown, in order.
    """

    packages: list[str] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)


@dataclass(slots=True)
class PhoneState:
    settings: SettingsState = field(default_factory=SettingsState)
    clock: ClockState = field(default_factory=ClockState)
    chrome: ChromeState = field(default_factory=ChromeState)
    store: StoreState = field(default_factory=StoreState)
    files: FilesState = field(default_factory=FilesState)
    calendar: CalendarState = field(default_factory=CalendarState)
    history: History = field(default_factory=History)
    #: Minutes since midnight on the simulated clock.
    minutes: int = 9 * 60
    date: str = SIM_DATE.isoformat()


_FOLDERS = (
    "Alarms",
    "Audiobooks",
    "DCIM",
    "Documents",
    "Download",
    "Movies",
    "Music",
    "Notifications",
    "Pictures",
    "Podcasts",
    "Recordings",
    "Ringtones",
)
_FILES = (
    ("Download/boarding_pass.pdf", 212),
    ("Download/invoice_0923.pdf", 88),
    ("Documents/notes.txt", 4),
    ("Documents/Resume.docx", 36),
    ("Pictures/IMG_20241012_101500.jpg", 2310),
    ("Music/Morning playlist.m3u", 2),
)


def initial_state(seed: int) -> PhoneState:
    """The phone as it is after a factory reset plus a little personal data.

    The seed changes only what no task depends on (the time of day, the
    battery level, data used), so every task's checks start out failing on
    every seed.
    """
    rng = random.Random(seed)
    state = PhoneState()
    state.minutes = 8 * 60 + rng.randrange(0, 180)
    state.settings.battery_level = rng.randrange(35, 100)
    state.settings.network.data_used_mb = rng.randrange(800, 4800)
    state.clock.alarms = [
        Alarm(id=1, hour=7, minute=0, days=["Mon", "Tue", "Wed", "Thu", "Fri"]),
        Alarm(id=2, hour=9, minute=30, enabled=False, days=["Sat", "Sun"]),
    ]
    state.clock.next_alarm_id = 3
    state.chrome.tabs = [Tab(url="chrome://newtab", title="New tab")]
    state.chrome.cart = [CartItem("USB-C charger", 1999), CartItem("Phone case", 1499)]
    state.files.entries = [FileEntry(name, True) for name in _FOLDERS]
    state.files.entries += [FileEntry(path, False, size) for path, size in _FILES]
    state.calendar.entries = [
        CalendarEntry("event", "Team meeting", "Weekly sync", "2024-10-14", hour=10, minute=0),
        CalendarEntry("event", "Dentist", "", "2024-10-16", hour=15, minute=0),
        CalendarEntry("task", "Pay rent", "", "2024-10-15", all_day=True),
    ]
    return state


def get_path(state: object, path: str) -> object:
    """The value at a dotted ``path`` (``settings.network.roaming``).

    Raises:
        KeyError: If a part of the path names no field or property.
    """
    value = state
    for part in path.split("."):
        if part.startswith("_") or not hasattr(value, part):
            raise KeyError(f"state has no field {part!r} (in path {path!r})")
        value = getattr(value, part)
    return value


def set_path(state: object, path: str, value: object) -> None:
    """Set the field at a dotted ``path``.

    Raises:
        KeyError: If a part of the path names no field.
    """
    head, _, last = path.rpartition(".")
    target = get_path(state, head) if head else state
    if last.startswith("_") or not hasattr(target, last):
        raise KeyError(f"state has no field {last!r} (in path {path!r})")
    setattr(target, last, value)
