"""A scripted stand-in that plays a competent LLM on the simulated phone's tasks.

**This is not a language model.** It is a responder for
:class:`~latent_agent.llm.scripted.ScriptedModel` used by the tests, the benchmark script
and the offline demo (``latent-agent run ... --llm demo``). It never reads a prompt's
wording: every call declares its purpose (``select``, ``ground``, ``mistakes``, ...) and
carries the structured inputs its prompt was rendered from (the goal, the screen
description or element list, the history or latent-state estimates), so changing how a
prompt is worded changes nothing here. It answers in the format the call's parser reads.
Its knowledge of *what to do* comes from the sim task suite: it finds the task whose goal
the call names and follows that task's reference solution, working out from the inputs
how far the episode has got. The screen descriptions it reads are the accessibility
layer's format, not a prompt's.

Like a competent model it notices when the screen did not change the way the
commanded action should have changed it (a tap that landed on the wrong row with the
sim's tap-offset noise, or a step that could not be grounded), reports the action that
was really performed (in the commanded action's words when it was performed as
commanded), and, from the summary of what has been done, lists an uncorrected
deviation from the task's solution as a mistake with its correction. A step performed
as commanded is never reported as a mistake. It follows the parsers' answer formats:
"Real action:", prose continuing "You have", "You should ...", "Answer:", "Thought: ...
Action: ...", and the "-" agents' stop phrases ("You should be done.", "done."). It
knows only the sim suite's goals and the utterances of a few MiniWoB++ tasks, whose steps it reads
from the utterance (:mod:`latent_agent.demo.oracle_miniwob`); for any other goal it refuses the request
(:class:`~latent_agent.errors.LLMRequestError`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property

from rapidfuzz import fuzz, process

from latent_agent.agent.goal import NORMALIZE_GOAL
from latent_agent.agent.icon_names import NAME_ICONS
from latent_agent.agent.latent_state.chain import NO_MISTAKES
from latent_agent.agent.latent_state.purposes import (
    COMPLETION,
    MISTAKES,
    PREVIOUS_ACTION,
    PROGRESSION,
    SCREEN_SUMMARY,
    SELECT,
)
from latent_agent.agent.reflection.purposes import PARAPHRASE, PLAN, REFLECT
from latent_agent.benchmarks.paper_tasks import pixelhelp_sim_tasks
from latent_agent.benchmarks.sim_tasks import Task, load_suite
from latent_agent.benchmarks.steps import past_tense
from latent_agent.demo.oracle_caap import handlers as caap_handlers
from latent_agent.demo.oracle_exemplars import handlers as exemplar_handlers
from latent_agent.demo.oracle_icons import name_icons
from latent_agent.demo.oracle_inputs import Inputs, text_input, texts_input
from latent_agent.demo.oracle_miniwob import PLAYED_TASKS, miniwob_task
from latent_agent.demo.oracle_reflection_web import WebReflectionPlayer, is_web_call
from latent_agent.demo.oracle_screens import (
    QUOTED,
    control_label,
    control_states,
    controls,
    names_control,
    row_of,
    same_controls,
    screen_texts,
    toggled,
)
from latent_agent.demo.oracle_solution import carries_out, command_key, next_step, solution_plan, walk
from latent_agent.errors import ConfigError, LLMRequestError
from latent_agent.grounder.base import GROUND
from latent_agent.grounder.paper import ELEMENTS_KEY as PAPER_ELEMENTS_KEY
from latent_agent.llm.ping import PING_PURPOSE
from latent_agent.llm.scripted import Reply
from latent_agent.llm.types import GenerationRequest

#: What the "+" selectors propose once the solution is complete (they have no stop phrase).
COMPLETE_STEP = "Do nothing more, the goal has been achieved"
#: The previous-action answer when the two screens are the same.
NO_ACTION = "No action was performed."
#: The previous-action answer when a tap meant for a setting left its screen without choosing it.
WENT_BACK = "Went back."
#: The separator of performed actions in the oracle's progression prose.
_THEN = "; then "

#: Makes the players of some call kinds from the oracle's task lookup (the task a goal names; it raises
#: :class:`~latent_agent.errors.LLMRequestError` for a goal it does not know): call kind -> the answer to a call's
#: inputs.
Players = Callable[[Callable[[str], Task]], Mapping[str, Callable[[Inputs], str]]]


def _icon_players(find_task: Callable[[str], Task]) -> dict[str, Callable[[Inputs], str]]:
    return {NAME_ICONS: name_icons}


#: The players of the built-in call kinds this module does not play itself, one set per method family's module.
BUILTIN_PLAYERS: tuple[Players, ...] = (exemplar_handlers, caap_handlers, _icon_players)
#: Those registered from elsewhere (:func:`register_players`).
_REGISTERED: list[Players] = []


def register_players(players: Players) -> None:
    """Have the oracle play more call kinds: a method from elsewhere registers the players of its own calls here,
    as its call kinds, its resources and its report section are registered in theirs (registering the same set
    again is harmless).

    Raises:
        ConfigError: A call kind the oracle plays already.
    """
    if players in _REGISTERED:
        return
    played = {purpose for made in (*BUILTIN_PLAYERS, *_REGISTERED) for purpose in made(_no_task)}
    taken = sorted(played & set(players(_no_task)))
    if taken:
        raise ConfigError(f"the demo stand-in plays {', '.join(taken)} already")
    _REGISTERED.append(players)


def _no_task(goal: str) -> Task:
    """A task lookup for reading which call kinds a set plays: never called to answer."""
    raise LLMRequestError(f"no task is looked up while players are registered ({goal!r})")


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _goal_key(goal: str) -> str:
    return " ".join(goal.replace("“", '"').replace("”", '"').strip().rstrip(".").split()).casefold()


def _performed(progression: str) -> list[str]:
    """The actions of the oracle's own progression prose, as past-tense sentences."""
    body = progression.strip().removeprefix("You have").strip().rstrip(".")
    if not body or body.startswith("not performed"):
        return []
    return [_upper_first(part.strip()) + "." for part in body.split(_THEN) if part.strip()]


