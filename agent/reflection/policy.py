"""Staged planning with structured reflection (zero-shot, several trials), adapted to Android.

One planner call per screen (a *stage*) lists every step doable on that screen; the steps are
handed to the loop one per :meth:`ReflectionRun.decide` call and grounded there like any method's.
A stage ends when its plan runs out, when the screen changed in a way the plan did not expect (the
next planned target is not on the new screen; screens are compared by a signature that ignores the
clock and positions), or when a step could not be grounded or executed. The planner's history is
the trial's executed steps in their own words: the steps are already purpose-level phrases ("Tap
"Network & internet""), so the method's paraphrase call per action is left out; it would cost one
call per step, the very cost staged planning saves.

A trial ends with a status: ``correct`` (the planner says DONE: the agent's own completion
judgement, the deployable feedback ``self``; with the feedback ``check``, the task's automatic
check decides instead, the paper's oracle protocol), ``failed`` (DONE, but the check says no),
``cycle`` (a screen of the trial came back, other than by going home or back), ``no change`` (a
step changed nothing), ``exception`` (a step could not be grounded or executed), ``incomplete``
(an empty plan) and ``step cap``.
After a trial that is not correct, one reflection call reads the trial's screens and steps and
names the earliest wrong step and its fix ("For action index=A, you should B."). The lesson is
kept for that step (later lessons are cleared); the next trial, from the reset phone, replays
the earlier steps while its screens match the failed trial's (it plans from the first screen that
differs), takes the fix at that step without a planner call, and plans on from there.
A trial that ends other than ``correct`` ends with the stop reason ``gave_up`` (the agent did not claim
the task done). A plan or a reflection cut at the output cap, or copying the step vocabulary's
placeholders (``Tap "label"``), is unparsable (:mod:`latent_agent.agent.placeholders`): recorded as
such on its call, it gives an empty plan (status ``incomplete``) or no lesson.
Both prompts carry the goal in the task's own words (not the loop's rephrasing) and the task's name when
the episode runs a benchmark task, as the paper's prompts do.

On a web page (the surface is a web page and the observation carries the page,
:attr:`~latent_agent.agent.observe.Observation.page`) the method is the published one: the planner's screen
is the page's compact HTML (one line per visible leaf element, with its id), its plan lines and the
reflection's fix are the paper's commands (``click id=N``, ``enter "TEXT" to id=N``, ``hold CTRL``,
``press ARROWDOWN x N``; :mod:`latent_agent.agent.reflection.syntax`), executed without a grounding call (a
line naming no id is grounded in words by the loop's grounder, as the authors' code falls back to a
grounding prompt), and one paraphrase call per executed action turns the screen and the exact action into
the sentence the planner's history holds (key presses kept as written). A stage follows its plan whatever
the page does (an id that is gone is the ``exception`` status); ``cycle`` and ``no change`` compare the
compact HTML; the page's own end decides ``correct`` (reward above 0) or ``failed``; a click rejected twice at
a step loses its ``id=`` in that step's screen of the reflection prompt; the tasks of
:data:`STATIC_SCREEN_TASKS` show the reflection only their first screen and the action list.
A tap is disabled at a step when a second reflection rejects that step (the paper's Algorithm 1: the
step already had a lesson, whose forced tap failed too) and the new fix taps another element: the
element the tap landed on, named by a
signature that survives the reset (class, resource id and label; not an index, not a position), is
hidden from the screen the planner and the grounder see at that step of every later trial
(:class:`~latent_agent.agent.policy.HidesElements`), the planner is told which labels were tried
there, and a planned tap naming one is dropped. A fix that would recreate a trace already forced
and failed ends the retries instead of alternating between two failed traces.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from latent_agent.accessibility.web_page import PageElement, PageView
from latent_agent.agent.calls import LLMCaller, PromptCall, cut_reason, truncated
from latent_agent.agent.hidden_elements import ElementSignature, hide_elements
from latent_agent.agent.observe import Observation
from latent_agent.agent.placeholders import placeholder_problem
from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, StepInput, TrialEnd, Verdict
from latent_agent.agent.reflection.purposes import PARAPHRASE, PLAN, REFLECT
from latent_agent.agent.reflection.syntax import clicked_id, ground_line, is_hold, is_key_command, without_ids
from latent_agent.agent.trajectory import StopReason, state_kind
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.errors import ConfigError

PLAN_TEMPLATE = "reflection_plan.j2"
REFLECT_TEMPLATE = "reflection_reflect.j2"
PARAPHRASE_TEMPLATE = "reflection_paraphrase.j2"
#: What the planner writes when the task is complete.
DONE_WORD = "DONE"
#: Most steps one plan may hold (the authors' per-stage cap).
STAGE_CAP = 10

CORRECT = "correct"
FAILED = "failed"
CYCLE = "cycle"
NO_CHANGE = "no change"
EXCEPTION = "exception"
INCOMPLETE = "incomplete"
STEP_CAP = "step cap"
#: Every status that ends a trial.
STATUSES = (CORRECT, FAILED, CYCLE, NO_CHANGE, EXCEPTION, INCOMPLETE, STEP_CAP)

_ASK_FIX = " Name the earliest step that went wrong and the step to take there instead."
#: The sentence the reflection prompt gives for each status but ``correct``.
STATUS_SENTENCES = {
    FAILED: "The task was not completed." + _ASK_FIX,
    CYCLE: "You came back to a screen you had already seen, without progress." + _ASK_FIX,
    NO_CHANGE: "Your last step did not change the screen; it was probably the wrong kind of step." + _ASK_FIX,
    EXCEPTION: "Your last step could not be carried out on its screen; it has to be replaced by a different one.",
    INCOMPLETE: "You had no further step to take, but the task was not complete; more steps were needed."
                + _ASK_FIX,
    STEP_CAP: "You took too many steps without completing the task." + _ASK_FIX,
}

_INDEX = re.compile(r"index\s*=\s*(\d+)", re.IGNORECASE)
_SHOULD = re.compile(r",\s*you should\s+", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")
_QUOTED = re.compile(r'"([^"]+)"')
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")
#: Steps that act on the field an earlier step of the plan focused.
_FIELD_STEPS = ("type", "press enter")
#: Steps meant to return to a screen seen before (not a cycle on Android: the home screen is a hub).
_RETURNS = ("go to the home screen", "go back", "go home")
#: Steps that are expected to leave the screen as it was.
_QUIET = ("wait", "scroll")


def parse_plan(text: str) -> tuple[str, ...]:
    """The steps of a planner answer, one a line (bullets and numbers dropped, blank lines skipped).

    A line that is only DONE ends the plan; a plan that begins with it is ``("DONE",)``. Every plan keeps at
    most :data:`STAGE_CAP` steps, one that ended with DONE too (the authors' per-stage cap holds for any plan).
    """
    steps: list[str] = []
    for raw in text.split("[eod]", 1)[0].splitlines():
        line = _BULLET.sub("", raw).strip()
        if not line:
            continue
        if line.rstrip(".").upper() == DONE_WORD:
            return tuple(steps[:STAGE_CAP]) if steps else (DONE_WORD,)
        steps.append(line)
    return tuple(steps[:STAGE_CAP])


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A parsed reflection: take ``step`` at (0-based) step ``index`` of the next trial."""

    index: int
    step: str


def parse_reflection(text: str) -> Suggestion:
    """Read "For action index=A, you should B." (A is 1-based) from a reflection answer.

    Raises:
        UnparsableAnswer: No ``index=`` number, an index below 1, nothing after "you should", or a fix that
            copies the step vocabulary's placeholders (``Tap "label"``).
    """
    found = _INDEX.search(text)
    if found is None:
        raise UnparsableAnswer(f"the reflection names no 'index=A': {text[:120]!r}")
    index = int(found.group(1))
    should = _SHOULD.search(text, found.end())
    step = text[should.end():].strip().splitlines()[0].strip().rstrip(".").strip() if should else ""
    if index < 1 or not step:
        raise UnparsableAnswer(f"the reflection is not 'For action index=A, you should B.': {text[:120]!r}")
    copied = placeholder_problem(step, PLAN_TEMPLATE, REFLECT_TEMPLATE)
    if copied is not None:
        raise UnparsableAnswer(f"{copied}: {step[:120]!r}")
    return Suggestion(index - 1, step)


def screen_signature(observation: Observation) -> str:
    """What identifies a screen: its description (elements, texts, states, focus) with times of day blanked.

    The description holds no positions, so animations do not change it; a clock does, hence the blanking.
    """
    text = _CLOCK.sub("#:##", observation.description)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def target_of(step: str) -> str | None:
    """The label a tap or long press names in words, else None."""
    quoted = _QUOTED.search(step)
    lowered = step.strip().lower()
    return quoted.group(1) if quoted and lowered.startswith(("tap", "long press", "click")) else None


def _folded(label: str | None) -> str | None:
    """A label as compared between a step in words and an element (case and spacing ignored)."""
    return " ".join(label.split()).casefold() if label is not None else None


def _expects_same_screen(step: str) -> bool:
    return step.strip().lower().startswith(_QUIET)


#: The placeholders of the web page's command forms (``click id=N``, ``enter "TEXT" to id=N``): an answer holding
#: one unfilled copies the prompt's instructions (a capitalised key name such as CTRL is a real command there).
_WEB_PLACEHOLDERS = re.compile(r'\bid=N\b|"TEXT"|\bx N\b')


def _web_placeholder(text: str) -> str | None:
    """Why a web page's plan is a copy of the prompt's command forms (as a parse error), else None."""
    found = _WEB_PLACEHOLDERS.search(text)
    return None if found is None else f"the answer copies the prompt's placeholder {found.group()} instead of " \
                                      "filling it in"


#: Tasks whose reflection prompt shows only the trial's first screen and then the list of its actions, each
#: with the reason (the authors' ``use_static_screen``). Keyed by the task id the episode runs; read only on
#: a web page, where these MiniWoB++ names live.
STATIC_SCREEN_TASKS: Mapping[str, str] = MappingProxyType({
    "social-media-all": "a long trace of small clicks (a like or a retweet each) that hardly change the page: "
                        "every step's screen would repeat the first, and the prompt would grow with the trace "
                        "(the paper's section 7.5)",
})


def page_signature(page: PageView) -> str:
    """What identifies a web page for the trial's statuses: its compact HTML (hashed; equal pages, equal hashes)."""
    return hashlib.sha1(page.compact_html().encode("utf-8")).hexdigest()[:16]


def page_elements(page: PageView) -> list[dict[str, object]]:
    """The compact screen's elements as records (id, tag, classes, text, placeholder, value, checked): the
    facts :meth:`PageView.compact_html` writes, carried as a call's structured input."""
    return [_element_record(e) for e in page.leaves]


def _element_record(element: PageElement) -> dict[str, object]:
    return {"id": element.id, "tag": element.tag, "classes": list(element.classes), "text": element.text,
            "placeholder": element.placeholder, "value": element.value, "checked": element.checked}


#: Whether a trial succeeded is the agent's own judgement (deployable) ...
SELF_FEEDBACK = "self"
#: ... or the task's automatic check (the paper's protocol; needs ``EpisodeConfig.trial_check``).
CHECK_FEEDBACK = "check"


@state_kind
@dataclass(frozen=True, slots=True)
class ReflectionState:
    """What a step of the method records.

    Attributes:
        trial: The trial (0-based) the step belongs to.
        stage: The stage (0-based within the trial) the step came from.
        source: ``plan`` (from a planner call), ``replay`` (an earlier trial's step), ``lesson``
            (a reflection's fix, forced) or ``status`` (the step that ends the trial).
        plan: The stage's plan, when a planner call was made at this step.
        status: The trial's status, on the step that ends it.
        lesson: The lesson forced at this step, if any.
        disabled: The elements whose taps are disabled at this step (hidden from its screen), in words.
        feedback: What decides whether a trial succeeded (``self`` or ``check``), as configured.
    """

    trial: int
    stage: int
    source: str
    plan: tuple[str, ...] = ()
    status: str | None = None
    lesson: str | None = None
    disabled: tuple[str, ...] = ()
    feedback: str = SELF_FEEDBACK

    KIND = "reflection"

    @property
    def kind(self) -> str:
        return self.KIND


@dataclass(frozen=True, slots=True)
class Lesson:
    """What one reflection taught about a step: the step taken there, the fix, the raw answer."""

    wrong: str
    fix: str
    answer: str


@dataclass(frozen=True, slots=True)
class TrialSummary:
    """How one trial went: its status, its executed steps, what decided success and the reflection."""

    trial: int
    status: str
    steps: tuple[str, ...]
    feedback: str
    reflection: str | None = None


@dataclass(frozen=True, slots=True)
class ReflectionPolicy:
    """Staged planning with structured reflection over at most ``trials`` trials.

    Attributes:
        trials: Most trials (T).
        feedback: What decides that a trial succeeded: ``self`` or ``check`` (when the episode has
            no check, the agent's own judgement decides, and the trial's summary says so).
    """

    trials: int = 3
    feedback: str = SELF_FEEDBACK

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise ConfigError(f"trials must be >= 1, got {self.trials}")
        if self.feedback not in (SELF_FEEDBACK, CHECK_FEEDBACK):
            raise ConfigError(f"unknown feedback {self.feedback!r}; choose {SELF_FEEDBACK} or {CHECK_FEEDBACK}")

    @property
    def needs_task_check(self) -> bool:
        """Whether the task's check decides the trials (``check`` feedback)."""
        return self.feedback == CHECK_FEEDBACK

    def begin(self, setup: EpisodeSetup) -> ReflectionRun:
        return ReflectionRun(setup, self.trials, self.feedback)


@dataclass(slots=True)
class _Trial:
    """One trial's working memory.

    Attributes:
        steps: Each executed (or attempted) step as decided: words on a phone, a command line on a web page.
        targets: The element each grounded tap landed on (a phone's disabled taps are keyed by it).
        screens: Each step's screen as the reflection prompt shows it: the description, or the compact HTML.
        signatures: What identifies each step's screen (:func:`screen_signature`, :func:`page_signature`).
        pages: Each step's web page (None on a phone): its elements for the stand-in's inputs.
        history: The planner's history on a web page: one sentence per step, paraphrased or as written.
    """

    steps: list[str] = field(default_factory=list)
    targets: list[ElementSignature | None] = field(default_factory=list)
    screens: list[str] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)
    pages: list[PageView | None] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    plan: list[str] = field(default_factory=list)
    stage: int = -1
    status: str | None = None
    last_error: str | None = None
    last_executed: bool = False


