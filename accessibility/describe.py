"""Describe a (cleaned) UI tree in concise natural language.

One line per element, indented two spaces per level of depth, e.g.::

    a toolbar
      an image button described as "Navigate up"
      a text "SIMs"
    a clickable group
      a text "Roaming"
      a switch with the text "OFF" that is off

Lines follow what a person sees rather than how the views are nested:

* a control whose label sits on child nodes (a Compose button: a clickable view
  holding a text and an unlabelled ``Button`` marking its role; a quick-settings
  tile holding its name and state) is one line, the control with its label;
* so is a tap target whose content is only labels (a settings row "Find My
  Device" / "On", a bottom-navigation tab "Home"): one line, ``a clickable group
  with the texts "Find My Device", "On"``, every label kept; a row that also holds
  a control (the switch above) keeps its lines, since there are two things to tap;
* a node whose labels its ancestors' lines already show verbatim is left out (a
  feed item described by its caption, and the caption's own text view), and so
  are children that add nothing to a labelled node they sit in; a description
  repeated by a node that has more to say is dropped from its line;
* an unlabelled radio button or check box beside the checked text view that
  names it is one line: one choice, stated once; so is a clickable row of labels
  holding one unlabelled radio button, check box or switch (a dialog's "Wi-Fi
  only" row): the control, named by the row's labels;
* a launcher's icons are app icons, and texts, images and groups a user can
  click are called clickable: that is what tells a control from a label;
* containers with nothing to say (no label, no state, nothing left inside) are
  not listed, and one without a label that is its parent's only content, or
  holds a single line, gives its place to its content.

Output is deterministic: it depends only on the tree. Whitespace inside labels
is folded to single spaces so that one element is always one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from latent_agent.accessibility.roles import (
    APP_ICON,
    CHOICE_KINDS,
    CONTROL_KINDS,
    PASSIVE_KINDS,
    STRUCTURE_KINDS,
    is_app_icon,
    is_launcher_window,
    is_role_marker,
    role_marker,
)
from latent_agent.accessibility.tree import UINode, UITree
from latent_agent.accessibility.widgets import Kind, info, kind_of

PASSWORD_MASK = "••••••"


def fold(text: str) -> str:
    """Collapse runs of whitespace (including newlines) into single spaces."""
    return " ".join(text.split())


def _quote(text: str) -> str:
    return '"' + fold(text) + '"'


def _quotes(texts: list[str]) -> str:
    return ", ".join(_quote(t) for t in texts)


def _article(noun: str) -> str:
    return "an" if noun[:1] in "aeiou" else "a"


_ON_OFF_KINDS = frozenset(k for k in Kind if info(k).on_off)
_CHECK_KINDS = frozenset({Kind.CHECK_BOX, Kind.RADIO_BUTTON, Kind.CHECKED_TEXT})


def _states(node: UINode, kind: Kind, checked_by: UINode | None = None) -> list[str]:
    """State words of ``node`` shown as ``kind``; its checked state read from ``checked_by`` when given."""
    states: list[str] = []
    check = checked_by if checked_by is not None else node
    if kind in _ON_OFF_KINDS:
        states.append("on" if check.checked else "off")
    elif check.checkable or kind in _CHECK_KINDS:
        states.append("checked" if check.checked else "not checked")
    elif check.checked:
        states.append("checked")
    if node.selected:
        states.append("selected")
    if not node.enabled:
        states.append("disabled")
    if node.focused:
        states.append("focused")
    if node.scrollable:
        states.append("scrollable")
    return states


def _join_states(states: list[str]) -> str:
    if len(states) == 1:
        return states[0]
    return ", ".join(states[:-1]) + " and " + states[-1]


def _line(node: UINode, kind: Kind, texts: list[str], descs: list[str], states: list[str], *,
          icon: bool = False) -> str:
    """The words for one line: the node as ``kind`` (or an app icon), showing ``texts``, ``descs`` and ``states``."""
    if kind is Kind.UNKNOWN:
        pkg = f" from {node.package}" if node.package else ""
        clickable = "clickable " if node.clickable else ""
        head = f'{_article(clickable or "e")} {clickable}element of class "{node.class_name}"{pkg}'
    else:
        noun = APP_ICON if icon else kind.value
        if node.password:
            noun = f"password {noun}"
        if node.clickable and kind in PASSIVE_KINDS and not icon:
            noun = f"clickable {noun}"
        head = f"{_article(noun)} {noun}"
    parts = [head]
    if icon and not texts:
        texts, descs = descs[:1], descs[1:]
    if texts:
        if node.password:
            parts.append(f'with hidden text "{PASSWORD_MASK}"')
        elif len(texts) == 1 and (kind is Kind.TEXT or icon):
            parts[0] = f"{head} {_quote(texts[0])}"
        elif len(texts) == 1:
            parts.append(f"with the text {_quote(texts[0])}")
        else:
            parts.append(f"with the texts {_quotes(texts)}")
    if descs:
        parts.append(f"described as {_quotes(descs)}")
    if node.hint and fold(node.hint) != fold(node.text):
        parts.append(f"with the hint {_quote(node.hint)}")
    if states:
        parts.append(f"that is {_join_states(states)}")
    return " ".join(parts)


def _own_labels(node: UINode) -> tuple[list[str], list[str]]:
    """The node's text and its content description when that says something else."""
    text = fold(node.text) if node.text else ""
    desc = fold(node.content_desc) if node.content_desc else ""
    return ([text] if text else []), ([desc] if desc and desc != text else [])


