"""How well a screenshot reading matches the true tree of the same screen.

Used by the observer's tests and ``scripts/bench_observer.py``, on screens whose true
elements are known: the simulated phone (its screenshot is drawn from the same windows as its
dump) and real screenshots kept with the dump taken at the same moment.

* **Labels recovered**: of the texts the screen draws (a node's text; an empty field's hint; not
  switch states, which phones draw as a knob, nor content descriptions, which are never drawn),
  the share matched by the text the observer read inside the node's box (its lines joined in
  reading order, fuzzy ratio >= :data:`SAME_LABEL`, ignoring case).
* **Box accuracy**, over recovered labels: the intersection over union of the node's box and the
  union of the lines that matched it, and the share whose centre falls inside the node's box (where a
  tap aimed at the element lands).
* **Controls found**: of the switches, checkboxes, radio buttons, fields and labelled clickable
  images of the tree (toggle buttons are left out: apps draw them as anything, a chip, a letter),
  the share with a control of the same kind centred inside their box; for the checkable
  ones, the share whose state was read right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from latent_agent.accessibility.screen.controls import Control, ControlKind
from latent_agent.accessibility.screen.ocr import TextLine
from latent_agent.accessibility.tree import Bounds, UINode, UITree
from latent_agent.accessibility.widgets import Kind, kind_of

#: Fuzzy ratio (0-100) at which what was read counts as the label.
SAME_LABEL = 80.0
#: Which control kind stands for each widget kind of the tree.
CONTROL_OF: dict[Kind, ControlKind] = {
    Kind.SWITCH: "switch", Kind.CHECK_BOX: "checkbox", Kind.RADIO_BUTTON: "radio",
    Kind.TEXT_BOX: "field", Kind.IMAGE_BUTTON: "icon", Kind.IMAGE: "icon",
}


@dataclass(frozen=True, slots=True)
class ScreenScore:
    """One screen's figures (counts, so that screens can be pooled).

    Attributes:
        labels: Labels the screen draws.
        recovered: Of those, labels read.
        iou_sum: Sum of the recovered labels' box IoU.
        centred: Recovered labels whose read box's centre is inside the node's box.
        controls: Controls of the tree.
        found: Of those, controls found.
        checkable: Found controls with a state.
        state_right: Of those, states read right.
        missed: The labels not recovered (for reading the misses).
        kinds: Each control of the tree: its kind and whether it was found.
    """

    labels: int
    recovered: int
    iou_sum: float
    centred: int
    controls: int
    found: int
    checkable: int
    state_right: int
    missed: tuple[str, ...] = ()
    kinds: tuple[tuple[ControlKind, bool], ...] = ()


def drawn_labels(tree: UITree) -> list[tuple[str, Bounds]]:
    """The texts a screen draws, with their nodes' boxes (see the module docstring)."""
    out: list[tuple[str, Bounds]] = []
    for node in tree.iter():
        if node.bounds is None or node.bounds.area == 0 or node.password:
            continue
        kind = kind_of(node.class_name)
        if kind in (Kind.SWITCH, Kind.TOGGLE, Kind.WEB_VIEW):
            continue
        text = node.text or (node.hint if kind is Kind.TEXT_BOX else "")
        if text.strip():
            out.append((" ".join(text.split()), node.bounds))
    return out


def _iou(a: Bounds, b: Bounds) -> float:
    inter = a.intersection_area(b)
    union = a.area + b.area - inter
    return inter / union if union else 0.0


def _union(boxes: Sequence[Bounds]) -> Bounds:
    return Bounds(min(b.left for b in boxes), min(b.top for b in boxes),
                  max(b.right for b in boxes), max(b.bottom for b in boxes))


def _true_controls(tree: UITree) -> list[tuple[ControlKind, UINode]]:
    out: list[tuple[ControlKind, UINode]] = []
    for node in tree.iter():
        kind = CONTROL_OF.get(kind_of(node.class_name))
        if kind is None or node.bounds is None or node.bounds.area == 0:
            continue
        if kind == "icon" and not (node.content_desc and node.clickable):
            continue  # an unlabelled or decorative image: nothing says it is a control to find
        out.append((kind, node))
    return out


def score_screen(truth: UITree, lines: Sequence[TextLine], controls: Sequence[Control]) -> ScreenScore:
    """Score a reading (its text lines and controls) against ``truth``, the screen's cleaned tree."""
    labels = drawn_labels(truth)
    recovered = centred = 0
    iou_sum = 0.0
    missed: list[str] = []
    for text, box in labels:
        inside = [line for line in lines if box.contains_point(*line.bounds.center)]
        read = " ".join(line.text for line in sorted(inside, key=lambda t: (t.bounds.top, t.bounds.left)))
        if inside and fuzz.ratio(text.casefold(), read.casefold()) >= SAME_LABEL:
            recovered += 1
            seen = _union([line.bounds for line in inside])
            iou_sum += _iou(seen, box)
            centred += box.contains_point(*seen.center)
        else:
            missed.append(text)
    found = checkable = state_right = 0
    true_controls = _true_controls(truth)
    kinds: list[tuple[ControlKind, bool]] = []
    for kind, node in true_controls:
        assert node.bounds is not None
        match = next((c for c in controls if c.kind == kind and node.bounds.contains_point(*c.bounds.center)), None)
        kinds.append((kind, match is not None))
        if match is None:
            continue
        found += 1
        if match.checked is not None and node.checkable:
            checkable += 1
            state_right += match.checked == node.checked
    return ScreenScore(len(labels), recovered, iou_sum, centred, len(true_controls), found, checkable, state_right,
                       tuple(missed), tuple(kinds))
