"""The Settings app's pages as data: what each screen lists and what it controls.

Entries address the phone state through dotted paths (``settings.network.roaming``)
so that the screens, the search index and the task checks share one vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

from latent_agent.device.sim.state import FONT_SIZES


@dataclass(frozen=True, slots=True)
class Link:
    """A row that opens another page; ``summary_path`` shows a state value instead of ``summary``."""

    title: str
    target: str
    summary: str = ""
    summary_path: str = ""


@dataclass(frozen=True, slots=True)
class Toggle:
    """A row with a switch bound to a boolean in the state."""

    title: str
    path: str
    summary: str = ""


@dataclass(frozen=True, slots=True)
class Choice:
    """A row whose summary is the current option; tapping opens a single-choice dialog.

    ``options`` pairs the label shown with the value stored at ``path``.
    """

    title: str
    path: str
    options: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Stepper:
    """A value picked from ``options`` with smaller/bigger buttons and a slider (font size)."""

    title: str
    path: str
    options: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Info:
    """A row that only shows information."""

    title: str
    summary: str = ""
    summary_path: str = ""


@dataclass(frozen=True, slots=True)
class Header:
    title: str


Entry = Link | Toggle | Choice | Stepper | Info | Header

ON_OFF = "on_off"
LOCK_SCREEN = (
    ("Show conversations, default, and silent", "all"),
    ("Hide silent conversations and notifications", "hide_silent"),
    ("Don't show any notifications", "none"),
)
TIMEOUTS = tuple(
    (t, t) for t in ("15 seconds", "30 seconds", "1 minute", "2 minutes", "5 minutes", "10 minutes")
)

#: Top-level entries of the Settings home screen: title, summary, page.
HOME: tuple[tuple[str, str, str], ...] = (
    ("Network & internet", "Mobile, Wi‑Fi, hotspot", "network"),
    ("Connected devices", "Bluetooth, pairing", "connected"),
    ("Apps", "Assistant, recent apps, default apps", "apps"),
    ("Notifications", "Notification history, conversations", "notifications"),
    ("Battery", "", "battery"),
    ("Storage", "37% used - 80.53 GB free", "storage"),
    ("Sound & vibration", "Volume, haptics, Do Not Disturb", "sound"),
    ("Display", "Dark theme, font size, brightness", "display"),
    ("Wallpaper & style", "Colors, themed icons, app grid", "wallpaper"),
    ("Accessibility", "Display, interaction, audio", "accessibility"),
    ("Security & privacy", "App security, device lock, permissions", "security"),
    ("Location", "On - 3 apps have access to location", "location"),
    ("Safety & emergency", "Emergency SOS, medical info, alerts", "safety"),
    ("Passwords & accounts", "Saved passwords, autofill, synced accounts", "accounts"),
    ("Digital Wellbeing & parental controls", "Screen time, app timers, bedtime schedules", "wellbeing"),
    ("Google", "Services & preferences", "google"),
    ("System", "Languages, gestures, time, backup", "system"),
    ("About phone", "Pixel 7", "about"),
    ("Tips & support", "Help articles, phone & chat", "tips"),
)

PAGES: dict[str, tuple[str, tuple[Entry, ...]]] = {
    "network": (
        "Network & internet",
        (
            Link("Internet", "internet", summary="AndroidWifi"),
            Link("Calls & SMS", "calls", summary="T-Mobile"),
            Link("SIMs", "sims", summary="T-Mobile"),
            Toggle("Airplane mode", "settings.network.airplane_mode"),
            Link("Hotspot & tethering", "hotspot", summary_path="settings.network.hotspot"),
            Link("Data Saver", "data_saver", summary_path="settings.network.data_saver"),
            Link("VPN", "vpn", summary="None"),
            Choice(
                "Private DNS",
                "settings.network.private_dns",
                (("Off", "off"), ("Automatic", "automatic"), ("Private DNS provider hostname", "hostname")),
            ),
            Link("Adaptive connectivity", "adaptive", summary="On"),
        ),
    ),
    "internet": (
        "Internet",
        (
            Toggle("Wi‑Fi", "settings.network.wifi"),
            Info("AndroidWifi", "Connected"),
            Info("T-Mobile", "Connected / 5G"),
            Link("Network preferences", "network_prefs", summary="Wi‑Fi turns back on automatically"),
            Link("Saved networks", "saved_networks", summary="1 network"),
        ),
    ),
    "network_prefs": (
        "Network preferences",
        (
            Info("Turn on Wi‑Fi automatically", "Wi‑Fi will turn back on near high-quality saved networks"),
            Info("Notify for public networks", "Off"),
        ),
    ),
    "saved_networks": ("Saved networks", (Info("AndroidWifi", "Saved"),)),
    "calls": ("Calls & SMS", (Info("Calls", "T-Mobile"), Info("SMS", "T-Mobile"))),
    "sims": (
        "T-Mobile",
        (
            Toggle("Use SIM", "settings.network.mobile_data", summary="Turn off to disable this SIM"),
            Toggle("Mobile data", "settings.network.mobile_data", summary="Access data using mobile network"),
            Toggle("Roaming", "settings.network.roaming", summary="Connect to data services when roaming"),
            Link("App data usage", "data_usage", summary_path="settings.network.data_used_mb"),
            Link("Data warning & limit", "data_warning"),
            Info("Preferred network type", "5G (recommended)"),
            Info("Wi‑Fi calling", "Off"),
            Info("Calls preference", "T-Mobile"),
            Info("SMS preference", "T-Mobile"),
            Info("Automatically select network", "On"),
            Info("Access Point Names", ""),
            Info("Carrier video calling", "Off"),
        ),
    ),
    "data_usage": (
        "App data usage",
        (
            Header("Sep 14 – Oct 13"),
            Info("Data used", summary_path="settings.network.data_used_mb"),
            Info("Chrome", "1.12 GB"),
            Info("YouTube", "640 MB"),
            Info("Play Store", "311 MB"),
            Info("Google Play services", "122 MB"),
            Info("Maps", "56 MB"),
            Info("Clock", "0 B"),
        ),
    ),
    "data_warning": (
        "Data warning & limit",
        (
            Info("App data usage cycle", "14th of every month"),
            Info("Data warning", "2.00 GB"),
            Info("Set data limit", "Off"),
        ),
    ),
    "hotspot": (
        "Hotspot & tethering",
        (
            Toggle("Wi‑Fi hotspot", "settings.network.hotspot"),
            Info("USB tethering", "Off"),
            Info("Bluetooth tethering", "Off"),
        ),
    ),
    "data_saver": (
        "Data Saver",
        (
            Toggle("Use Data Saver", "settings.network.data_saver"),
            Info("Unrestricted data", "0 apps allowed to use unrestricted data"),
        ),
    ),
    "vpn": ("VPN", (Info("No VPNs added", "Tap + to add a VPN"),)),
    "adaptive": ("Adaptive connectivity", (Info("Adaptive connectivity", "Extends battery life"),)),
    "connected": (
        "Connected devices",
        (
            Link("Pair new device", "pair"),
            Header("Saved devices"),
            Info("Pixel Buds Pro", "Not connected"),
            Link("Connection preferences", "connection_prefs", summary="Bluetooth, NFC, Android Auto"),
        ),
    ),
    "pair": (
        "Pair new device",
        (
            Info("Device name", "Pixel 7"),
            Header("Available devices"),
            Info("JBL Flip 5", "Speaker"),
            Info("Galaxy Watch5", "Watch"),
        ),
    ),
    "connection_prefs": (
        "Connection preferences",
        (
            Toggle("Bluetooth", "settings.connected.bluetooth"),
            Toggle("NFC", "settings.connected.nfc", summary="Use NFC"),
            Info("Cast", "Not connected"),
            Info("Printing", "1 print service on"),
            Info("Android Auto", "Use apps on your car screen"),
        ),
    ),
    "apps": (
        "Apps",
        (
            Header("Recently opened apps"),
            Info("Chrome", "2 min ago"),
            Info("Clock", "1 hr ago"),
            Info("Default apps", "Chrome, Phone and Messages"),
            Info("Screen time", "1 hr 12 min today"),
        ),
    ),
    "notifications": (
        "Notifications",
        (
            Info("App notifications", "All apps can send notifications"),
            Info("Notification history", "Off"),
            Info("Conversations", "No priority conversations"),
            Info("Bubbles", "On / Conversations can appear as floating icons"),
            Link("Do Not Disturb", "dnd", summary_path="settings.do_not_disturb"),
            Info("Flash notifications", "Off"),
            Header("Privacy"),
            Info("Device & app notifications", "Control which apps and devices can read notifications"),
            Choice("Notifications on lock screen", "settings.notifications.lock_screen", LOCK_SCREEN),
            Info("Sensitive notifications", "Show sensitive content when locked"),
            Header("General"),
            Toggle("Allow notification snoozing", "settings.notifications.snoozing"),
            Toggle("Notification dot on app icon", "settings.notifications.dots"),
            Info("Enhanced notifications", "Get suggested actions, replies and more"),
        ),
    ),
    "dnd": (
        "Do Not Disturb",
        (
            Toggle("Do Not Disturb", "settings.do_not_disturb"),
            Info("People", "Starred contacts"),
            Info("Apps", "No apps can interrupt"),
        ),
    ),
    "battery": (
        "Battery",
        (
            Info("Battery level", summary_path="settings.battery_level"),
            Link("Battery Saver", "battery_saver", summary_path="settings.battery_saver"),
            Info("Adaptive Battery", "On"),
            Toggle(
                "Battery percentage",
                "settings.battery_percentage",
                summary="Show battery percentage in status bar",
            ),
        ),
    ),
    "battery_saver": (
        "Battery Saver",
        (Toggle("Use Battery Saver", "settings.battery_saver"), Info("Set a schedule", "No schedule")),
    ),
    "storage": (
        "Storage",
        (
            Info("System", "12.8 GB"),
            Info("Apps", "9.4 GB"),
            Info("Images", "3.1 GB"),
            Info("Documents & other", "1.2 GB"),
            Info("Trash", "0 B"),
        ),
    ),
    "sound": (
        "Sound & vibration",
        (
            Info("Media volume", "60%"),
            Info("Call volume", "70%"),
            Info("Ring & notification volume", "80%"),
            Link("Do Not Disturb", "dnd", summary_path="settings.do_not_disturb"),
            Info("Phone ringtone", "Your New Adventure"),
        ),
    ),
    "display": (
        "Display",
        (
            Header("Brightness"),
            Info("Brightness level", summary_path="settings.display.brightness"),
            Toggle("Adaptive brightness", "settings.display.adaptive_brightness"),
            Header("Lock display"),
            Choice("Screen timeout", "settings.display.screen_timeout", TIMEOUTS),
            Header("Appearance"),
            Toggle("Dark theme", "settings.display.dark_theme", summary="Use dark background"),
            Link("Font size and text", "font_size", summary_path="settings.display.font_size"),
            Info("Display size", "Default"),
            Header("Other display controls"),
            Toggle("Auto-rotate screen", "settings.display.auto_rotate"),
            Info("Screen saver", "Clock"),
        ),
    ),
    "font_size": (
        "Font size and text",
        (
            Info("Preview", "Check how your font size changes the look of text"),
            Stepper("Font size", "settings.display.font_size", FONT_SIZES),
            Info("Bold text", "Off"),
        ),
    ),
    "wallpaper": (
        "Wallpaper & style",
        (Info("Wallpaper", "Default"), Info("Wallpaper colors", "Blue"), Info("Themed icons", "Off")),
    ),
    "accessibility": (
        "Accessibility",
        (
            Header("Display"),
            Link("Display size and text", "font_size"),
            Link("Color and motion", "color_motion", summary="Color correction, color inversion"),
            Info("Extra dim", "Off"),
            Header("Screen readers"),
            Link("TalkBack", "talkback", summary_path="settings.accessibility.talkback"),
            Info("Select to Speak", "Off"),
            Header("Interaction controls"),
            Info("Accessibility Menu", "Off"),
            Info("Switch Access", "Off"),
        ),
    ),
    "color_motion": (
        "Color and motion",
        (
            Link(
                "Color correction", "color_correction", summary_path="settings.accessibility.color_correction"
            ),
            Link("Color inversion", "color_inversion", summary_path="settings.accessibility.color_inversion"),
            Toggle("Dark theme", "settings.display.dark_theme"),
            Info("Remove animations", "Off"),
        ),
    ),
    "color_correction": (
        "Color correction",
        (Toggle("Use color correction", "settings.accessibility.color_correction"),),
    ),
    "color_inversion": (
        "Color inversion",
        (
            Toggle("Use color inversion", "settings.accessibility.color_inversion"),
            Info("About color inversion", "Color inversion turns light screens dark and dark screens light"),
        ),
    ),
    "talkback": ("TalkBack", (Toggle("Use TalkBack", "settings.accessibility.talkback"),)),
    "security": (
        "Security & privacy",
        (
            Info("Device unlock", "Screen lock, Face & Fingerprint Unlock"),
            Info("App security", "Play Protect"),
            Info("Privacy controls", ""),
        ),
    ),
    "location": (
        "Location",
        (Toggle("Use location", "settings.location"), Info("Recent access", "Maps, Chrome, Google")),
    ),
    "safety": (
        "Safety & emergency",
        (
            Link("Emergency information", "emergency_info", summary="Name, medical info, contacts"),
            Link("Emergency SOS", "sos", summary="Off"),
            Info("Car crash detection", "Off"),
            Info("Crisis alerts", "On"),
            Info("Wireless emergency alerts", ""),
            Info("Earthquake alerts", "On"),
        ),
    ),
    "emergency_info": (
        "Emergency information",
        (
            Header("Medical information"),
            Info("Name", "Alex Kim"),
            Info("Blood type", "O+"),
            Info("Allergies", "Penicillin"),
            Info("Medications", "None"),
            Info("Organ donor", "Yes"),
            Header("Emergency contacts"),
            Info("Jordan Kim", "+1 650-555-0188"),
        ),
    ),
    "sos": ("Emergency SOS", (Info("Use Emergency SOS", "Press the power button 5 times quickly"),)),
    "accounts": (
        "Passwords & accounts",
        (Info("Google Password Manager", "12 passwords"), Info("alex.kim@gmail.com", "Google")),
    ),
    "wellbeing": (
        "Digital Wellbeing & parental controls",
        (Info("Screen time", "1 hr 12 min today"), Info("Bedtime mode", "Off")),
    ),
    "google": ("Google", (Info("Google account", "alex.kim@gmail.com"), Info("Backup", "On"))),
    "system": (
        "System",
        (
            Info("Languages", "English (United States)"),
            Info("Keyboard", "Gboard"),
            Info("Gestures", ""),
            Info("Date & time", "GMT-07:00 Pacific Daylight Time"),
            Info("Backup", "On"),
            Info("System update", "Updated to Android 14"),
            Info("Reset options", ""),
        ),
    ),
    "about": (
        "About phone",
        (
            Header("Basic info"),
            Info("Device name", "Pixel 7"),
            Info("Phone number (SIM slot 1)", "+1 650-555-0123"),
            Info("Emergency information", "Alex Kim"),
            Header("Device details"),
            Info("Model", "Pixel 7"),
            Info("SIM status", "T-Mobile"),
            Info("IMEI", "354402110012345"),
            Info("Android version", "14"),
            Info("IP address", "10.0.2.16"),
            Info("Wi‑Fi MAC address", "02:00:00:44:55:66"),
            Info("Bluetooth address", "Unavailable"),
            Info("Build number", "UQ1A.240105.004"),
        ),
    ),
    "tips": (
        "Tips & support",
        (Info("Pixel tips", "Learn what your phone can do"), Info("Help", "Articles, phone & chat")),
    ),
}