# -- the responder ---------------------------------------------------------------------------


class DemoOracle:
    """The responder: ``ScriptedModel(responder=DemoOracle())``.

    Args:
        tasks: The tasks it knows (default: the sim suite).
        drop_answer_every: Every this many CoT samples it leaves out "Answer:" and ends with
            the step as its last sentence, as sampled models sometimes do (0: never).
    """

    def __init__(self, tasks: Sequence[Task] | None = None, *, drop_answer_every: int = 4) -> None:
        self._tasks = tuple(tasks) if tasks is not None else None
        self._samples = itertools.count(1)
        self.drop_answer_every = drop_answer_every
        # Structured reflection on a web page answers in the page's ids (its calls carry the page's elements).
        self._web = WebReflectionPlayer(self._task)

    @cached_property
    def tasks(self) -> tuple[Task, ...]:
        if self._tasks is not None:
            return self._tasks

        # The paper's PixelHelp goals are played by sim tasks under the paper's wording.
        return (*load_suite(), *pixelhelp_sim_tasks())

    def find_task(self, goal: str) -> Task | None:
        """The task whose goal ``goal`` names (exactly, else a close fuzzy match), or None.

        A MiniWoB++ utterance the demo plays (:mod:`latent_agent.demo.oracle_miniwob`) gives the task it
        poses, its steps read from the utterance.
        """

        wanted = _goal_key(goal)
        by_key = {_goal_key(t.goal): t for t in self.tasks}
        if wanted in by_key:
            return by_key[wanted]
        if (page := miniwob_task(goal)) is not None:
            return page
        best = process.extractOne(wanted, list(by_key), scorer=fuzz.ratio)
        return by_key[best[0]] if best is not None and best[1] >= 90 else None

    def _task(self, goal: str) -> Task:
        task = self.find_task(goal)
        if task is None:
            raise LLMRequestError(
                f"the demo stand-in (a scripted oracle, not a language model) knows only the sim suite's "
                f"goals and the MiniWoB++ tasks {', '.join(PLAYED_TASKS)}; {goal!r} is not one of them"
            )
        return task

    def _players(self, find_task: Callable[[str], Task]) -> dict[str, Callable[[Inputs], str]]:
        """The call kinds this class plays itself: the ping, the goal, the latent-state chain and selectors, the
        grounders and structured reflection (on a web page in the page's ids)."""
        return {
            PING_PURPOSE: lambda _: "pong",
            NORMALIZE_GOAL: self._normalize,
            PREVIOUS_ACTION: self._previous_action,
            SCREEN_SUMMARY: self._summary,
            PROGRESSION: self._progression,
            MISTAKES: self._mistakes,
            COMPLETION: self._completion,
            SELECT: self._select,
            GROUND: self._ground,
            PLAN: self._stage_plan,
            REFLECT: self._reflect,
            PARAPHRASE: lambda inputs: self._web.paraphrase(inputs),
        }

    def __call__(self, request: GenerationRequest) -> str | Reply:
        """Answer ``request`` from its declared purpose and structured inputs (never its prompt's wording).

        Raises:
            LLMRequestError: A purpose the demo does not play, missing inputs, or a goal it does not know.
        """
        handlers = {purpose: play for players in (self._players, *BUILTIN_PLAYERS, *_REGISTERED)
                    for purpose, play in players(self._task).items()}
        handler = handlers.get(request.purpose or "")
        if handler is None:
            if request.purpose is None:
                raise LLMRequestError("the demo stand-in answers from a call's declared purpose and inputs; "
                                      "this request declares none (was it posted on its stand-in's call board?)")
            raise LLMRequestError(f"the demo stand-in does not play calls for {request.purpose!r}; it plays "
                                  f"{', '.join(sorted(handlers))}")
        return handler(request.inputs)

    # -- goal and latent state ---------------------------------------------------------------

    def _normalize(self, inputs: Inputs) -> str:
        goal = text_input(inputs, "goal")
        goal = goal[:1].upper() + goal[1:]
        return goal if goal.endswith((".", "?", "!")) else goal + "."

    def _previous_action(self, inputs: Inputs) -> str:
        commanded = text_input(inputs, "commanded")
        before, after = text_input(inputs, "before"), text_input(inputs, "after")
        if before == after:
            return NO_ACTION
        quoted = QUOTED.search(commanded)
        target = quoted.group(1) if quoted and commanded.lower().startswith(("tap", "long press")) else None
        if target is None:
            return past_tense(commanded)
        changed = toggled(before, after)
        if changed:
            if any(target.casefold() in {n.casefold() for n in names} for names in changed):
                return past_tense(commanded)
            return f'Tapped "{control_label(changed[0])}".'
        if names_control(before, target) and same_controls(before, after):
            # The commanded switch is still there in the same state: whatever else changed on the
            # screen (a notification), the tap did not happen.
            return NO_ACTION
        # A new screen whose title is another row of the old screen: the tap opened that row.
        old_texts, new_texts = screen_texts(before), screen_texts(after)
        title = new_texts[0] if new_texts else ""
        if (title and title != (old_texts[0] if old_texts else "") and title != target
                and title in old_texts and title not in row_of(before, target)):
            return f'Tapped "{title}".'
        if names_control(before, target) and target.casefold() not in after.casefold():
            # Choosing a setting does not leave its screen without showing the choice: the tap
            # closed the dialog or went up a level instead.
            return WENT_BACK
        return past_tense(commanded)

    def _summary(self, inputs: Inputs) -> str:
        description = text_input(inputs, "description")
        texts = screen_texts(description)
        shown = ", ".join(f'"{t}"' for t in texts[:4]) or "no text"
        states = control_states(description)
        switches = "; ".join(f"{label} is {state}" for label, state in states.items())
        return (f"The screen shows {shown}. No media is playing. "
                + (f"Switches and checkboxes: {switches}." if switches else "There are no switches on the screen."))

    def _progression(self, inputs: Inputs) -> str:
        done = [i.rstrip(".") for i in texts_input(inputs, "actions") if not i.startswith(("No action", "Nothing"))]
        if not done:
            return " not performed any action yet."
        return " " + _THEN.join(_lower_first(i) for i in done) + "."

    @staticmethod
    def _correction(deviation: str, description: str) -> str:
        quoted = QUOTED.search(deviation)
        label = quoted.group(1) if quoted else deviation.rstrip(".")
        if any(label in names for names, _ in controls(description)):
            return f'You tapped "{label}" by mistake, which changed it. To correct it: Tap "{label}"'
        return f'You tapped "{label}" by mistake, which opened the wrong screen. To correct it: Go back'

    def _mistakes(self, inputs: Inputs) -> str:
        task = self._task(text_input(inputs, "goal"))
        _, deviations = walk(task, _performed(text_input(inputs, "progression")))
        if not deviations:
            return NO_MISTAKES
        return self._correction(deviations[-1], text_input(inputs, "description"))

    def _completion(self, inputs: Inputs) -> str:
        task = self._task(text_input(inputs, "goal"))
        pos, deviations = walk(task, texts_input(inputs, "actions"))
        if pos >= len(solution_plan(task)) and not deviations:
            return "Yes. Every required step has been performed."
        return "No. Part of the task has not been done yet."

    # -- selectors ---------------------------------------------------------------------------

    def _decide(self, task: Task, inputs: Inputs) -> str | None:
        """The next step for a selector's inputs (None: the task is complete)."""
        description = text_input(inputs, "description")
        if inputs.get("plus"):
            mistakes = text_input(inputs, "mistakes")
            if "To correct it:" in mistakes:
                return mistakes.split("To correct it:", 1)[1].strip()
            pos, _ = walk(task, _performed(text_input(inputs, "progression")))
        elif inputs.get("selector") == "react":
            turns = inputs.get("turns")
            actions = [str(t.get("action", "")) for t in turns if isinstance(t, Mapping)] \
                if isinstance(turns, list) else []
            pos, _ = walk(task, actions)
        else:
            pos, _ = walk(task, texts_input(inputs, "history"))
        return next_step(task, pos, description)

    def _select(self, inputs: Inputs) -> str:
        """The answer in the format the selector's parser reads: continuing "You should" (zero-shot),
        reasoning then "Answer:" (CoT-SC), or a thought then "Action:" (ReAct)."""
        task = self._task(text_input(inputs, "goal"))
        step = self._decide(task, inputs)
        selector = inputs.get("selector")
        plus = bool(inputs.get("plus"))
        if selector == "zero-shot":
            if step is None:
                step = COMPLETE_STEP if plus else "be done."
            return " " + _lower_first(step)
        if selector == "cot-sc":
            if step is None:
                step = COMPLETE_STEP if plus else "You should be done."
            reasoning = (f"The goal is: {task.goal}. From what has been done so far and what the screen shows, "
                         "the next step is clear.")
            if self.drop_answer_every and next(self._samples) % self.drop_answer_every == 0:
                return f" {reasoning} So I will do this next. {step}"
            return f" {reasoning}\nAnswer: {step}"
        if selector == "react":
            if step is None:
                step = COMPLETE_STEP if plus else "done."
            return " Looking at the current screen and what has been done, the next step is clear.\nAction: " + step
        raise LLMRequestError(f"the demo stand-in does not play the selector {selector!r}")

    # -- staged planning with structured reflection -----------------------------------------

    def _stage_plan(self, inputs: Inputs) -> str:
        """The staged planner's answer: the next solution steps doable on this screen, one a line.

        The first is the next step of the solution (a scroll when its target is not shown yet);
        later ones follow while their target is on this screen. A trace that has left the
        solution gets an empty plan (the planner is lost); a complete one gets DONE. On a web page the plan is
        in the page's ids (:mod:`latent_agent.demo.oracle_reflection_web`).
        """
        if is_web_call(inputs):
            return self._web.plan(inputs)
        task = self._task(text_input(inputs, "goal"))
        description = text_input(inputs, "description")
        pos, deviations = walk(task, texts_input(inputs, "actions"))
        if deviations:
            return ""
        first = next_step(task, pos, description)
        if first is None:
            return "DONE"
        lines = [first]
        for step in solution_plan(task)[pos + 1:] if first == solution_plan(task)[pos].words else ():
            # Typing and Enter act on the field just tapped; a tap needs its target on this screen.
            quoted = QUOTED.search(step.words)
            typing = step.words.startswith(("Type ", "Press enter"))
            if step.scroll_to is not None or not (typing or (quoted and f'"{quoted.group(1)}"' in description)):
                break
            lines.append(step.words)
            if step.words.startswith("Press enter"):
                break
        return "\n".join(lines)

    def _reflect(self, inputs: Inputs) -> str:
        """The reflection's answer: the first step that left the solution, and the solution's step there.

        A trace that followed the solution but stopped short gets the missing next step. On a web page the fix
        is in the page's ids (:mod:`latent_agent.demo.oracle_reflection_web`).
        """
        if is_web_call(inputs):
            return self._web.reflect(inputs)
        task = self._task(text_input(inputs, "goal"))
        plan = solution_plan(task)
        pos = 0
        actions = texts_input(inputs, "actions")
        for index, action in enumerate(actions, start=1):
            key = command_key(action)
            if key is None:
                continue
            if pos < len(plan) and carries_out(key, plan[pos], plan):
                pos += 1
                continue
            fix = plan[pos].words if pos < len(plan) else "Go back"
            return f"For action index={index}, you should {_lower_first(fix)}."
        if pos >= len(plan):
            if not actions:
                raise LLMRequestError("the demo stand-in has no step to reflect on: the task's solution is empty")
            # Every step was commanded as the solution has it, yet the trial failed: the last one did
            # not take effect as commanded (a tap that landed elsewhere), so it is to be taken again.
            return f"For action index={len(actions)}, you should {_lower_first(actions[-1])}."
        return f"For action index={len(actions) + 1}, you should {_lower_first(plan[pos].words)}."

    # -- grounders ---------------------------------------------------------------------------

    def _ground(self, inputs: Inputs) -> str:
        """The llm grounder's JSON action, or the paper grounder's (App. D) in a json code block, chosen among the
        actions the call's prompt offers (its ``actions`` input: a phone's or a web page's)."""
        offered = frozenset(texts_input(inputs, "actions"))
        if inputs.get("grounder") == "paper":
            found = inputs.get("elements")
            listed = found.get(PAPER_ELEMENTS_KEY) if isinstance(found, Mapping) else None
            elements = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
            action = _ground_step(text_input(inputs, "goal"), elements, offered, paper=True)
            return "```json\n" + json.dumps(action) + "\n```"
        listed = inputs.get("elements")
        elements = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
        return json.dumps(_ground_step(text_input(inputs, "step"), elements, offered, paper=False))