def describe_node(node: UINode) -> str:
    """One line (without indentation) describing ``node`` by itself."""
    texts, descs = _own_labels(node)
    kind = kind_of(node.class_name)
    return _line(node, kind, texts, descs, _states(node, kind))


#: Kinds that only show labels: a subtree of these (and role markers) can merge into one line.
_LABEL_KINDS = PASSIVE_KINDS - {Kind.UNKNOWN}
#: Kinds whose unlabelled, stateless, inert nodes are only structure.
_BARE_KINDS = frozenset({Kind.GROUP, Kind.VIEW})


@dataclass(slots=True)
class _Entry:
    """A line to print and the entries nested under it."""

    text: str
    #: Only structure (no label, no state, not clickable): may give its place to its content.
    bare: bool
    children: list[_Entry] = field(default_factory=list)


class _Describer:
    def __init__(self) -> None:
        #: id(node) -> (plain, plain_below): the subtree holds only labels (texts, images, groups and role
        #: markers) and nothing to act on; every subtree below the node does (its children may merge).
        self.facts: dict[int, tuple[bool, bool]] = {}
        #: The window being described is a launcher's (its clickable texts are app icons).
        self.launcher = False

    def subtree(self, node: UINode) -> tuple[bool, bool]:
        known = self.facts.get(id(node))
        if known is not None:
            return known
        below = True
        for child in node.children:
            below = self.subtree(child)[0] and below
        kind = kind_of(node.class_name)
        plain = below and (is_role_marker(node) or (
            not node.is_interactive and not node.checked and not node.password
            # An image button nobody can click is an icon drawn inside its clickable row (a search
            # bar's magnifier): decoration, like an image.
            and (kind in _LABEL_KINDS or (kind is Kind.IMAGE_BUTTON and not node.children))))
        self.facts[id(node)] = (plain, below)
        return plain, below

    def entry(self, node: UINode, shown: frozenset[str]) -> _Entry | None:
        kind = kind_of(node.class_name)
        children = node.children
        if children and self.subtree(node)[1]:
            merged = self._merged(node, kind)
            if merged is not None:
                return merged
        if children and _is_tap_target(node, kind):
            choice = self._choice_row(node)
            if choice is not None:
                return choice
        texts, descs = _own_labels(node)
        states = _states(node, kind)
        if descs and (texts or kind not in _LABEL_KINDS) and not node.checkable:
            # A description an ancestor's line already gives ("Display brightness" on a slider's
            # row and on the slider) is said once; checkable controls keep theirs as their name.
            descs = [d for d in descs if d not in shown]
        if not children:
            if not texts and not descs and not node.hint and not states and kind in STRUCTURE_KINDS:
                return None  # an empty container: nothing to read, nothing named to tap
            if (kind in _LABEL_KINDS and not states and not node.is_interactive and (texts or descs)
                    and all(label in shown for label in texts) and all(label in shown for label in descs)):
                # Only whole labels count: a caption quoted inside a longer description
                # is still a label of its own, which a reader (and the grounder) may look for.
                return None  # repeats what an ancestor's line says
        text = _line(node, kind, texts, descs, states, icon=is_app_icon(node, in_launcher=self.launcher))
        if not children:
            return _Entry(text, False, [])
        below = shown | {*texts, *descs} if texts or descs else shown
        entries: list[_Entry] = []
        skip, pair = _choice_pair(children)
        for i, child in enumerate(children):
            if i == skip:
                continue
            if pair is not None and child is pair[1]:
                entries.append(_Entry(_choice_line(*pair), bare=False))
                continue
            child_entry = self.entry(child, below)
            if child_entry is not None:
                entries.append(child_entry)
        no_label = not texts and not descs and not node.hint
        if not entries and no_label and not states and kind in STRUCTURE_KINDS:
            return None
        bare = no_label and not states and kind in _BARE_KINDS and not node.is_interactive
        return _Entry(text, bare, entries)

    def _merged(self, node: UINode, kind: Kind) -> _Entry | None:
        """One line for a control, a tap target or a labelled node whose children only repeat or complete its label.

        A tap target (a clickable group, view, card, text or image) whose content is only labels is named
        by them on its own line: a settings row "Find My Device" / "On" or a bottom-navigation tab "Home"
        is one thing to tap, and a reader should not have to look at the next lines to learn what it is.
        """
        marker = None if kind in CONTROL_KINDS else role_marker(node)
        is_control = kind in CONTROL_KINDS or (marker is not None and (node.clickable or node.checkable))
        target = not is_control and _is_tap_target(node, kind)
        texts, descs = _own_labels(node)
        if not is_control and not target and not (texts or descs):
            return None
        # A control's children only repeat or complete its label, so a label its own contains is dropped; a
        # tap target's labels are its content, and one is dropped only when the target says it exactly (an
        # app row's rank "2" is not its rating's "4.2", its name is not its description).
        own: str | set[str] = (set(texts + descs + [fold(node.hint)]) if target
                               else " | ".join(texts + descs + [fold(node.hint)]))
        extra_texts: list[str] = []
        extra_descs: list[str] = []
        for below in node.iter():
            if below is node:
                continue
            for label, into in ((below.text, extra_texts), (below.content_desc, extra_descs),
                                (below.hint, extra_texts)):
                folded = fold(label)
                if folded and folded not in own and folded not in extra_texts and folded not in extra_descs:
                    into.append(folded)
        if target:
            if not (texts or descs or extra_texts or extra_descs):
                return None  # nothing names it: its unlabelled content (an icon) is listed below it
            # The target's own states only: a label view marked selected inside it is a marquee's
            # scrolling (Android selects such text views), while a selected tab or row is selected itself.
            states = _states(node, kind)
            return _Entry(_line(node, kind, texts + extra_texts, descs + extra_descs, states), bare=False)
        if not is_control:
            if extra_texts or extra_descs:
                return None  # the children say more than the node: keep them
            return _Entry(_line(node, kind, texts, descs, _states(node, kind)), bare=False)
        shown_kind = kind if marker is None else kind_of(marker.class_name)
        checked_by = marker if marker is not None and marker.checkable and not node.checkable else None
        states = _states(node, shown_kind, checked_by)
        return _Entry(_line(node, shown_kind, texts + extra_texts, descs + extra_descs, states), bare=False)


    def _choice_row(self, node: UINode) -> _Entry | None:
        """One line for a row of labels holding one radio button, check box or switch it names.

        A settings or dialog row ("Wi-Fi only" beside its radio button) is one choice: the control is named
        by the row's labels and stated with its own state, as an unclickable one marking the row's role is.
        So is a clickable row whose one child is a labelled radio button or check box (the label sits on the
        control, the tap target is the row): one thing to tap, one line.
        """
        # A labelled switch keeps its own line beside the row's labels ("a switch with the text "ON""), as a
        # phone reads it; a labelled radio button or check box is the row's choice itself.
        controls = [c for c in node.children
                    if not c.children and c.checkable and kind_of(c.class_name) in CHOICE_KINDS
                    and (not c.has_label or kind_of(c.class_name) in _LABELLED_CHOICES)]
        if len(controls) != 1:
            return None
        (control,) = controls
        if not all(c is control or self.subtree(c)[0] for c in node.children):
            return None  # something else to act on in the row: its lines stay
        # The control names itself (a labelled radio button in a clickable row): its own label comes first.
        texts, descs = _own_labels(control)
        for labels, into in zip(_own_labels(node), (texts, descs), strict=True):
            into.extend(x for x in labels if x not in texts and x not in descs)
        for below in node.iter():
            if below is node or below is control:
                continue
            for label, into in ((below.text, texts), (below.content_desc, descs), (below.hint, texts)):
                folded = fold(label)
                if folded and folded not in texts and folded not in descs:
                    into.append(folded)
        if not texts and not descs:
            return None
        control_kind = kind_of(control.class_name)
        states = _states(control, control_kind)
        if not node.enabled and "disabled" not in states:
            states.append("disabled")
        return _Entry(_line(control, control_kind, texts, descs, states), bare=False)


