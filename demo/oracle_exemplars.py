"""The demo stand-in's answers for the exemplar-memory method (``--method exemplars``).

**Not a language model**: like the rest of :mod:`latent_agent.demo.oracle` it answers from the call's
purpose and structured inputs, never from a prompt's wording, and its knowledge of *what to do* is the
sim task's reference solution. What the exemplars change is *how* it plays, so the method's machinery
shows in the figures:

* **State abstraction** (``exemplar_abstract``). Given (screen, observation) examples it writes what
  they teach: the screen's title and only the labels on the screen that the task's solution uses, with
  the states of those controls. Without examples (the instruction alone) it cannot tell what matters
  and lists every label on the screen: a longer observation, so every later prompt is longer.
* **Action generation** (``exemplar_act``). With at least one *relevant* exemplar (one whose steps
  share two or more steps with the task's solution: a demonstration of the same navigation) it
  commits, as the demonstrations do, to every solution step it can take without seeing a new screen
  (the next step, then the following ones while their targets are shown in the observation, or they
  type into the field just tapped or press enter), and closes the list with DONE when those steps
  finish the task. Without a relevant exemplar it answers one step per call and says DONE only once
  it sees the task complete: one more call per piece and one at the end.

How far the episode has got is read from the steps its earlier pieces took (the ``turns`` input). A
trace that left the solution gets "Go back" (the stand-in undoes the wrong screen).

A call made on a web page (its inputs name the surface) is answered in Synapse's commands by
:mod:`latent_agent.demo.oracle_exemplars_web`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from latent_agent.agent.exemplars.purposes import EXEMPLAR_ABSTRACT, EXEMPLAR_ACT, EXEMPLAR_REFORMULATE
from latent_agent.benchmarks.sim_tasks import Task
from latent_agent.demo.oracle_exemplars_web import WebExemplarPlayer, is_web_call
from latent_agent.demo.oracle_inputs import Inputs, list_input, text_input
from latent_agent.demo.oracle_miniwob import TEXT_BOX
from latent_agent.demo.oracle_screens import QUOTED, control_states, field_name
from latent_agent.demo.oracle_solution import command_key, next_step, solution_plan, walk
from latent_agent.errors import LLMRequestError

#: Exemplar steps shared with the solution that make an exemplar relevant (one is only the app).
RELEVANT_SHARED = 2


def _labels(task: Task) -> list[str]:
    """Every label the task's solution taps or scrolls to, in order."""
    out: list[str] = []
    for step in solution_plan(task):
        for label in (step.scroll_to, *QUOTED.findall(step.words)):
            if label and label not in out and not step.words.startswith("Type "):
                out.append(label)
    return out


def abstract(find_task: Callable[[str], Task], inputs: Inputs) -> str:
    """The observation of ``inputs["screen"]`` (see the module docstring)."""
    task = find_task(text_input(inputs, "goal"))
    screen = text_input(inputs, "screen")
    examples = list_input(inputs, "examples")
    shown = list(dict.fromkeys(QUOTED.findall(screen)))
    title = shown[0] if shown else "(nothing)"
    if examples:
        labels = [label for label in _labels(task) if f'"{label}"' in screen]
        states = {k: v for k, v in control_states(screen).items() if k in labels}
    else:
        labels, states = shown, control_states(screen)
    lines = [f'Screen: "{title}".',
             "Elements for the task: " + (", ".join(f'"{label}"' for label in labels) or "none") + "."]
    if states:
        lines.append("States: " + "; ".join(f'"{k}" is {v}' for k, v in states.items()) + ".")
    if TEXT_BOX in _labels(task) and (field := field_name(screen)) is not None:
        # A field the task names by what it is: keep which element it is, as the screen says it.
        lines.append(f'a {TEXT_BOX} "{field}"')
    return "\n".join(lines)


def _relevant(task: Task, exemplars: Sequence[object]) -> bool:
    """Whether an exemplar demonstrates the task's navigation (shares enough steps with its solution)."""
    solution = {step.key for step in solution_plan(task)}
    for exemplar in exemplars:
        pieces = exemplar.get("pieces") if isinstance(exemplar, Mapping) else None
        steps = [str(s) for p in pieces if isinstance(p, Mapping) for s in p.get("steps", [])] \
            if isinstance(pieces, list) else []
        if len({command_key(s) for s in steps} & solution) >= RELEVANT_SHARED:
            return True
    return False


def act(find_task: Callable[[str], Task], inputs: Inputs) -> str:
    """The numbered steps of the next piece, or DONE (see the module docstring)."""
    task = find_task(text_input(inputs, "goal"))
    observation = text_input(inputs, "observation")
    taken = [str(s) for turn in list_input(inputs, "turns") if isinstance(turn, Mapping)
             for s in turn.get("steps", [])]
    pos, deviations = walk(task, taken)
    if deviations:
        return "1. Go back"
    plan = solution_plan(task)
    first = next_step(task, pos, observation)
    if first is None:
        return "1. DONE"
    lines = [first]
    batching = _relevant(task, list_input(inputs, "exemplars"))
    if batching and first == plan[pos].words:
        for step in plan[pos + 1:]:
            quoted = QUOTED.search(step.words)
            typing = step.words.startswith(("Type ", "Press enter"))
            if step.scroll_to is not None or not (typing or (quoted and f'"{quoted.group(1)}"' in observation)):
                break
            lines.append(step.words)
        if pos + len(lines) >= len(plan):
            lines.append("DONE")
    return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))


def _phone_only(inputs: Inputs) -> str:
    raise LLMRequestError("the exemplar method reformulates a task on a web page only; this call names no web page")


def handlers(find_task: Callable[[str], Task]) -> dict[str, Callable[[Inputs], str]]:
    """The purposes this module plays, for :class:`latent_agent.demo.oracle.DemoOracle`'s dispatch (a web page's
    calls by :class:`~latent_agent.demo.oracle_exemplars_web.WebExemplarPlayer`)."""
    web = WebExemplarPlayer(find_task).handlers()
    phone: dict[str, Callable[[Inputs], str]] = {
        EXEMPLAR_ABSTRACT: lambda inputs: abstract(find_task, inputs),
        EXEMPLAR_ACT: lambda inputs: act(find_task, inputs),
        EXEMPLAR_REFORMULATE: _phone_only}

    def either(purpose: str) -> Callable[[Inputs], str]:
        return lambda inputs: (web if is_web_call(inputs) else phone)[purpose](inputs)

    return {purpose: either(purpose) for purpose in phone}
