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
from dataclasses import dataclass, field

from latent_agent.agent.calls import LLMCaller, PromptCall, cut_reason, truncated
from latent_agent.agent.hidden_elements import ElementSignature, hide_elements
from latent_agent.agent.observe import Observation
from latent_agent.agent.placeholders import placeholder_problem
from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, StepInput, TrialEnd, Verdict
from latent_agent.agent.trajectory import StopReason, state_kind
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.errors import ConfigError
from latent_agent.purposes import Purpose

PLAN_TEMPLATE = "reflection_plan.j2"
REFLECT_TEMPLATE = "reflection_reflect.j2"
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
    """One trial's working memory."""

    steps: list[str] = field(default_factory=list)
    targets: list[ElementSignature | None] = field(default_factory=list)
    screens: list[str] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)
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
        self.replay: tuple[str, ...] = ()
        self.replay_signatures: tuple[str, ...] = ()
        self.forced_traces: set[tuple[str, ...]] = set()
        self.history: list[TrialSummary] = []
        self.current = _Trial()

    # -- one step ----------------------------------------------------------------------------

    async def decide(self, step: StepInput) -> Decision:
        trial, j = self.current, len(self.current.steps)
        signature = screen_signature(step.observation)
        status = self._status(step.observation, signature)
        if status is not None:
            return self._end(status, j, f"trial {self.trial_index + 1} ended: {status}")
        disabled = self._disabled_words(j)
        labels = self._disabled_labels(j)
        if j < len(self.replay) and signature != self.replay_signatures[j]:
            # The reset phone shows something else than the failed trial saw here (a notification, a
            # dialog): its steps may no longer fit, so plan from this screen on (the lessons still hold).
            self.replay, self.replay_signatures = (), ()
        if j < len(self.replay):
            trial.plan = []
            return self._take(self.replay[j], "replay", disabled=disabled)
        lesson = self.lessons.get(j)
        if lesson is not None and _folded(target_of(lesson.fix)) not in labels:
            trial.plan = []
            return self._take(lesson.fix, "lesson", lesson=lesson.fix, disabled=disabled)
        if trial.plan and not self._plan_still_fits(step):
            trial.plan = []
        if not trial.plan:
            named = sorted({s.label for s in self.disabled.get(j, ()) if s.label})
            plan = await step.phases.timed("plan", self._plan(step, j, named))
            if plan == (DONE_WORD,):
                return self._end(CORRECT, j, "the planner judged the task complete", plan=plan)
            usable = [s for s in plan if _folded(target_of(s)) not in labels]
            if not usable:
                return self._end(INCOMPLETE, j, "the planner had no step to take", plan=plan)
            trial.plan, trial.stage = usable, trial.stage + 1
            return self._take(trial.plan.pop(0), "plan", plan=plan, disabled=disabled)
        return self._take(trial.plan.pop(0), "plan", disabled=disabled)

    def hidden_elements(self) -> frozenset[ElementSignature]:
        """The elements whose taps are disabled at the step about to be decided (hidden from its screen)."""
        return frozenset(self.disabled.get(len(self.current.steps), ()))

    def _disabled_words(self, j: int) -> tuple[str, ...]:
        return tuple(sorted(str(s) for s in self.disabled.get(j, ())))

    def _disabled_labels(self, j: int) -> set[str | None]:
        return {_folded(s.label) for s in self.disabled.get(j, ()) if s.label}

    def record(self, outcome: Outcome) -> None:
        trial = self.current
        if isinstance(outcome.state, ReflectionState) and outcome.state.status is not None:
            return
        trial.steps.append(outcome.decision.step)
        trial.targets.append(outcome.target)
        trial.screens.append(outcome.observation.description)
        trial.signatures.append(screen_signature(outcome.observation))
        trial.last_executed, trial.last_error = outcome.executed, outcome.error

    def _status(self, observation: Observation, signature: str) -> str | None:
        """How the trial ends given the screen now shown, or None while it goes on."""
        trial = self.current
        if not trial.steps:
            return None
        if trial.last_error is not None:
            return EXCEPTION
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

    async def _plan(self, step: StepInput, j: int, disabled: list[str]) -> tuple[str, ...]:
        lesson = self.lessons.get(j)
        inputs = {"goal": self.setup.task_goal, "task_name": self.setup.task_id,
                  "description": step.observation.description,
                  "actions": list(self.current.steps),
                  "lessons": [f"At this step, instead of {lesson.wrong!r}, you should {lesson.fix}."]
                  if lesson is not None else [],
                  "disabled": list(disabled)}
        call = PromptCall.of(Purpose.PLAN, PLAN_TEMPLATE, self.setup.surface, **inputs)
        answer = await step.caller.send(call, temperature=0.0)
        text = answer.texts[0] if answer.texts else ""
        # A plan cut at the output cap, or one that copies the step vocabulary, is no plan: the stage has
        # no step to take (status incomplete, as for an empty plan), and the call records why.
        problem = cut_reason(answer) if truncated(answer) else placeholder_problem(text, PLAN_TEMPLATE)
        if problem is not None:
            step.caller.unparsable(answer, problem)
            return ()
        return parse_plan(text)

    def _take(self, text: str, source: str, *, plan: tuple[str, ...] = (), lesson: str | None = None,
              disabled: tuple[str, ...] = ()) -> Decision:
        state = ReflectionState(self.trial_index, max(self.current.stage, 0), source, plan, lesson=lesson,
                                disabled=disabled, feedback=self.feedback)
        return Decision(text, samples=plan, state=state)

    def _end(self, status: str, j: int, detail: str, *, plan: tuple[str, ...] = ()) -> Decision:
        self.current.status = status
        state = ReflectionState(self.trial_index, max(self.current.stage, 0), "status", plan, status=status,
                                disabled=self._disabled_words(j), feedback=self.feedback)
        # Only the planner's DONE claims the task done; every other status gives the trial up.
        reason = StopReason.DONE if status == CORRECT else StopReason.GAVE_UP
        return Decision(DONE_WORD if status == CORRECT else f"stop ({status})", samples=plan, state=state,
                        stop=Verdict(reason, f"{detail} (status: {status})"))

    # -- between trials ----------------------------------------------------------------------

    async def again(self, ended: TrialEnd, caller: LLMCaller) -> bool:
        """Reflect on a trial that was not correct and prepare the next one.

        An answer not in the required form (or cut at the output cap, or copying the step vocabulary's
        placeholders) teaches nothing: the call records why, and the next trial runs with the lessons it
        had, as Algorithm 1 does.

        Raises:
            LLMError: The reflection call failed.
        """
        trial = self.current
        status = trial.status or (STEP_CAP if ended.verdict.reason is StopReason.MAX_STEPS else CYCLE)
        feedback = self.feedback if ended.checked is not None else SELF_FEEDBACK
        if feedback == CHECK_FEEDBACK:
            if ended.checked:
                status = CORRECT
            elif status == CORRECT:
                status = FAILED
        steps = tuple(trial.steps)
        if status == CORRECT or ended.trial + 1 >= self.trials:
            self.history.append(TrialSummary(ended.trial, status, steps, feedback))
            return False
        blocks = [{"screen": screen, "action": action} for screen, action in zip(trial.screens, steps, strict=True)]
        inputs = {"goal": self.setup.task_goal, "task_name": self.setup.task_id, "blocks": blocks,
                  "actions": list(steps),
                  "status": STATUS_SENTENCES[status], "status_name": status, "feedback": feedback}
        call = PromptCall.of(Purpose.REFLECT, REFLECT_TEMPLATE, self.setup.surface, **inputs)
        answer = await caller.send(call, temperature=0.0)
        text = max(answer.texts, key=len) if answer.texts else ""
        self.history.append(TrialSummary(ended.trial, status, steps, feedback, text))
        try:
            if truncated(answer):
                raise UnparsableAnswer(cut_reason(answer))
            suggestion = parse_reflection(text)
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
        # Algorithm 1: a click is disabled at step j only when step j already had a lesson (its fix was tried
        # and failed too), and only when the new fix is a click on another element as well.
        tapped = trial.targets[j] if j < len(trial.targets) else None
        fix_target = _folded(target_of(suggestion.step))
        if j in self.lessons and tapped is not None and fix_target is not None and _folded(tapped.label) != fix_target:
            self.disabled.setdefault(j, set()).add(tapped)
        self.lessons[j] = Lesson(wrong, suggestion.step, text)
        for later in [k for k in self.lessons if k > j]:
            del self.lessons[later]
        for later in [k for k in self.disabled if k > j]:
            del self.disabled[later]
        self.replay, self.replay_signatures = steps[:j], tuple(trial.signatures[:j])
        self.trial_index += 1
        self.current = _Trial()
        return True
