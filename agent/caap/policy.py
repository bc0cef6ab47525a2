"""CAAP: context-aware action planning from the screen's element list (Cho et al.), adapted to Android.

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
screen changed (its element signature differs: :func:`~latent_agent.agent.caap.elements.screen_signature`
ignores the clock, the status bar and focus). Otherwise the next queued action is taken without a
call. ``status(complete)`` and ``answer(text)`` end the episode, ``status(infeasible)`` ends it with
its reason. The method has a step cap of about twice the reference steps (the longest demonstration
selected for the task), at least :attr:`CaapPolicy.cap_floor` and at most :attr:`CaapPolicy.cap_limit`;
without demonstrations the cap is the episode's step limit, at most ``cap_limit``.

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

from latent_agent.agent.answer_lines import whole_lines
from latent_agent.agent.caap.answer import (
    CATALOGUE,
    FUNCTIONS,
    GOAL_STATUSES,
    AnswerAction,
    Malformed,
    ParsedAction,
    element_id,
    parse_answer,
)
from latent_agent.agent.caap.demos import Demo, DemoSet, ScriptAction, load_demos, reference_steps
from latent_agent.agent.caap.elements import UIElement, build_elements, element_lines, screen_signature
from latent_agent.agent.caap.scripts import FIXED_ACTIONS
from latent_agent.agent.calls import PromptCall, truncated
from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, StepInput, Verdict
from latent_agent.agent.trajectory import StopReason, state_kind
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.device.base import DIRECTIONS
from latent_agent.errors import ConfigError
from latent_agent.grounder.actions import (
    Action,
    Click,
    InputText,
    LongPress,
    OpenApp,
    Scroll,
)
from latent_agent.grounder.base import Grounding
from latent_agent.llm.types import Completion, Message
from latent_agent.prompts.render import render
from latent_agent.purposes import Purpose

if TYPE_CHECKING:
    from latent_agent.agent.resources import MethodResources

#: Demonstration files read so far, by absolute path (sweep workers share them).
_LOADED: dict[str, DemoSet] = {}
_LOADING = threading.Lock()

PLAN_TEMPLATE = "caap_plan.j2"
SYSTEM_TEMPLATE = "caap_system.j2"
#: The purpose the call declares.
PURPOSE = Purpose.CAAP
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
        cap_factor: The step cap is this many times the reference steps ...
        cap_floor: ... but at least this many ...
        cap_limit: ... and at most this many.
    """

    demos_mode: str = WITH_RATIONALES
    cot: bool = True
    demos: DemoSet | None = field(default=None, compare=False)
    max_demos: int = 3
    cap_factor: int = 2
    cap_floor: int = 12
    cap_limit: int = 30

    def __post_init__(self) -> None:
        if self.demos_mode not in DEMO_MODES:
            raise ConfigError(f"unknown demos mode {self.demos_mode!r}; choose one of {', '.join(DEMO_MODES)}")
        if not 1 <= self.cap_floor <= self.cap_limit or self.cap_factor < 1 or self.max_demos < 0:
            raise ConfigError(f"CAAP caps must satisfy 1 <= cap_floor <= cap_limit and cap_factor >= 1, got "
                              f"floor {self.cap_floor}, limit {self.cap_limit}, factor {self.cap_factor}")

    def with_demos(self, demos: DemoSet | None) -> CaapPolicy:
        """The same policy choosing from ``demos``."""
        return replace(self, demos=demos)

    @property
    def resources_used(self) -> frozenset[str]:
        """It reads the expert demonstrations (all variants, also those that show none: a sweep of the
        ablations is given one ``--demos``)."""
        return frozenset({"demos"})

    def configured(self, resources: MethodResources) -> CaapPolicy:
        """The policy choosing from ``resources.demos`` (read once per process); without them, as registered.

        Raises:
            ConfigError: The demonstrations are missing, unreadable or malformed.
        """
        if resources.demos is None:
            return self
        key = str(resources.demos.resolve())
        with _LOADING:
            demos = _LOADED.get(key)
            if demos is None:
                demos = _LOADED[key] = load_demos(resources.demos)
        return self.with_demos(demos)

    def resources_notice(self, resources: MethodResources) -> str:
        """Say that without ``--demos`` no demonstrations are shown (where the variant would show some)."""
        if resources.demos is not None or self.demos is not None or self.demos_mode == NO_DEMOS:
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