class ReflectionRun:
    """One episode of :class:`ReflectionPolicy`: the lessons and disabled taps survive its trials."""

    def __init__(self, setup: EpisodeSetup, trials: int, feedback: str = SELF_FEEDBACK) -> None:
        self.setup = setup
        self.trials = trials
        self.feedback = feedback
        self.trial_index = 0
        self.lessons: dict[int, Lesson] = {}
        self.disabled: dict[int, set[ElementSignature]] = {}
        #: A web page's disabled clicks: per step, the ids whose clicks a second reflection rejected there.
        self.disabled_ids: dict[int, set[int]] = {}
        self.replay: tuple[str, ...] = ()
        self.replay_signatures: tuple[str, ...] = ()
        self.forced_traces: set[tuple[str, ...]] = set()
        self.history: list[TrialSummary] = []
        self.current = _Trial()
        #: Paraphrases by (screen, exact action): a step replayed on the same page is not paraphrased again.
        self.paraphrases: dict[tuple[str, str], str] = {}

    def _page(self, observation: Observation) -> PageView | None:
        """The web page the method plans on in ids, or None where it plans in words (a phone, or a web page
        observed from its screenshot alone)."""
        return observation.page if self.setup.surface.web else None

    # -- one step ----------------------------------------------------------------------------

    async def decide(self, step: StepInput) -> Decision:
        trial, j = self.current, len(self.current.steps)
        page = self._page(step.observation)
        signature = page_signature(page) if page is not None else screen_signature(step.observation)
        status = self._status(step.observation, signature, page)
        if status is not None:
            return self._end(status, j, f"trial {self.trial_index + 1} ended: {status}")
        if page is not None:
            await self._paraphrase(step)
        disabled = self._disabled_words(j)
        labels = self._disabled_labels(j)
        if j < len(self.replay) and signature != self.replay_signatures[j]:
            # The reset phone shows something else than the failed trial saw here (a notification, a
            # dialog): its steps may no longer fit, so plan from this screen on (the lessons still hold).
            self.replay, self.replay_signatures = (), ()
        if j < len(self.replay):
            trial.plan = []
            return self._take(self.replay[j], "replay", page, disabled=disabled)
        lesson = self.lessons.get(j)
        if lesson is not None and self._allowed(lesson.fix, j, labels, page):
            trial.plan = []
            return self._take(lesson.fix, "lesson", page, lesson=lesson.fix, disabled=disabled)
        if trial.plan and page is None and not self._plan_still_fits(step):
            trial.plan = []
        if not trial.plan:
            named = sorted({s.label for s in self.disabled.get(j, ()) if s.label})
            plan = await step.phases.timed("plan", self._plan(step, j, named, page))
            if plan == (DONE_WORD,):
                return self._end(CORRECT, j, "the planner judged the task complete", plan=plan)
            usable = [s for s in plan if self._allowed(s, j, labels, page)]
            if not usable:
                return self._end(INCOMPLETE, j, "the planner had no step to take", plan=plan)
            trial.plan, trial.stage = usable, trial.stage + 1
            return self._take(trial.plan.pop(0), "plan", page, plan=plan, disabled=disabled)
        return self._take(trial.plan.pop(0), "plan", page, disabled=disabled)

    def hidden_elements(self) -> frozenset[ElementSignature]:
        """The elements whose taps are disabled at the step about to be decided (hidden from its screen)."""
        return frozenset(self.disabled.get(len(self.current.steps), ()))

    def _allowed(self, step: str, j: int, labels: set[str | None], page: PageView | None) -> bool:
        """Whether ``step`` may be taken at step ``j``: it taps no label disabled there (a phone), or clicks no
        id disabled there (a web page: the paper forces a fix only when it is not in the disabled set)."""
        if page is not None:
            return clicked_id(step) not in self.disabled_ids.get(j, set())
        return _folded(target_of(step)) not in labels

    def _disabled_words(self, j: int) -> tuple[str, ...]:
        if self.setup.surface.web and self.disabled_ids.get(j):
            return tuple(f"id={i}" for i in sorted(self.disabled_ids[j]))
        return tuple(sorted(str(s) for s in self.disabled.get(j, ())))

    def _disabled_labels(self, j: int) -> set[str | None]:
        return {_folded(s.label) for s in self.disabled.get(j, ()) if s.label}

    def record(self, outcome: Outcome) -> None:
        trial = self.current
        if isinstance(outcome.state, ReflectionState) and outcome.state.status is not None:
            return
        page = self._page(outcome.observation)
        trial.steps.append(outcome.decision.step)
        trial.targets.append(outcome.target)
        trial.pages.append(page)
        if page is not None:
            trial.screens.append(page.compact_html())
            trial.signatures.append(page_signature(page))
        else:
            trial.screens.append(outcome.observation.description)
            trial.signatures.append(screen_signature(outcome.observation))
        trial.last_executed, trial.last_error = outcome.executed, outcome.error

    def _status(self, observation: Observation, signature: str, page: PageView | None) -> str | None:
        """How the trial ends given the screen now shown, or None while it goes on."""
        trial = self.current
        if not trial.steps:
            return None
        if trial.last_error is not None:
            return EXCEPTION
        if page is not None:
            # The paper's checks, on the compact HTML: the page as it was before the last action (a held
            # modifier changes nothing by design), or as it was before an earlier one.
            if signature == trial.signatures[-1] and not is_hold(trial.steps[-1]):
                return NO_CHANGE
            return CYCLE if signature in trial.signatures[:-1] else None
        # The last step's screen was shown without the elements hidden there: compare it like with like.
        last = hide_elements(observation, frozenset(self.disabled.get(len(trial.steps) - 1, ())))
        if screen_signature(last) == trial.signatures[-1] and not _expects_same_screen(trial.steps[-1]):
            return NO_CHANGE
        if signature in trial.signatures[:-1] and not trial.steps[-1].strip().lower().startswith(_RETURNS):
            return CYCLE
        return None

    def _plan_still_fits(self, step: StepInput) -> bool:
        """Whether the stage goes on: the screen is unchanged, the next step types into the field just
        tapped (or presses enter there), or the next planned tap's target is on the new screen."""
        if not step.screen_changed:
            return True
        following = self.current.plan[0]
        if following.strip().lower().startswith(_FIELD_STEPS):
            return True
        target = target_of(following)
        return target is not None and f'"{target}"' in step.observation.description

    async def _paraphrase(self, step: StepInput) -> None:
        """Give every executed step of the trial not yet in the planner's history its sentence: one paraphrase
        call per action (screen and exact action in, one purpose-level sentence out), a key press or hold as
        written, a step replayed on the same page as before.

        Raises:
            LLMError: The paraphrase call failed.
        """
        trial = self.current
        for k in range(len(trial.history), len(trial.steps)):
            action, screen = trial.steps[k], trial.screens[k]
            if is_key_command(action):
                trial.history.append(action)
                continue
            known = self.paraphrases.get((screen, action))
            if known is None:
                known = await step.phases.timed("paraphrase", self._paraphrase_call(step.caller, screen, action,
                                                                                     trial.pages[k]))
                self.paraphrases[(screen, action)] = known
            trial.history.append(known)

    async def _paraphrase_call(self, caller: LLMCaller, screen: str, action: str, page: PageView | None) -> str:
        inputs = {"screen": screen, "action": action, "elements": page_elements(page) if page is not None else []}
        call = PromptCall.of(PARAPHRASE, PARAPHRASE_TEMPLATE, self.setup.surface, **inputs)
        answer = await caller.send(call)
        text = answer.texts[0].strip() if answer.texts else ""
        sentence = text.split("\n", 1)[0].strip()
        # A sentence cut at the cap, or none at all, says less than the action itself: the history keeps the
        # action as written, and the call records why.
        if truncated(answer) or not sentence:
            caller.unparsable(answer, cut_reason(answer) if truncated(answer) else "the paraphrase is empty")
            return action
        return sentence

    async def _plan(self, step: StepInput, j: int, disabled: list[str], page: PageView | None) -> tuple[str, ...]:
        lesson = self.lessons.get(j)
        lessons = [f"At this step, instead of {lesson.wrong!r}, you should {lesson.fix}."] if lesson is not None else []
        if page is not None:
            # The screen is the page's compact HTML; its elements ride along as the same facts in records (what
            # the scripted stand-in reads), and the history is the paraphrases (the paper's planner never sees
            # an id of an earlier screen).
            inputs: dict[str, object] = {
                "goal": self.setup.task_goal, "task_name": self.setup.task_id, "screen": page.compact_html(),
                "elements": page_elements(page), "actions": list(self.current.history), "lessons": lessons}
        else:
            inputs = {"goal": self.setup.task_goal, "task_name": self.setup.task_id,
                      "description": step.observation.description, "actions": list(self.current.steps),
                      "lessons": lessons, "disabled": list(disabled)}
        call = PromptCall.of(PLAN, PLAN_TEMPLATE, self.setup.surface, **inputs)
        answer = await step.caller.send(call)
        text = answer.texts[0] if answer.texts else ""
        # A plan cut at the output cap, or one that copies the step vocabulary, is no plan: the stage has
        # no step to take (status incomplete, as for an empty plan), and the call records why.
        copied = _web_placeholder(text) if page is not None else placeholder_problem(text, PLAN_TEMPLATE)
        problem = cut_reason(answer) if truncated(answer) else copied
        if problem is not None:
            step.caller.unparsable(answer, problem)
            return ()
        return parse_plan(text)

    def _take(self, text: str, source: str, page: PageView | None, *, plan: tuple[str, ...] = (),
              lesson: str | None = None, disabled: tuple[str, ...] = ()) -> Decision:
        state = ReflectionState(self.trial_index, max(self.current.stage, 0), source, plan, lesson=lesson,
                                disabled=disabled, feedback=self.feedback)
        # On a web page a line in the paper's syntax is grounded here, with no model call; a line naming no id
        # is left to the loop's grounder (the authors' code falls back to a grounding prompt there).
        grounding = ground_line(text, page) if page is not None else None
        return Decision(text, samples=plan, state=state, grounding=grounding)

    def _end(self, status: str, j: int, detail: str, *, plan: tuple[str, ...] = ()) -> Decision:
        self.current.status = status
        state = ReflectionState(self.trial_index, max(self.current.stage, 0), "status", plan, status=status,
                                disabled=self._disabled_words(j), feedback=self.feedback)
        # Only the planner's DONE claims the task done; every other status gives the trial up.
        reason = StopReason.DONE if status == CORRECT else StopReason.GAVE_UP
        return Decision(DONE_WORD if status == CORRECT else f"stop ({status})", samples=plan, state=state,
                        stop=Verdict(reason, f"{detail} (status: {status})"))

    # -- between trials ----------------------------------------------------------------------

    def _trial_status(self, ended: TrialEnd, feedback: str) -> str:
        """How the trial that just ended is told to the reflection (:data:`STATUSES`).

        A page that ended its task decides, after whatever action ended it, as the authors' harness read it:
        a reward above 0 is ``correct``, anything else ``failed``. Otherwise the trial's own status, else the
        step limit's; with the task's check as feedback, the check overrules the agent's own ``correct``.
        """
        if ended.reward is not None and ended.reward.done:
            return CORRECT if ended.reward.raw > 0 else FAILED
        status = self.current.status
        if status is None:
            # The trial ended without the method's own status: at the step limit, or stopped by the loop.
            status = STEP_CAP if ended.verdict.reason is StopReason.MAX_STEPS else FAILED
        if feedback == CHECK_FEEDBACK:
            if ended.checked:
                return CORRECT
            if status == CORRECT:
                return FAILED
        return status

    def _blocks(self, trial: _Trial) -> list[dict[str, object]]:
        """The trial's steps as the reflection prompt shows them: each step's screen (on a web page with the
        ids of the clicks disabled at that step taken out) and the exact step taken."""
        blocks: list[dict[str, object]] = []
        for k, (screen, action, page) in enumerate(zip(trial.screens, trial.steps, trial.pages, strict=True)):
            if page is None:
                blocks.append({"screen": screen, "action": action})
                continue
            disabled = self.disabled_ids.get(k, set())
            blocks.append({"screen": without_ids(screen, disabled), "action": action,
                           "elements": [e for e in page_elements(page) if e["id"] not in disabled]})
        return blocks

    async def again(self, ended: TrialEnd, caller: LLMCaller) -> bool:
        """Reflect on a trial that was not correct and prepare the next one.

        An answer not in the required form (or cut at the output cap, or copying the step vocabulary's
        placeholders) teaches nothing: the call records why, and the next trial runs with the lessons it
        had, as Algorithm 1 does.

        Raises:
            LLMError: The reflection call failed.
        """
        trial = self.current
        feedback = self.feedback if ended.checked is not None else SELF_FEEDBACK
        status = self._trial_status(ended, feedback)
        steps = tuple(trial.steps)
        if status == CORRECT or ended.trial + 1 >= self.trials:
            self.history.append(TrialSummary(ended.trial, status, steps, feedback))
            return False
        web = any(page is not None for page in trial.pages)
        static = web and self.setup.task_id in STATIC_SCREEN_TASKS and bool(trial.screens)
        inputs = {"goal": self.setup.task_goal, "task_name": self.setup.task_id, "blocks": self._blocks(trial),
                  "actions": list(steps), "static_screen": trial.screens[0] if static else None,
                  "status": STATUS_SENTENCES[status], "status_name": status, "feedback": feedback}
        call = PromptCall.of(REFLECT, REFLECT_TEMPLATE, self.setup.surface, **inputs)
        answer = await caller.send(call)
        text = max(answer.texts, key=len) if answer.texts else ""
        self.history.append(TrialSummary(ended.trial, status, steps, feedback, text))
        try:
            if truncated(answer):
                raise UnparsableAnswer(cut_reason(answer))
            suggestion = parse_reflection(text)
            if web and (copied := _web_placeholder(suggestion.step)) is not None:
                raise UnparsableAnswer(copied)
        except UnparsableAnswer as exc:
            # Algorithm 1 updates the lessons only when the answer names a valid step; the next trial
            # runs with the lessons it had.
            caller.unparsable(answer, str(exc))
            self.trial_index += 1
            self.current = _Trial()
            return True
        j = min(suggestion.index, len(steps))
        trace = (*steps[:j], suggestion.step)
        if trace in self.forced_traces:
            return False
        self.forced_traces.add(trace)
        wrong = steps[j] if j < len(steps) else "stopping"
        if web:
            self._disable_click(j, wrong, suggestion.step)
        else:
            # Algorithm 1: a click is disabled at step j only when step j already had a lesson (its fix was
            # tried and failed too), and only when the new fix is a click on another element as well.
            tapped = trial.targets[j] if j < len(trial.targets) else None
            fix_target = _folded(target_of(suggestion.step))
            if j in self.lessons and tapped is not None and fix_target is not None \
                    and _folded(tapped.label) != fix_target:
                self.disabled.setdefault(j, set()).add(tapped)
        self.lessons[j] = Lesson(wrong, suggestion.step, text)
        for later in [k for k in self.lessons if k > j]:
            del self.lessons[later]
        for later in [k for k in self.disabled if k > j]:
            del self.disabled[later]
        for later in [k for k in self.disabled_ids if k > j]:
            del self.disabled_ids[later]
        self.replay, self.replay_signatures = steps[:j], tuple(trial.signatures[:j])
        self.trial_index += 1
        self.current = _Trial()
        return True

    def _disable_click(self, j: int, taken: str, fix: str) -> None:
        """Algorithm 1 on a web page: the click taken at step ``j`` is disabled there when the step already had a
        lesson (its forced fix failed too) and the new fix clicks another id (the authors' code: both clicks, on
        different ids)."""
        old, new = clicked_id(taken), clicked_id(fix)
        if j in self.lessons and old is not None and new is not None and old != new:
            self.disabled_ids.setdefault(j, set()).add(old)
