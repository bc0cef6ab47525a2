"""Cutting a recorded episode into pieces: the steps that can be decided on one observation.

The published method cuts a demonstration wherever the next action needs information the current
state does not hold. An accessibility tree shows only what is on screen, so the Android form of that
rule (the method card's) is: a new piece starts before any step whose target element is absent from
the piece's first screen. Steps without an on-screen target (opening an app, Back, Home, Enter, typing
into the focused field, a scroll without a point) never start a piece: they can be planned from any
screen. A form is one piece (its fields and its Save button are on one screen); a path through menus is
one piece per menu.

The target of a point action (tap, long press, typing after a tap, a scroll at a point) is the
smallest grounding element (:func:`~latent_agent.accessibility.elements.grounder_elements`) that holds
the point on the screen the step was decided on, read back from the dump the trajectory saved. Two
elements are the same target when they have the same label and kind (an unlabelled element: the same
kind at the same place), so a "Save" button that moved is still present.

Only what happened is kept: steps of the episode's last trial that were executed without error. The
piece's screen is the step's screen description; its observation is the method's own abstraction of it
when the method recorded one (a ``state`` with a text ``observation``), else None.

**On a web page** (:func:`cut_page`) the exemplar is kept as Synapse's were: a piece is one plan of the
exemplar method, the steps it decided on one observation (the method asked for a new plan exactly where it
needed to see the page again, the paper's decomposition rule); its state is the task area's raw HTML the
plan was made on, with the filtered observation and the reformulated task the method recorded, and its
steps are Synapse's commands as they were carried out. An episode played otherwise (another method's
words or ids) is not in Synapse's syntax and gives no exemplar (:class:`ForeignSyntax`).
"""

from __future__ import annotations

from dataclasses import dataclass

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.elements import Element, grounder_elements
from latent_agent.accessibility.load import parse_any
from latent_agent.agent.episode_files import screen_path
from latent_agent.agent.exemplars.memory import ExemplarStep, Piece
from latent_agent.agent.exemplars.policy import ExemplarState
from latent_agent.agent.exemplars.syntax import CommandError, parse_command
from latent_agent.agent.trajectory import StepRecord, Trajectory
from latent_agent.errors import InputError, ParseError
from latent_agent.grounder.actions import Action, point_of

#: A target's identity: (label, kind) for a labelled element, (kind, centre) for an unlabelled one.
Identity = tuple[str, str] | tuple[str, tuple[int, int]]


class PieceError(InputError):
    """A trajectory cannot be cut into pieces (no executed step, or a screen dump that cannot be read)."""


class ForeignSyntax(PieceError):
    """A web page's episode whose steps are not Synapse's commands (played by another method)."""


@dataclass(frozen=True, slots=True)
class _Taken:
    """An executed step with what the cutting rule needs."""

    record: StepRecord
    action: Action
    screen_changed: bool
    target: Identity | None


def identity(element: Element) -> Identity:
    """What makes two elements the same target (see the module docstring)."""
    return (element.text, element.kind) if element.text else (element.kind, element.center)


def element_at(elements: list[Element], x: int, y: int) -> Element | None:
    """The smallest element whose box holds ``(x, y)``, or None."""
    holding = [e for e in elements
               if abs(x - e.center[0]) * 2 <= e.size[0] and abs(y - e.center[1]) * 2 <= e.size[1]]
    return min(holding, key=lambda e: e.size[0] * e.size[1], default=None)


def screen_elements(trajectory: Trajectory, step: StepRecord) -> list[Element]:
    """The grounding elements of the screen a step was decided on (from the saved dump).

    Raises:
        PieceError: The dump is missing or cannot be parsed.
    """
    try:
        path = screen_path(trajectory.directory, step)
    except InputError as exc:
        raise PieceError(f"{trajectory.directory}: {exc}") from None
    try:
        tree = parse_any(path.read_bytes(), source=str(path))
    except OSError as exc:
        raise PieceError(f"{path}: cannot read the screen of step {step.index} ({exc.strerror or exc})") from None
    except ParseError as exc:
        raise PieceError(f"{path}: cannot parse the screen of step {step.index} ({exc})") from None
    return grounder_elements(clean_tree(tree))