def translate(parsed: AnswerAction, elements: dict[str, UIElement]) -> _Translated:
    """What an action line does on the screen whose elements are ``elements`` (by id)."""
    if isinstance(parsed, Malformed):
        return _Translated(ScriptAction("unreadable", params={"line": parsed.line}), error=parsed.error)
    function = FUNCTIONS.get(parsed.name)
    if function is None:
        return _Translated(ScriptAction(parsed.name, params=dict(parsed.args)),
                           error=f"{parsed.name!r} is not one of the functions ({', '.join(FUNCTIONS)})")
    missing = [p.name for p in function.parameters if p.required and not parsed.args.get(p.name, "").strip()]
    if missing:
        return _Translated(ScriptAction(parsed.name, params=dict(parsed.args)),
                           error=f"{parsed.name} needs the argument {', '.join(missing)}")
    element: UIElement | None = None
    if "element_id" in parsed.args and parsed.args["element_id"].strip():
        wanted = element_id(parsed.args["element_id"])
        element = elements.get(wanted)
        if element is None:
            return _Translated(ScriptAction(parsed.name, params=dict(parsed.args)),
                               error=f"{wanted} is not in the element list of the current screen")
    params = {k: v for k, v in parsed.args.items() if k != "element_id"}
    script = ScriptAction(parsed.name, element.attributes() if element is not None else {}, params)
    return _device_action(parsed, element, script)


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
        reference = reference_steps(selected)
        self.cap = min(policy.cap_limit, setup.max_steps if reference is None else
                       max(policy.cap_floor, policy.cap_factor * reference))
        self.history: list[ScriptAction] = [ScriptAction("start")]
        self.queue: list[AnswerAction] = []
        self.previous_answer = ""
        self.last_error: str | None = None
        self.last_signature: str | None = None
        self.last_quiet = True
        self.taken = 0

    # -- one step ----------------------------------------------------------------------------

    async def decide(self, step: StepInput) -> Decision:
        elements = build_elements(step.observation.tree)
        by_id = {e.id: e for e in elements}
        signature = screen_signature(elements, step.observation.screen.size)
        if self.taken >= self.cap:
            return Decision("stop (step cap)", state=self._state("cap", count=len(elements)),
                            stop=Verdict(StopReason.METHOD_CAP, f"CAAP's step cap ({self.cap}) reached"))
        changed = self.last_signature is not None and signature != self.last_signature
        no_change = self.last_signature is not None and not changed and not self.last_quiet
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
        done = self._translate(parsed, by_id)
        line = parsed.line
        samples = (answer,) if answer else ()
        if done.error is not None:
            return self._failed(done.script, done.error, reason, len(elements), answer, line)
        self.history.append(done.script)
        self.last_quiet = done.script.name in _QUIET
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
        if outcome.error is not None:
            self.last_error = outcome.error
            self.queue = []
        else:
            self.last_error = None

    @staticmethod
    def _translate(parsed: AnswerAction, by_id: dict[str, UIElement]) -> _Translated:
        return translate(parsed, by_id)

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
            "catalogue": [f.to_json() for f in CATALOGUE],
            "next_index": len(self.history) + 1,
            "cot": self.policy.cot,
        }

    async def _ask(self, step: StepInput, elements: tuple[UIElement, ...], no_change: bool) -> Completion:
        inputs = self.inputs(elements, no_change)
        system = render(SYSTEM_TEMPLATE, self.setup.surface)
        call = PromptCall.of(PURPOSE, PLAN_TEMPLATE, self.setup.surface, **inputs)
        return await step.caller.send(call, temperature=0.0,
                                      messages=(Message("system", system),))
