"""The screen's text lines and controls arranged as the project's UI tree.

The tree is what the rest of the pipeline reads (the description, the grounder's element
list, a method's element list), so a screenshot observation works wherever a dump does.
Each element becomes the node an Android app would most likely have drawn it with:

* a text line: a ``TextView`` (not clickable: a picture does not say what is);
* a line inside a filled button shape: that ``Button``'s text (clickable);
* a line inside a field outline: that ``EditText``'s text (editable, clickable);
* a switch, checkbox or radio button: ``Switch`` / ``CheckBox`` / ``RadioButton``, checkable,
  clickable, with the state read from the pixels;
* an icon (a small shape, or a glyph such as "+" or "⋮" the OCR engine read): an
  ``ImageButton``, clickable, unlabelled unless ``names`` gives it a name.

Elements are grouped into rows as a person reads a list: elements whose vertical extents
overlap form a band, and a band of text set at the same left edge just under a band of
text joins it (a title and its summary). A row of several elements becomes a group, so a
switch is described together with the label beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from latent_agent.accessibility.screen.controls import STATUS_BAR, Control
from latent_agent.accessibility.screen.ocr import TextLine
from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree

#: Android class of each control kind.
CLASSES = {
    "switch": "android.widget.Switch",
    "checkbox": "android.widget.CheckBox",
    "radio": "android.widget.RadioButton",
    "field": "android.widget.EditText",
    "button": "android.widget.Button",
    "icon": "android.widget.ImageButton",
}
TEXT_CLASS = "android.widget.TextView"
ROW_CLASS = "android.widget.LinearLayout"
ROOT_CLASS = "android.widget.FrameLayout"


@dataclass(frozen=True, slots=True)
class _Item:
    node: UINode
    bounds: Bounds
    is_text: bool


def _inside(inner: Bounds, outer: Bounds) -> bool:
    cx, cy = inner.center
    return outer.contains_point(cx, cy)


def _overlap_share(a: Bounds, b: Bounds) -> float:
    """Share of ``a``'s area that ``b`` covers."""
    return a.intersection_area(b) / a.area if a.area else 0.0


def _glyph(line: TextLine) -> bool:
    return len(line.text) <= 2 and not any(c.isalnum() for c in line.text)


def _control_node(control: Control, text: str, package: str, name: str) -> UINode:
    kind = control.kind
    return UINode(
        class_name=CLASSES[kind], text=text, content_desc=name, package=package, bounds=control.bounds,
        checkable=control.checked is not None, checked=bool(control.checked), clickable=True,
        focusable=True, focused=control.focused, editable=kind == "field", visible=True,
    )


def _items(lines: Sequence[TextLine], controls: Sequence[Control], package: str,
           names: Mapping[Bounds, str]) -> list[_Item]:
    holders = [c for c in controls if c.kind in ("button", "field")]
    held: dict[int, list[TextLine]] = {}
    items: list[_Item] = []
    icons = [c for c in controls if c.kind == "icon"]
    for line in lines:
        if _glyph(line):
            if not any(line.bounds.intersection_area(c.bounds) for c in controls):
                icons.append(Control("icon", line.bounds))
            continue
        holder = next((i for i, c in enumerate(holders) if _inside(line.bounds, c.bounds)), None)
        if holder is not None:
            held.setdefault(holder, []).append(line)
            continue
        items.append(_Item(UINode(TEXT_CLASS, text=line.text, package=package, bounds=line.bounds, visible=True),
                           line.bounds, True))
    text_boxes = [line.bounds for line in lines if not _glyph(line)]
    for control in controls:
        if control.kind in ("button", "field"):
            inner = held.get(holders.index(control), [])
            text = " ".join(t.text for t in sorted(inner, key=lambda t: (t.bounds.top, t.bounds.left)))
            items.append(_Item(_control_node(control, text, package, ""), control.bounds, False))
        elif control.kind != "icon":
            items.append(_Item(_control_node(control, "", package, ""), control.bounds, False))
    for icon in icons:
        # What is left of a word the OCR engine boxed tightly (an underline, an accent) is no icon.
        if any(_overlap_share(icon.bounds, t) > 0.3 for t in text_boxes):
            continue
        items.append(_Item(_control_node(icon, "", package, names.get(icon.bounds, "")), icon.bounds, False))
    return items


