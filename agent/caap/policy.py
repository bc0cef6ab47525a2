"""CAAP: context-aware action planning from the screen's element list (Cho et al.), on a web page as published
and adapted to Android on a phone.

One call sees expert demonstrations annotated with rationales, the task, the action history (with
the last action's error or a "no screen change" note, and the previous answer as the reasoning
behind the last action), the current screen as an element list
(:mod:`latent_agent.agent.caap.elements`, from whatever tree the observation holds: the
accessibility tree or the screenshot observer's) and the action catalogue. It answers in four parts
(review the history, review the screen, plan to completion, list the next actions) and ends with
action lines ``Action_k=(Action: functions.NAME, Argument: {...})`` for the current screen
(:mod:`latent_agent.agent.caap.answer`).

The actions are queued and handed to the loop one per :meth:`CaapRun.decide`. Each names its
target by an element id of the screen it was planned on, so the policy grounds it itself (a click
at the element's centre, typing into it, ...) and hands the loop a grounded action
(:attr:`~latent_agent.agent.policy.Decision.grounding`): a second model call to find an element
that the answer already names would cost a call per step and could only add errors.

The published re-query rule: the model is asked again when the last action failed (an unreadable
line, an element id not on the screen, a device refusal), when the queue is empty, or when the
screen changed (its element signature differs: :func:`~latent_agent.agent.caap.elements.screen_signature`;
on a phone it ignores the clock, the status bar and focus). Otherwise the next queued action is taken
without a call.

The surface (``EpisodeSetup.surface``) decides the rest:

* **On a web page, as published** (MiniWoB++): the functions are the paper's table
  (:data:`~latent_agent.agent.caap.answer.WEB_CATALOGUE`): clicks on an element or a point, a click with
  Control held, typing into the focused element, pointing, Control+A/C/V and a drag's hold, move and release,
  each executed as the web page's own action (:mod:`latent_agent.grounder.actions`). There is no function to
  end the episode: the page ends it when it scores (the loop's ``task_ended``), after the Submit click the
  guidelines ask for. While the mouse button is held only a move or a release is taken (the published
  guideline, also held to: anything else is an error the next call is told about). The cap is the published
  one, :data:`WEB_CAP` actions (:data:`WEB_TASK_CAPS` for the tasks that need more).
* **On a phone, the card's Android adaptation**: the project's action space as functions; ``status(complete)``
  and ``answer(text)`` end the episode, ``status(infeasible)`` ends it with its reason; the history notes an
  action that changed nothing. The step cap is about twice the reference steps (the longest demonstration
  selected for the task), at least :attr:`CaapPolicy.cap_floor` and at most :attr:`CaapPolicy.cap_limit`;
  without demonstrations the episode's step limit, at most ``cap_limit``.

Ablations are options of the policy (:attr:`CaapPolicy.demos_mode`: with rationales, actions only or
none; :attr:`CaapPolicy.cot`: the four-part instructions or a bare request for the action lines),
registered as their own methods so a sweep reproduces the published ablation table.

The task is given in its own words (``EpisodeSetup.task_goal``: the utterance, the user's request), as
the paper's Task Description is, not the rephrasing the loop makes for the latent-state agents.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from latent_agent.accessibility.tree import ScreenSize
from latent_agent.agent.answer_lines import whole_lines
from latent_agent.agent.caap.answer import (
    GOAL_STATUSES,
    AnswerAction,
    Malformed,
    ParsedAction,
    catalogue,
    element_id,
    parse_answer,
)
from latent_agent.agent.caap.demos import Demo, DemoSet, ScriptAction, load_demos, reference_steps
from latent_agent.agent.caap.elements import UIElement, build_elements, element_lines, screen_signature
from latent_agent.agent.caap.purposes import CAAP
from latent_agent.agent.caap.scripts import (
    CLICK,
    CLICK_POINT,
    CONTROL_CLICK,
    FIXED_ACTIONS,
    HOLD,
    MOVE,
    POINT,
    RELEASE,
    WEB_KEYS,
    element_under,
)
from latent_agent.agent.calls import PromptCall, truncated
from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, StepInput, Verdict
from latent_agent.agent.resources import Resource, declare_resource
from latent_agent.agent.trajectory import StopReason, state_kind
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.device.base import DIRECTIONS
from latent_agent.errors import ConfigError
from latent_agent.grounder.actions import (
    Action,
    Click,
    ControlClick,
    Hover,
    InputText,
    LongPress,
    OpenApp,
    PointerDown,
    PointerMove,
    PointerUp,
    Scroll,
)
from latent_agent.grounder.base import Grounding
from latent_agent.llm.types import CallOptions, Completion, Message
from latent_agent.prompts.render import render
from latent_agent.surfaces import PHONE, Surface

if TYPE_CHECKING:
    from latent_agent.agent.resources import MethodResources

#: Demonstration files read so far, by absolute path (sweep workers share them).
_LOADED: dict[str, DemoSet] = {}
_LOADING = threading.Lock()

PLAN_TEMPLATE = "caap_plan.j2"
SYSTEM_TEMPLATE = "caap_system.j2"
#: The purpose the call declares.
PURPOSE = CAAP
#: The expert demonstrations the CAAP methods are shown (``latent-agent demos build``).
DEMOS = declare_resource(Resource(
    "demos", "--demos", "D", "the expert demonstrations the CAAP methods are shown (latent-agent demos build); "
    "without it they run with none"))
#: What the grounding of a step the policy grounded itself is recorded as.
GROUNDING_SOURCE = "caap"

#: Demonstrations shown with their rationales (the published method) ...
WITH_RATIONALES = "rationales"
#: ... as actions only (the "no rationales" ablation) ...
ACTIONS_ONLY = "actions"
#: ... or not at all (the "no demonstrations" ablation).
NO_DEMOS = "none"
DEMO_MODES = (WITH_RATIONALES, ACTIONS_ONLY, NO_DEMOS)

#: Why the model was asked at a step.
FIRST, AFTER_ERROR, QUEUE_EMPTY, SCREEN_CHANGED = "first", "error", "queue empty", "screen changed"
#: Actions that are not expected to change the screen (no "no change" note after them).
_QUIET = frozenset({"wait"})
#: The published cap on a web page: this many actions per episode (the authors' run configuration) ...
WEB_CAP = 17
#: ... but more for the tasks that need more (guess-number's guesses), by task id.
WEB_TASK_CAPS: tuple[tuple[str, int], ...] = (("guess-number", 50),)
#: Why a web page's action is refused while the mouse button is held (the published "mid-drag" guideline).
MID_DRAG = f"the mouse button is held down (a drag is under way): only {MOVE} or {RELEASE} can come next"


@state_kind
@dataclass(frozen=True, slots=True)
class CaapState:
    """What a step of the method records.

    Attributes:
        source: ``query`` (the model was asked at this step), ``queue`` (the next queued action) or
            ``cap`` (the method's step cap ended the episode).
        action: The action line taken (as the model wrote it), or empty.
        query_reason: Why the model was asked (``first``, ``error``, ``queue empty``, ``screen changed``).
        queued: The action lines still queued after this one.
        demos: The task ids of the demonstrations selected for the episode.
        demos_mode: ``rationales``, ``actions`` or ``none`` (what the prompt shows of them).
        cot: Whether the prompt asks for the four-part answer.
        elements: How many elements the screen's list held.
        cap: The method's step cap.
        error: Why the action could not be taken on this screen, if it could not.
    """

    source: str
    action: str = ""
    query_reason: str = ""
    queued: tuple[str, ...] = ()
    demos: tuple[str, ...] = ()
    demos_mode: str = WITH_RATIONALES
    cot: bool = True
    elements: int = 0
    cap: int = 0
    error: str | None = None

    KIND = "caap"

    @property
    def kind(self) -> str:
        return self.KIND


@dataclass(frozen=True, slots=True)
class CaapPolicy:
    """CAAP with its ablation switches.

    Attributes:
        demos_mode: What the prompt shows of the selected demonstrations (:data:`DEMO_MODES`).
        cot: Ask for the four-part answer (False: the action lines only).
        demos: The demonstrations to choose from (``--demos``); None runs without any.
        max_demos: Most demonstrations of other tasks one prompt shows (every demonstration of the task
            itself, on other instances, is shown).
        cap_factor: On a phone, the step cap is this many times the reference steps ...
        cap_floor: ... but at least this many ...
        cap_limit: ... and at most this many.
        web_cap: On a web page, the step cap (the published one) ...
        web_task_caps: ... or, for the tasks listed (by id), theirs.
    """

    demos_mode: str = WITH_RATIONALES
    cot: bool = True
    demos: DemoSet | None = field(default=None, compare=False)
    max_demos: int = 3
    cap_factor: int = 2
    cap_floor: int = 12
    cap_limit: int = 30
    web_cap: int = WEB_CAP
    web_task_caps: tuple[tuple[str, int], ...] = WEB_TASK_CAPS

    def __post_init__(self) -> None:
        if self.demos_mode not in DEMO_MODES:
            raise ConfigError(f"unknown demos mode {self.demos_mode!r}; choose one of {', '.join(DEMO_MODES)}")
        if not 1 <= self.cap_floor <= self.cap_limit or self.cap_factor < 1 or self.max_demos < 0:
            raise ConfigError(f"CAAP caps must satisfy 1 <= cap_floor <= cap_limit and cap_factor >= 1, got "
                              f"floor {self.cap_floor}, limit {self.cap_limit}, factor {self.cap_factor}")
        if min((self.web_cap, *(cap for _, cap in self.web_task_caps))) < 1:
            raise ConfigError(f"CAAP's web page caps must be >= 1, got {self.web_cap} and {self.web_task_caps}")

    def cap_for(self, setup: EpisodeSetup, reference: int | None) -> int:
        """The step cap of an episode: on a web page the published one (the task's own where listed); on a
        phone about ``cap_factor`` times ``reference`` (the selected demonstrations' longest), within
        ``cap_floor`` and ``cap_limit``, or the episode's step limit without demonstrations."""
        if setup.surface.web:
            return dict(self.web_task_caps).get(setup.task_id or "", self.web_cap)
        return min(self.cap_limit, setup.max_steps if reference is None else
                   max(self.cap_floor, self.cap_factor * reference))

    def with_demos(self, demos: DemoSet | None) -> CaapPolicy:
        """The same policy choosing from ``demos``."""
        return replace(self, demos=demos)

    @property
    def resources_used(self) -> frozenset[str]:
        """It reads the expert demonstrations (all variants, also those that show none: a sweep of the
        ablations is given one ``--demos``)."""
        return frozenset({DEMOS.name})

    def configured(self, resources: MethodResources) -> CaapPolicy:
        """The policy choosing from the resources' demonstrations (read once per process); without them, as registered.

        Raises:
            ConfigError: The demonstrations are missing, unreadable or malformed.
        """
        path = resources.path(DEMOS.name)
        if path is None:
            return self
        key = str(path.resolve())
        with _LOADING:
            demos = _LOADED.get(key)
            if demos is None:
                demos = _LOADED[key] = load_demos(path)
        return self.with_demos(demos)

    def resources_notice(self, resources: MethodResources) -> str:
        """Say that without ``--demos`` no demonstrations are shown (where the variant would show some)."""
        if resources.get(DEMOS.name) is not None or self.demos is not None or self.demos_mode == NO_DEMOS:
            return ""
        return "no --demos, so no demonstrations are shown (build them with `latent-agent demos build`)"

    def begin(self, setup: EpisodeSetup) -> CaapRun:
        return CaapRun(self, setup)


def _words(parsed: ParsedAction, element: UIElement | None) -> str:
    """The step as the trajectory shows it: ``click_element "Roaming" (element_11)``."""
    if element is not None:
        label = f' "{element.text}"' if element.text else f" {element.type}"
        rest = {k: v for k, v in parsed.args.items() if k != "element_id"}
        extra = "".join(f" {k}={v!r}" for k, v in rest.items())
        return f"{parsed.name}{label} ({element.id}){extra}"
    args = ", ".join(f"{k}={v!r}" for k, v in parsed.args.items())
    return f"{parsed.name}({args})"


@dataclass(frozen=True, slots=True)
class _Translated:
    """A parsed action on this screen: the device action or the verdict it makes, or why neither."""

    script: ScriptAction
    action: Action | None = None
    stop: Verdict | None = None
    error: str | None = None
    element: UIElement | None = None


def translate(parsed: AnswerAction, elements: dict[str, UIElement], surface: Surface = PHONE, *,
              screen: ScreenSize | None = None, dragging: bool = False) -> _Translated:
    """What an action line does on the screen whose elements are ``elements`` (by id).

    Args:
        parsed: The action line.
        elements: The screen's elements by id.
        surface: What the functions are those of (the phone's catalogue or the web page's).
        screen: The screen's size, which a web page's positions must lie within.
        dragging: The mouse button is held (a web page's drag is under way).
    """
    if isinstance(parsed, Malformed):
        return _Translated(ScriptAction("unreadable", params={"line": parsed.line}), error=parsed.error)
    functions = catalogue(surface)
    function = functions.get(parsed.name)
    if function is None:
        return _Translated(ScriptAction(parsed.name, params=dict(parsed.args)),
                           error=f"{parsed.name!r} is not one of the functions ({', '.join(functions)})")
    missing = [p.name for p in function.parameters if p.required and not parsed.args.get(p.name, "").strip()]
    if missing:
        return _Translated(ScriptAction(parsed.name, params=dict(parsed.args)),
                           error=f"{parsed.name} needs the argument {', '.join(missing)}")
    element: UIElement | None = None
    # On a web page an argument the function does not take is not read (the published parser reads each
    # function's own arguments): an element id beside typing's text names nothing.
    takes_element = not surface.web or any(p.name == "element_id" for p in function.parameters)
    if takes_element and "element_id" in parsed.args and parsed.args["element_id"].strip():
        wanted = element_id(parsed.args["element_id"])
        element = elements.get(wanted)
        if element is None:
            return _Translated(ScriptAction(parsed.name, params=dict(parsed.args)),
                               error=f"{wanted} is not in the element list of the current screen")
    params = {k: v for k, v in parsed.args.items() if k != "element_id"}
    if surface.web:
        return _web_action(parsed, element, tuple(elements.values()), screen, dragging)
    script = ScriptAction(parsed.name, element.attributes() if element is not None else {}, params)
    return _device_action(parsed, element, script)


def _position(parsed: ParsedAction, screen: ScreenSize | None) -> tuple[int, int] | str:
    """The ``(x, y)`` of a point function in pixels, or why it is none (not numbers, off the screen)."""
    point: list[int] = []
    for key in ("x", "y"):
        try:
            point.append(round(float(parsed.args[key])))
        except ValueError:
            return f"{parsed.name}: {key} must be a number of pixels, got {parsed.args[key]!r}"
    x, y = point
    if x < 0 or y < 0 or (screen is not None and (x >= screen.width or y >= screen.height)):
        size = f" ({screen.width}x{screen.height})" if screen is not None else ""
        return f"{parsed.name}: ({x}, {y}) is off the screen{size}"
    return x, y


def _web_action(parsed: ParsedAction, element: UIElement | None, elements: tuple[UIElement, ...],
                screen: ScreenSize | None, dragging: bool) -> _Translated:
    """A function of the published MiniWoB++ table as the web page's action (its script form as the history and
    the demonstrations write it: :mod:`latent_agent.agent.caap.scripts`)."""
    name, args = parsed.name, parsed.args
    if dragging and name not in (MOVE, RELEASE):
        return _Translated(ScriptAction(name, element.attributes() if element is not None else {},
                                        {k: v for k, v in args.items() if k != "element_id"}), error=MID_DRAG)
    if name in (CLICK, CONTROL_CLICK, POINT):
        assert element is not None, "element_id is a required argument of these functions"
        x, y = element.center
        action: Action = Click(x, y) if name == CLICK else ControlClick(x, y) if name == CONTROL_CLICK else Hover(x, y)
        return _Translated(ScriptAction(name, element.attributes()), action, element=element)
    if name == "type_text":
        text = args["string_to_type"]
        return _Translated(ScriptAction(name, params={"string_to_type": text}), InputText(text))
    if name in WEB_KEYS:
        return _Translated(ScriptAction(name), WEB_KEYS[name])
    if name == RELEASE:
        return _Translated(ScriptAction(name), PointerUp())
    point = _position(parsed, screen)
    if isinstance(point, str):
        return _Translated(ScriptAction(name, params=dict(args)), error=point)
    x, y = point
    if name == CLICK_POINT:
        return _Translated(ScriptAction(name, params={"x": x, "y": y}), Click(x, y))
    under = element_under(elements, x, y)
    script = ScriptAction(name, under.attributes() if under is not None else {}, {"x": x, "y": y})
    assert name in (HOLD, MOVE), name
    return _Translated(script, PointerDown(x, y) if name == HOLD else PointerMove(x, y), element=under)


def _device_action(parsed: ParsedAction, element: UIElement | None, script: ScriptAction) -> _Translated:
    name, args = parsed.name, parsed.args
    if element is not None and name in ("click_element", "long_press_element", "type_text"):
        x, y = element.center
        action: Action = (Click(x, y) if name == "click_element" else LongPress(x, y) if name == "long_press_element"
                          else InputText(args["text"], x, y))
        return _Translated(script, action, element=element)
    if name == "scroll":
        direction = args["direction"].strip().lower()
        if direction not in DIRECTIONS:
            return _Translated(script, error=f"scroll direction must be one of {', '.join(DIRECTIONS)}, got "
                                             f"{args['direction']!r}")
        point = element.center if element is not None else (None, None)
        return _Translated(script, Scroll(direction, *point), element=element)  # type: ignore[arg-type]
    if name == "status":
        status = args["goal_status"].strip().lower()
        if status not in GOAL_STATUSES:
            return _Translated(script, error=f"goal_status must be one of {', '.join(GOAL_STATUSES)}, got "
                                             f"{args['goal_status']!r}")
        detail = ("the agent reported the task complete" if status == "complete" else
                  f"the agent reported the task infeasible: {args.get('reason', '').strip() or 'no reason given'}")
        # Only "complete" claims the task done; "infeasible" gives it up.
        reason = StopReason.DONE if status == "complete" else StopReason.GAVE_UP
        return _Translated(script, stop=Verdict(reason, detail))
    if name == "answer":
        return _Translated(script, stop=Verdict(StopReason.DONE, f"the agent answered: {args['text']}"))
    if name == "open_app":
        return _Translated(script, OpenApp(args["app_name"].strip()))
    return _Translated(script, FIXED_ACTIONS[name])


class CaapRun:
    """One episode of :class:`CaapPolicy`: the history, the queue and the previous answer."""

    def __init__(self, policy: CaapPolicy, setup: EpisodeSetup) -> None:
        self.policy = policy
        self.setup = setup
        selected = policy.demos.select(setup.task_goal, setup.task_id, policy.max_demos) if policy.demos else ()
        self.selected: tuple[Demo, ...] = selected
        self.cap = policy.cap_for(setup, reference_steps(selected))
        self.history: list[ScriptAction] = [ScriptAction("start")]
        self.queue: list[AnswerAction] = []
        self.previous_answer = ""
        self.last_error: str | None = None
        self.last_signature: str | None = None
        self.last_quiet = True
        self.taken = 0
        #: On a web page: the mouse button is held (a drag's hold was carried out, its release not yet).
        self.dragging = False
        #: The function of the step just decided (told whether it was carried out by :meth:`record`).
        self.acting = ""

    # -- one step ----------------------------------------------------------------------------

    async def decide(self, step: StepInput) -> Decision:
        elements = build_elements(step.observation.tree)
        by_id = {e.id: e for e in elements}
        surface = self.setup.surface
        signature = screen_signature(elements, step.observation.screen.size, surface)
        self.acting = ""
        if self.taken >= self.cap:
            return Decision("stop (step cap)", state=self._state("cap", count=len(elements)),
                            stop=Verdict(StopReason.METHOD_CAP, f"CAAP's step cap ({self.cap}) reached"))
        changed = self.last_signature is not None and signature != self.last_signature
        # The "no change" note is the Android adaptation's (actions there often fail silently); not published.
        no_change = self.last_signature is not None and not changed and not self.last_quiet and not surface.web
        reason = (FIRST if self.last_signature is None and not self.queue else AFTER_ERROR if self.last_error
                  else QUEUE_EMPTY if not self.queue else SCREEN_CHANGED if changed else "")
        self.last_signature = signature
        answer = ""
        if reason:
            completion = await step.phases.timed("plan", self._ask(step, elements, no_change))
            answer = completion.texts[0] if completion.texts else ""
            cut = truncated(completion)
            try:
                # A cut answer keeps its finished action lines; the unfinished last one is dropped.
                self.queue = list(parse_answer(whole_lines(answer, cut)))
            except UnparsableAnswer as exc:
                problem = f"{exc} (it was cut at the output cap)" if cut else str(exc)
                step.caller.unparsable(completion, problem)
                self.queue = []
                self.previous_answer = answer
                return self._failed(ScriptAction("unreadable"), problem, reason, len(elements), answer)
            self.previous_answer = answer
        parsed = self.queue.pop(0)
        done = translate(parsed, by_id, surface, screen=step.observation.screen.size, dragging=self.dragging)
        line = parsed.line
        samples = (answer,) if answer else ()
        if done.error is not None:
            return self._failed(done.script, done.error, reason, len(elements), answer, line)
        self.history.append(done.script)
        self.last_quiet = done.script.name in _QUIET
        self.acting = done.script.name
        state = self._state("query" if reason else "queue", line, reason, len(elements))
        words = _words(parsed, done.element) if isinstance(parsed, ParsedAction) else line
        if done.stop is not None:
            return Decision(words, samples=samples, thought=answer, state=state, stop=done.stop)
        assert done.action is not None
        return Decision(words, samples=samples, thought=answer, state=state,
                        grounding=Grounding(done.action, None, GROUNDING_SOURCE, 0))

    def record(self, outcome: Outcome) -> None:
        if isinstance(outcome.state, CaapState) and outcome.state.source == "cap":
            return
        self.taken += 1
        if outcome.executed and self.acting in (HOLD, RELEASE):
            self.dragging = self.acting == HOLD
        if outcome.error is not None:
            self.last_error = outcome.error
            self.queue = []
        else:
            self.last_error = None

    def _failed(self, script: ScriptAction, error: str, reason: str, count: int, answer: str,
                line: str = "") -> Decision:
        """A step whose action cannot be taken here: recorded with the error, which the next query is told."""
        self.history.append(script)
        self.last_quiet = True
        state = self._state("query" if reason else "queue", line, reason, count, error=error)
        return Decision(line or "(no readable action)", samples=(answer,) if answer else (), thought=answer,
                        state=state, grounding=Grounding(None, error, GROUNDING_SOURCE, 0))

    def _state(self, source: str, line: str = "", reason: str = "", count: int = 0,
               error: str | None = None) -> CaapState:
        return CaapState(source, line, reason, tuple(a.line for a in self.queue),
                         tuple(d.task_id for d in self.selected), self.policy.demos_mode, self.policy.cot, count,
                         self.cap, error)

    # -- the prompt --------------------------------------------------------------------------

    def inputs(self, elements: tuple[UIElement, ...], no_change: bool) -> dict[str, object]:
        """The structured inputs the prompt is rendered from (what the demo stand-in answers from)."""
        shown = () if self.policy.demos_mode == NO_DEMOS else self.selected
        reasons = self.policy.demos_mode == WITH_RATIONALES
        demos = [{"task_id": d.task_id, "goal": d.goal,
                  "actions": [a.to_json() for a in d.actions],
                  "lines": [a.script(reason=reasons) for a in d.actions]} for d in shown]
        return {
            "goal": self.setup.task_goal,
            "demos": demos,
            "reasons": reasons,
            "history": [a.script(reason=False) for a in self.history],
            "history_actions": [a.to_json() for a in self.history],
            "last_error": self.last_error or "",
            "no_change": no_change,
            "previous_answer": self.previous_answer,
            "elements": [{"id": e.id, **e.attributes()} for e in elements],
            "element_lines": element_lines(elements),
            "catalogue": [f.to_json() for f in catalogue(self.setup.surface).values()],
            "next_index": len(self.history) + 1,
            "cot": self.policy.cot,
        }

    async def _ask(self, step: StepInput, elements: tuple[UIElement, ...], no_change: bool) -> Completion:
        inputs = self.inputs(elements, no_change)
        system = render(SYSTEM_TEMPLATE, self.setup.surface)
        call = PromptCall.of(PURPOSE, PLAN_TEMPLATE, self.setup.surface, **inputs)
        return await step.caller.send(call, CallOptions(messages=(Message("system", system),)))
