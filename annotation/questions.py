"""The questions raters answer, worded as in the method's paper.

Three kinds of form exist. ``latent`` forms judge the latent-state estimates
made at one step (one page per step); ``e2e`` forms judge a whole episode
(one page per episode); ``errors`` forms ask for the primary root cause of a
failed episode (one page per failure, the paper's error analysis). Every
question has a stable id: answers, scores and the report refer to questions by
id, never by their wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from latent_agent.benchmarks.ratings import RootCause


class FormKind(StrEnum):
    """What a form asks about."""

    LATENT = "latent"
    E2E = "e2e"
    ERRORS = "errors"


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer a rater can pick: the stored ``value`` and the ``label`` shown."""

    value: str
    label: str


@dataclass(frozen=True, slots=True)
class Question:
    """A question on a form page.

    Attributes:
        id: Stable identifier (``summary_accurate``, ``partial_2``...).
        text: The question as the rater reads it.
        choices: The answers offered; exactly one must be picked.
        help: A short clarification shown under the question, if any.
    """

    id: str
    text: str
    choices: tuple[Choice, ...]
    help: str = ""

    def allows(self, value: str) -> bool:
        """Whether ``value`` is one of this question's choices."""
        return any(c.value == value for c in self.choices)


YES = "yes"
NO = "no"
YES_NO = (Choice(YES, "Yes"), Choice(NO, "No"))

# -- latent-state questions (one page per step) --------------------------------

SUMMARY_ACCURATE = Question(
    "summary_accurate",
    "Does the screen summary give an accurate high-level description of the screen?",
    YES_NO,
)
SUMMARY_INCORRECT = Question(
    "summary_incorrect",
    "Does the screen summary include any incorrect information?",
    YES_NO,
)
SUMMARY_INCORRECT_IGNORING_POSITION = Question(
    "summary_incorrect_ignoring_position",
    "Disregarding information about the position of elements, does the screen summary include any "
    "incorrect information?",
    YES_NO,
)
PREVIOUS_ACTION_CORRECT = Question(
    "previous_action_correct",
    "Was the action performed between the previous step and this step inferred correctly?",
    YES_NO,
    "Compare the agent's inferred previous action with what really happened between the two screens "
    "(the commanded action is drawn on the previous screen; it may not be what was performed).",
)
MISTAKES_CORRECT = Question(
    "mistakes_correct",
    "Does the mistake assessment accurately capture the uncorrected mistakes made so far?",
    YES_NO,
)
PROGRESSION_CORRECT = Question(
    "progression_correct",
    "Does the progression accurately summarize what has been done so far?",
    YES_NO,
)
COMPLETION_CORRECT = Question(
    "completion_correct",
    "Did the planner correctly determine whether the goal was complete?",
    YES_NO,
)
NEXT_ACTION_MISTAKE = Question(
    "next_action_mistake",
    "Was the action taken from this step to the next step a mistake?",
    YES_NO,
    "The next action is drawn on this step's screen.",
)

#: Every latent question, in the order a page shows them.
LATENT_QUESTIONS: tuple[Question, ...] = (
    SUMMARY_ACCURATE,
    SUMMARY_INCORRECT,
    SUMMARY_INCORRECT_IGNORING_POSITION,
    PREVIOUS_ACTION_CORRECT,
    MISTAKES_CORRECT,
    PROGRESSION_CORRECT,
    COMPLETION_CORRECT,
    NEXT_ACTION_MISTAKE,
)


def latent_questions(*, first: bool, last: bool, has_completion: bool) -> tuple[Question, ...]:
    """The latent questions that apply to one step.

    Args:
        first: The episode's first step has no previous action to judge.
        last: The last step has no next action to judge.
        has_completion: Whether the agent made a completion estimate at this step.
    """
    skip = set()
    if first:
        skip.add(PREVIOUS_ACTION_CORRECT.id)
    if last:
        skip.add(NEXT_ACTION_MISTAKE.id)
    if not has_completion:
        skip.add(COMPLETION_CORRECT.id)
    return tuple(q for q in LATENT_QUESTIONS if q.id not in skip)


# -- end-to-end questions (one page per episode) -------------------------------


class Stopping(StrEnum):
    """How an episode ended, as a rater judges it."""

    RIGHT_TIME = "right_time"
    PREMATURE = "premature"
    EXTRA_STEPS = "extra_steps"
    DID_NOT_STOP = "did_not_stop"


COMPLETED = Question(
    "completed",
    "Did the agent complete the task, regardless of whether it stopped at the right time?",
    YES_NO,
)
STOPPING = Question(
    "stopping",
    "How did the agent stop?",
    (
        Choice(Stopping.RIGHT_TIME.value, "It stopped at the right time"),
        Choice(Stopping.PREMATURE.value, "It stopped prematurely"),
        Choice(Stopping.EXTRA_STEPS.value, "It took extra steps before stopping"),
        Choice(Stopping.DID_NOT_STOP.value, "It did not stop"),
    ),
    "\"Did not stop\": the episode ended on the step limit or an error, not because the agent decided to stop.",
)
PARTIAL_PREFIX = "partial_"


def partial_question(index: int, label: str) -> Question:
    """The ``index``-th (1-based) partial-completion question of a task, from its check's label."""
    return Question(
        f"{PARTIAL_PREFIX}{index}",
        f"Partial completion: did the agent achieve this part of the task? \u2014 {label}",
        YES_NO,
    )


def partial_label(question: Question) -> str:
    """The check label a partial-completion question was made from (inverse of :func:`partial_question`)."""
    return question.text.split(" \u2014 ", 1)[-1]


def e2e_questions(partial_labels: tuple[str, ...]) -> tuple[Question, ...]:
    """An episode page's questions: completion, the task's partial-completion questions, stopping."""
    return (COMPLETED, *(partial_question(i, label) for i, label in enumerate(partial_labels, 1)), STOPPING)


# -- error analysis (one page per failed episode) ------------------------------

#: The label each root cause is offered under (the stored value is the :class:`RootCause` value).
CAUSE_LABELS: dict[RootCause, str] = {
    RootCause.ACTION_SELECTION: "Action selection: the agent chose wrong steps (or stopped at the wrong time)",
    RootCause.GROUNDING: "Grounding: the chosen steps were right, but were turned into wrong actions (or none)",
    RootCause.BOTH: "Both action selection and grounding",
    RootCause.ENVIRONMENT: "The environment: e.g. an app failed to load, the screen froze, the phone misbehaved",
}
ERROR_CAUSE = Question(
    "error_cause",
    "The agent failed this task. What was the primary root cause of the failure?",
    tuple(Choice(cause.value, CAUSE_LABELS[cause]) for cause in RootCause),
    "Each step shows the step the agent chose (\"Commanded\") and the action it was grounded to (\"Action\"). "
    "Pick the cause without which the task would most likely have succeeded.",
)


def errors_questions() -> tuple[Question, ...]:
    """A failed episode's page: its primary root cause."""
    return (ERROR_CAUSE,)