def _executed(trajectory: Trajectory) -> list[StepRecord]:
    last_trial = max((s.trial for s in trajectory.steps), default=0)
    return [s for s in trajectory.steps
            if s.trial == last_trial and s.executed and s.action is not None and s.execution_error is None]


def cut(trajectory: Trajectory) -> tuple[Piece, ...]:
    """The pieces of a recorded episode (see the module docstring for the rule).

    Raises:
        PieceError: The episode executed no step, or a screen it needs cannot be read.
    """
    steps = _executed(trajectory)
    if not steps:
        raise PieceError(f"{trajectory.directory}: the episode executed no step; there is nothing to cut")
    following = {s.index: s for s in trajectory.steps}
    cache: dict[int, list[Element]] = {}

    def elements(step: StepRecord) -> list[Element]:
        if step.index not in cache:
            cache[step.index] = screen_elements(trajectory, step)
        return cache[step.index]

    taken: list[_Taken] = []
    for step in steps:
        assert step.action is not None
        after = following.get(step.index + 1)
        # The last step of an episode that recorded no later screen counts as changing it: the
        # episode passed its check, so the step did something.
        changed = after is None or after.description != step.description
        point = point_of(step.action)
        hit = element_at(elements(step), *point) if point is not None else None
        taken.append(_Taken(step, step.action, changed, identity(hit) if hit is not None else None))

    pieces: list[Piece] = []
    current: list[_Taken] = []
    present: set[Identity] = set()
    for item in taken:
        if current and item.target is not None and item.target not in present:
            pieces.append(_piece(current))
            current = []
        if not current:
            present = {identity(e) for e in elements(item.record)}
        current.append(item)
    pieces.append(_piece(current))
    return tuple(pieces)


def _piece(items: list[_Taken]) -> Piece:
    first = items[0].record
    observation = getattr(first.state, "observation", None)
    return Piece(
        screen=first.description,
        observation=observation if isinstance(observation, str) and observation.strip() else None,
        steps=tuple(ExemplarStep(i.record.selected_step, i.action, i.screen_changed) for i in items),
    )


def cut_page(trajectory: Trajectory) -> tuple[Piece, ...]:
    """The pieces of an episode the exemplar method played on a web page (see the module docstring).

    Raises:
        ForeignSyntax: The episode was not played in Synapse's commands (another method's steps).
        PieceError: It executed no step, or a plan's state was not recorded.
    """
    last_trial = max((s.trial for s in trajectory.steps), default=0)
    steps = [s for s in trajectory.steps if s.trial == last_trial]
    following = {s.index: s for s in trajectory.steps}
    calls: dict[int, ExemplarState] = {}
    taken: dict[int, list[ExemplarStep]] = {}
    for step in steps:
        state = step.state
        if not isinstance(state, ExemplarState):
            raise ForeignSyntax(f"{trajectory.directory}: step {step.index} was not decided by the exemplar method "
                                f"({trajectory.header.method}): its steps are not Synapse's commands")
        if state.source == "piece":
            calls[state.piece] = state
        if not (step.executed and step.action is not None and step.execution_error is None):
            continue
        try:
            parse_command(step.selected_step)
        except CommandError as exc:
            raise ForeignSyntax(f"{trajectory.directory}: step {step.index} is not one of Synapse's commands "
                                f"({exc})") from None
        after = following.get(step.index + 1)
        changed = after is None or after.description != step.description
        taken.setdefault(state.piece, []).append(ExemplarStep(step.selected_step, step.action, changed))
    if not taken:
        raise PieceError(f"{trajectory.directory}: the episode executed no step; there is nothing to cut")
    pieces: list[Piece] = []
    for index in sorted(taken):
        call = calls.get(index)
        if call is None or call.page is None:
            raise PieceError(f"{trajectory.directory}: the state plan {index + 1} was made on was not recorded")
        pieces.append(Piece(call.page, call.observation, tuple(taken[index]), call.reformulated))
    return tuple(pieces)