def _find(elements: list[dict[str, object]], label: str) -> dict[str, object] | None:
    wanted = label.casefold()
    # The list shows an element's text, not its description: "6 o'clock" is listed as "6".
    head = wanted.split()[0] if wanted.split() else wanted
    for match in (lambda t: t == wanted, lambda t: wanted in t, lambda t: t == head):
        for e in elements:
            if match(str(e.get("text", "")).casefold()) or match(str(e.get("desc", "")).casefold()):
                return e
    return None


def _ground_step(step: str, elements: list[dict[str, object]], offered: frozenset[str], *,
                 paper: bool) -> dict[str, object]:
    """The JSON action a competent grounder gives for ``step`` over ``elements``, among the ``offered`` action types.

    A step whose action the prompt does not offer is answered as a model would: a long press with a click (the
    paper grounder's set has none), anything else (an app, Back or Home on a web page) with a wait. The paper
    grounder's launcher field is its ``activity_nickname`` and its wait has no seconds.
    """
    lowered = step.lower()
    quoted = QUOTED.search(step)
    wait: dict[str, object] = {"action_type": "wait"} if paper else {"action_type": "wait", "seconds": 1}
    if lowered.startswith("open the ") and lowered.endswith(" app"):
        if "open_app" not in offered:
            return wait
        return {"action_type": "open_app", "app_name": step[len("open the "):-len(" app")]}
    if lowered.startswith(("open quick settings", "open the app drawer")):
        if "launch_adb_activity" not in offered:
            return wait
        activity = "quick_settings" if "quick" in lowered else "app_drawer"
        return {"action_type": "launch_adb_activity", "activity_nickname" if paper else "activity": activity}
    if lowered.startswith(("tap", "long press")) and quoted:
        element = _find(elements, quoted.group(1))
        if element is not None:
            center = element.get("center")
            x, y = center if isinstance(center, list) and len(center) == 2 else (0, 0)
            long = lowered.startswith("long press") and "long_press" in offered
            return {"action_type": "long_press" if long else "click", "x": x, "y": y}
    if lowered.startswith("type") and quoted:
        return {"action_type": "input_text", "text": quoted.group(1)}
    simple = {"go back": "navigate_back", "go to the home screen": "navigate_home", "press enter": "keyboard_enter"}
    for words, kind in simple.items():
        if lowered.startswith(words):
            return {"action_type": kind} if kind in offered else wait
    if lowered.startswith("scroll"):
        direction = next((d for d in ("up", "down", "left", "right") if d in lowered), "down")
        return {"action_type": "scroll", "direction": direction}
    return wait
