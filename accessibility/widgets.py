"""Infer the kind of UI element from its Android class name.

Class names vary across toolkits (``android.widget.Switch``,
``androidx.appcompat.widget.SwitchCompat``,
``com.google.android.material.materialswitch.MaterialSwitch``), so the simple
name is matched against ordered suffix rules: more specific suffixes first
(``ImageButton`` before ``Button``, ``CheckedTextView`` before ``TextView``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import lru_cache


class Kind(Enum):
    """What an element is, as the description names it."""

    TEXT_BOX = "text box"
    IMAGE_BUTTON = "image button"
    BUTTON = "button"
    IMAGE = "image"
    CHECK_BOX = "check box"
    RADIO_BUTTON = "radio button"
    SWITCH = "switch"
    TOGGLE = "toggle"
    TAB = "tab"
    TAB_BAR = "tab bar"
    SEEK_BAR = "seek bar"
    DROP_DOWN = "drop-down"
    PROGRESS_BAR = "progress bar"
    WEB_VIEW = "web view"
    LIST = "list"
    SCROLL_VIEW = "scroll view"
    TOOLBAR = "toolbar"
    TEXT = "text"
    CHECKED_TEXT = "checked text view"
    CHIP = "chip"
    CARD = "card"
    PAGER = "pager"
    GROUP = "group"
    VIEW = "view"
    UNKNOWN = "element"


@dataclass(frozen=True, slots=True)
class KindInfo:
    """Properties of a :class:`Kind` that the cleaner and describer rely on."""

    kind: Kind
    #: A pure layout container: kept only when it carries a label or is interactive.
    container: bool
    #: Carries state worth describing even without a label (a switch, a seek bar).
    stateful: bool
    #: Has an on/off state rather than checked/not checked.
    on_off: bool


_INFO = {
    Kind.GROUP: KindInfo(Kind.GROUP, container=True, stateful=False, on_off=False),
    Kind.VIEW: KindInfo(Kind.VIEW, container=True, stateful=False, on_off=False),
    Kind.CARD: KindInfo(Kind.CARD, container=True, stateful=False, on_off=False),
    Kind.IMAGE: KindInfo(Kind.IMAGE, container=True, stateful=False, on_off=False),
    Kind.TEXT: KindInfo(Kind.TEXT, container=True, stateful=False, on_off=False),
    Kind.SWITCH: KindInfo(Kind.SWITCH, container=False, stateful=True, on_off=True),
    Kind.TOGGLE: KindInfo(Kind.TOGGLE, container=False, stateful=True, on_off=True),
    Kind.CHECK_BOX: KindInfo(Kind.CHECK_BOX, container=False, stateful=True, on_off=False),
    Kind.RADIO_BUTTON: KindInfo(Kind.RADIO_BUTTON, container=False, stateful=True, on_off=False),
    Kind.CHECKED_TEXT: KindInfo(Kind.CHECKED_TEXT, container=False, stateful=True, on_off=False),
    Kind.SEEK_BAR: KindInfo(Kind.SEEK_BAR, container=False, stateful=True, on_off=False),
    Kind.PROGRESS_BAR: KindInfo(Kind.PROGRESS_BAR, container=False, stateful=True, on_off=False),
    Kind.TEXT_BOX: KindInfo(Kind.TEXT_BOX, container=False, stateful=True, on_off=False),
    Kind.WEB_VIEW: KindInfo(Kind.WEB_VIEW, container=False, stateful=True, on_off=False),
    Kind.DROP_DOWN: KindInfo(Kind.DROP_DOWN, container=False, stateful=True, on_off=False),
}

# Ordered: the first suffix that matches the simple class name wins.
_SUFFIX_RULES: tuple[tuple[str, Kind], ...] = (
    ("EditText", Kind.TEXT_BOX),
    ("AutoCompleteTextView", Kind.TEXT_BOX),
    ("SearchView", Kind.TEXT_BOX),
    ("TextInputLayout", Kind.GROUP),
    ("CheckedTextView", Kind.CHECKED_TEXT),
    ("ImageButton", Kind.IMAGE_BUTTON),
    ("FloatingActionButton", Kind.IMAGE_BUTTON),
    ("ToggleButton", Kind.TOGGLE),
    ("RadioButton", Kind.RADIO_BUTTON),
    ("CheckBox", Kind.CHECK_BOX),
    ("Switch", Kind.SWITCH),
    ("SwitchCompat", Kind.SWITCH),
    ("SwitchMaterial", Kind.SWITCH),
    ("MaterialSwitch", Kind.SWITCH),
    ("Chip", Kind.CHIP),
    ("Button", Kind.BUTTON),
    ("TabView", Kind.TAB),
    ("$Tab", Kind.TAB),
    ("TabWidget", Kind.TAB_BAR),
    ("TabLayout", Kind.TAB_BAR),
    ("SeekBar", Kind.SEEK_BAR),
    ("Slider", Kind.SEEK_BAR),
    ("RatingBar", Kind.SEEK_BAR),
    ("Spinner", Kind.DROP_DOWN),
    ("ProgressBar", Kind.PROGRESS_BAR),
    ("ProgressIndicator", Kind.PROGRESS_BAR),
    ("WebView", Kind.WEB_VIEW),
    ("RecyclerView", Kind.LIST),
    ("ListView", Kind.LIST),
    ("GridView", Kind.LIST),
    ("ExpandableListView", Kind.LIST),
    ("ScrollView", Kind.SCROLL_VIEW),
    ("ViewPager", Kind.PAGER),
    ("ViewPager2", Kind.PAGER),
    ("Toolbar", Kind.TOOLBAR),
    ("ActionBar", Kind.TOOLBAR),
    ("TextView", Kind.TEXT),
    ("TextClock", Kind.TEXT),
    ("Chronometer", Kind.TEXT),
    ("ImageView", Kind.IMAGE),
    ("Image", Kind.IMAGE),
    ("CardView", Kind.CARD),
    ("Layout", Kind.GROUP),
    ("ViewGroup", Kind.GROUP),
    ("ViewStub", Kind.GROUP),
    ("ComposeView", Kind.GROUP),
    ("AndroidComposeView", Kind.GROUP),
)

_EXACT: dict[str, Kind] = {
    "android.view.View": Kind.VIEW,
    "android.view.ViewGroup": Kind.GROUP,
    "android.widget.FrameLayout": Kind.GROUP,
    "android.widget.LinearLayout": Kind.GROUP,
    "android.widget.RelativeLayout": Kind.GROUP,
    "android.widget.TextView": Kind.TEXT,
    "android.widget.ImageView": Kind.IMAGE,
    "android.widget.Button": Kind.BUTTON,
    "android.widget.EditText": Kind.TEXT_BOX,
    "android.widget.Switch": Kind.SWITCH,
    "android.widget.CheckBox": Kind.CHECK_BOX,
    "android.widget.Image": Kind.IMAGE,
    "android.widget.ScrollView": Kind.SCROLL_VIEW,
    "androidx.recyclerview.widget.RecyclerView": Kind.LIST,
    "hierarchy": Kind.GROUP,
}


@lru_cache(maxsize=4096)
def kind_of(class_name: str) -> Kind:
    """Kind of element a class name denotes; ``Kind.UNKNOWN`` when no rule matches."""
    exact = _EXACT.get(class_name)
    if exact is not None:
        return exact
    simple = class_name.rsplit(".", 1)[-1]
    for suffix, kind in _SUFFIX_RULES:
        if simple.endswith(suffix):
            return kind
    return Kind.UNKNOWN


# Every kind not listed above is an interactive widget without on/off state,
# except UNKNOWN, which is treated as a container.
for _kind in Kind:
    _INFO.setdefault(_kind, KindInfo(_kind, container=_kind is Kind.UNKNOWN, stateful=False, on_off=False))


def info(kind: Kind) -> KindInfo:
    """Cleaner/describer properties of ``kind``."""
    return _INFO[kind]