#: The choices a clickable row is one line with even when they carry their own label.
_LABELLED_CHOICES = frozenset({Kind.RADIO_BUTTON, Kind.CHECK_BOX})


def _is_tap_target(node: UINode, kind: Kind) -> bool:
    """A node shown as a label or a container that a user taps as one thing.

    A scrollable node is left out (a list holding only texts is many rows, not one target), and so is a
    node that can only be long-pressed (a lock screen's widget frame holds a clock and labels of its own).
    """
    return node.clickable and not node.scrollable and kind in _LABEL_KINDS


def _choice_pair(children: tuple[UINode, ...]) -> tuple[int | None, tuple[UINode, UINode] | None]:
    """An unlabelled radio button / check box and the checked text view naming it, among ``children``.

    Returns the index of the control to skip and ``(control, text view)``, the pair
    to describe as one line where the text view stands; ``(None, None)`` when the
    children hold no such single pair.
    """
    if not any(c.checkable for c in children):
        return None, None
    controls = [i for i, c in enumerate(children)
                if not c.children and not c.has_label and c.checkable and kind_of(c.class_name) in CHOICE_KINDS]
    names = [i for i, c in enumerate(children)
             if not c.children and c.text and kind_of(c.class_name) is Kind.CHECKED_TEXT]
    if len(controls) != 1 or len(names) != 1:
        return None, None
    control, name = children[controls[0]], children[names[0]]
    if control.checked != name.checked:
        return None, None
    return controls[0], (control, name)


def _choice_line(control: UINode, name: UINode) -> str:
    texts, descs = _own_labels(name)
    kind = kind_of(control.class_name)
    return _line(control, kind, texts, descs, _states(control, kind))


def _render(entries: list[_Entry], depth: int, indent: str, out: list[str]) -> None:
    if len(entries) == 1 and entries[0].bare:
        _render(entries[0].children, depth, indent, out)  # a parent's only content: merged into it
        return
    for entry in entries:
        if entry.bare and len(entry.children) <= 1:
            _render(entry.children, depth, indent, out)
            continue
        out.append(indent * depth + entry.text)
        _render(entry.children, depth + 1, indent, out)


def describe(tree: UITree, *, indent: str = "  ") -> str:
    """The whole screen as an indented list, one element per line.

    Pass a tree through :func:`latent_agent.accessibility.clean.clean_tree` first: this
    function describes the nodes it is given (merging and leaving out only as
    the module's rules say).
    """
    describer = _Describer()
    roots: list[_Entry] = []
    for root in tree.roots:
        describer.launcher = is_launcher_window(root)
        entry = describer.entry(root, frozenset())
        if entry is not None:
            roots.append(entry)
    out: list[str] = []
    _render(roots, 0, indent, out)
    return "\n".join(out)
