"""Elements a policy asks to keep out of a step's observation, named by a signature that survives a reset.

A method that learns "tapping this did not help here" (structured reflection's disabled clicks) needs
a name for the element that holds in the next trial: accessibility indices and coordinates do not
(a notification shifts the list, a scroll moves the rows). :class:`ElementSignature` is the element's
class, resource id and label; :func:`tapped_element` finds the element a grounded tap or long press
lands on; :func:`hide_elements` rebuilds an observation without the elements that match, so the
planner's description and the grounder's element list both lose them while the raw dump is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.elements import elements_json, grounder_elements, label_of
from latent_agent.accessibility.tree import UINode, UITree
from latent_agent.agent.observe import Observation
from latent_agent.grounder.actions import Action, Click, LongPress
from latent_agent.grounder.base import GroundingScreen


@dataclass(frozen=True, slots=True, order=True)
class ElementSignature:
    """What identifies an element across trials: its class, resource id and label.

    Attributes:
        class_name: The Android class (``android.widget.LinearLayout``).
        resource_id: The resource id, or "" when the app gave none.
        label: Its own text or description, else the first one below it (a settings row is
            named by its title), else "".
    """

    class_name: str
    resource_id: str
    label: str

    def __str__(self) -> str:
        short = self.class_name.rsplit(".", 1)[-1] or "element"
        rid = f" ({self.resource_id})" if self.resource_id else ""
        return f'{short} "{self.label}"{rid}'


def signature_of(node: UINode) -> ElementSignature:
    """The signature of ``node``."""
    label = label_of(node) if node.has_label else next((label_of(n) for n in node.iter() if n.has_label), "")
    return ElementSignature(node.class_name, node.resource_id, label)


def element_at(tree: UITree, x: int, y: int) -> UINode | None:
    """The element a touch at ``(x, y)`` reaches: the smallest control there (clickable, long-clickable or
    checkable: the view that handles the touch), else the smallest labelled node there, else None."""
    under = [n for n in tree.iter() if n.bounds is not None and n.bounds.area > 0 and n.bounds.contains_point(x, y)]
    controls = [n for n in under if n.clickable or n.long_clickable or n.checkable]
    found = controls or [n for n in under if n.has_label]
    return min(found, key=_area) if found else None


def _area(node: UINode) -> int:
    return node.bounds.area if node.bounds is not None else 0


def tapped_element(tree: UITree, action: Action | None) -> ElementSignature | None:
    """The signature of the element a tap or long press lands on; None for other actions or an empty spot."""
    if not isinstance(action, Click | LongPress):
        return None
    node = element_at(tree, action.x, action.y)
    return signature_of(node) if node is not None else None


def _without(node: UINode, hidden: frozenset[ElementSignature]) -> UINode | None:
    if signature_of(node) in hidden:
        return None
    children = tuple(kept for c in node.children if (kept := _without(c, hidden)) is not None)
    return node if _same(children, node.children) else node._replace(children=children)


def _same(kept: tuple[UINode, ...], was: tuple[UINode, ...]) -> bool:
    return len(kept) == len(was) and all(a is b for a, b in zip(kept, was, strict=True))


def hide_elements(observation: Observation, hidden: frozenset[ElementSignature]) -> Observation:
    """``observation`` without the elements whose signature is in ``hidden`` (and what they hold).

    The description and the grounder's element list are rebuilt from the pruned tree; the raw dump,
    the screenshot and the package stay as observed. Signatures absent from the screen change nothing.
    """
    if not hidden:
        return observation
    roots = tuple(kept for root in observation.tree.roots if (kept := _without(root, hidden)) is not None)
    if _same(roots, observation.tree.roots):
        return observation
    tree = replace(observation.tree, roots=roots)
    elements = tuple(grounder_elements(tree))
    old = observation.screen
    screen = GroundingScreen(elements, elements_json(list(elements)), old.size, old.apps, tree)
    return replace(observation, tree=tree, description=describe(tree), screen=screen)