def _bands(items: list[_Item]) -> list[list[_Item]]:
    """Items whose vertical extents overlap, top to bottom."""
    bands: list[list[_Item]] = []
    bottom = -1
    for item in sorted(items, key=lambda i: (i.bounds.top, i.bounds.left)):
        # Overlap by a third of the smaller height, so that two lines set close together stay apart.
        if bands and item.bounds.top < bottom - min(item.bounds.height, 30) // 3:
            bands[-1].append(item)
            bottom = max(bottom, item.bounds.bottom)
        else:
            bands.append([item])
            bottom = item.bounds.bottom
    return bands


def _left_text(band: list[_Item]) -> _Item | None:
    texts = [i for i in band if i.is_text]
    return min(texts, key=lambda i: i.bounds.left) if texts else None


def _rows(items: list[_Item], scale: float) -> list[list[_Item]]:
    rows: list[list[_Item]] = []
    for band in _bands(items):
        if rows:
            above, here = _left_text(rows[-1]), _left_text(band)
            if (above is not None and here is not None
                    and abs(above.bounds.left - here.bounds.left) <= 24 * scale
                    and 0 <= here.bounds.top - max(i.bounds.bottom for i in rows[-1]) <= 0.6 * above.bounds.height):
                rows[-1].extend(band)
                continue
        rows.append(band)
    return rows


def _reading_order(row: list[_Item]) -> list[_Item]:
    """A row as a person reads it: columns left to right (a leading icon, the title over its summary,
    a trailing switch), each column top to bottom."""
    columns: list[list[_Item]] = []
    right = -1
    for item in sorted(row, key=lambda i: i.bounds.left):
        if columns and item.bounds.left < right:
            columns[-1].append(item)
            right = max(right, item.bounds.right)
        else:
            columns.append([item])
            right = item.bounds.right
    return [item for column in columns for item in sorted(column, key=lambda i: (i.bounds.top, i.bounds.left))]


def _union(bounds: Sequence[Bounds]) -> Bounds:
    return Bounds(min(b.left for b in bounds), min(b.top for b in bounds),
                  max(b.right for b in bounds), max(b.bottom for b in bounds))


def build_tree(size: ScreenSize, lines: Sequence[TextLine], controls: Sequence[Control], *, package: str = "",
               names: Mapping[Bounds, str] | None = None) -> UITree:
    """The UI tree of a screen seen only as a picture.

    Args:
        size: The screenshot's size.
        lines: The text lines read there.
        controls: The controls found there.
        package: The foreground package, if known (given to every node).
        names: Names of icons by their bounds (from an icon-naming call), used as their content description.
    """
    scale = size.width / 1080
    # The status bar's clock and marks belong to the phone, not the app; dumps leave them out too.
    lines = [line for line in lines if line.bounds.bottom > STATUS_BAR * size.height]
    controls = [c for c in controls if c.bounds.bottom > STATUS_BAR * size.height]
    children: list[UINode] = []
    for row in _rows(_items(lines, controls, package, names or {}), scale):
        if len(row) == 1:
            children.append(row[0].node)
            continue
        children.append(UINode(ROW_CLASS, package=package, bounds=_union([i.bounds for i in row]), visible=True,
                               children=tuple(i.node for i in _reading_order(row))))
    root = UINode(ROOT_CLASS, package=package, bounds=size.as_bounds(), visible=True, children=tuple(children))
    return UITree(roots=(root,), screen=size, source="screenshot", foreground_package=package)
