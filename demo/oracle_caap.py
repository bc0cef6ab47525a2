"""The demo stand-in's part for the CAAP method: its four-part answers and the demonstrations' rationales.

**Not a language model.** Like the rest of :mod:`latent_agent.demo.oracle`, it answers from the call's
purpose and structured inputs, never from the prompt's wording:

- ``caap``: from the goal, the action history (function, element attributes, arguments) and the
  element list, it works out how far the sim task's reference solution has got and answers in the
  four parts the prompt asks for (history, screen, plan, action lines); with ``cot`` off, the action
  lines alone. The lines name element ids of the list it was given: the next solution step, and the
  steps after it that act on the same screen (typing into the field just tapped, Enter, taps whose
  targets are listed). A finished solution gets ``status`` ``complete``. A call on a web page (its
  catalogue is the published MiniWoB++ table) is answered in those functions by
  :mod:`latent_agent.demo.oracle_caap_web`.
- ``caap_rationale``: one paragraph on why the expert's action was taken and what it changed, from the
  action's attributes and the element lists before and after it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from latent_agent.accessibility.tree import UITree
from latent_agent.agent.caap.purposes import CAAP, CAAP_RATIONALE
from latent_agent.agent.caap.scripts import fixed_function
from latent_agent.benchmarks.sim_tasks import Task
from latent_agent.benchmarks.steps import (
    KeyStep,
    LaunchStep,
    LongPressStep,
    OpenAppStep,
    ScrollStep,
    ScrollToStep,
    Step,
    TapStep,
    TypeStep,
    WaitStep,
    resolve,
    step_words,
)
from latent_agent.demo.oracle_caap_web import answer as web_answer
from latent_agent.demo.oracle_caap_web import on_web
from latent_agent.demo.oracle_inputs import list_input, text_input
from latent_agent.demo.oracle_miniwob import TEXT_BOX
from latent_agent.errors import LLMRequestError
from latent_agent.grounder.actions import KeyboardEnter, LaunchAdbActivity, NavigateBack, NavigateHome

Inputs = Mapping[str, Any]
#: Element dicts as the policy passes them (``id`` plus the list's attributes).
Element = Mapping[str, Any]

#: The list's element type of a field a step names by what it is (a MiniWoB++ utterance's "the text field").
_FIELD_TYPE = "input_field"


@dataclass(frozen=True, slots=True)
class _PlanStep:
    step: Step
    scroll_to: str | None


def _plan(task: Task) -> tuple[_PlanStep, ...]:
    """The solution's steps that do something, each with the label a ``scroll_to`` before it looks for."""
    out: list[_PlanStep] = []
    pending: str | None = None
    for step in task.solution:
        if isinstance(step, ScrollToStep):
            pending = step.label
        elif not isinstance(step, ScrollStep | WaitStep):
            out.append(_PlanStep(step, pending))
            pending = None
    return tuple(out)


def _fold(text: object) -> str:
    return " ".join(str(text).split()).casefold()


def _names(element: Mapping[str, Any]) -> set[str]:
    return {_fold(element.get(k, "")) for k in ("text", "description") if element.get(k)}


def _fixed(step: KeyStep | LaunchStep) -> str:
    """The catalogue function of a key or launch step (the policy's own table: the oracle answers as the model)."""
    action = resolve(step, UITree(roots=()))  # neither looks at the screen
    assert isinstance(action, KeyboardEnter | NavigateBack | NavigateHome | LaunchAdbActivity)
    return fixed_function(action)


def _matches(step: Step, action: Mapping[str, Any]) -> bool:
    """Whether a history action (function, element, arguments) carries out ``step``."""
    name = action.get("name")
    element = action.get("element") or {}
    params = action.get("params") or {}
    if isinstance(step, TapStep | LongPressStep):
        wanted = "click_element" if isinstance(step, TapStep) else "long_press_element"
        named = _fold(step.label) in _names(element)
        return name == wanted and (named or (step.label == TEXT_BOX and element.get("type") == _FIELD_TYPE))
    if isinstance(step, TypeStep):
        return name == "type_text" and _fold(params.get("text", "")) == _fold(step.text)
    if isinstance(step, KeyStep):
        return name == _fixed(step)
    if isinstance(step, OpenAppStep):
        return name == "open_app" and _fold(params.get("app_name", "")) == _fold(step.app)
    if isinstance(step, LaunchStep):
        return name == _fixed(step)
    return False


def progress(task: Task, history: Sequence[Mapping[str, Any]]) -> int:
    """How many steps of the solution the history has carried out (actions off the solution are skipped)."""
    plan = _plan(task)
    pos = 0
    for action in history:
        if pos < len(plan) and _matches(plan[pos].step, action):
            pos += 1
    return pos


def _find(elements: Sequence[Element], label: str) -> Element | None:
    wanted = _fold(label)
    tests: tuple[Callable[[Element], bool], ...] = (
        lambda e: _fold(e.get("text", "")) == wanted, lambda e: _fold(e.get("description", "")) == wanted,
        lambda e: any(wanted in n for n in _names(e)),
        # A field named by what it is: the list says what each element is.
        lambda e: wanted == TEXT_BOX and e.get("type") == _FIELD_TYPE)
    for test in tests:
        for element in elements:
            if test(element):
                return element
    return None


def _field(elements: Sequence[Element], tapped: Element | None) -> Element | None:
    """The field typing goes into: the one just tapped, else the focused input field, else the first."""
    if tapped is not None and tapped.get("type") == "input_field":
        return tapped
    fields = [e for e in elements if e.get("type") == "input_field"]
    return next((e for e in fields if e.get("focused")), fields[0] if fields else tapped)


def _arg(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _line(index: int, function: str, args: Mapping[str, str]) -> str:
    shown = ", ".join(f"{k}: {v}" for k, v in args.items())
    return f"Action_{index}=(Action: functions.{function}, Argument: {{{shown}}})"


def _action_for(step: _PlanStep, elements: Sequence[Element], tapped: Element | None
                ) -> tuple[str, dict[str, str], Element | None] | None:
    """The function and arguments carrying out ``step`` on this screen (None: its target is not listed)."""
    s = step.step
    if step.scroll_to is not None and _find(elements, step.scroll_to) is None:
        return "scroll", {"direction": "down"}, None
    if isinstance(s, TapStep | LongPressStep):
        element = _find(elements, s.label)
        if element is None:
            return None
        function = "click_element" if isinstance(s, TapStep) else "long_press_element"
        return function, {"element_id": str(element["id"])}, element
    if isinstance(s, TypeStep):
        field = _field(elements, tapped)
        if field is None:
            return None
        return "type_text", {"element_id": str(field["id"]), "text": _arg(s.text)}, field
    if isinstance(s, KeyStep):
        return _fixed(s), {}, None
    if isinstance(s, OpenAppStep):
        return "open_app", {"app_name": _arg(s.app)}, None
    if isinstance(s, LaunchStep):
        return _fixed(s), {}, None
    return None


def next_actions(task: Task, pos: int, elements: Sequence[Element]) -> list[tuple[str, dict[str, str]]]:
    """The actions to list for this screen: the next solution step and those after it that act on the same
    screen (typing and Enter after a tap, taps on listed targets); ``status`` once the solution is done."""
    plan = _plan(task)
    if pos >= len(plan):
        return [("status", {"goal_status": "complete"})]
    out: list[tuple[str, dict[str, str]]] = []
    tapped: Element | None = None
    for i, step in enumerate(plan[pos:]):
        found = _action_for(step, elements, tapped)
        if found is None:
            if i == 0:
                # The next target is not on this screen: look further down, as a person would.
                return [("scroll", {"direction": "down"})]
            break
        function, args, element = found
        out.append((function, args))
        if function == "scroll" or function in ("open_app", "open_quick_settings", "open_app_drawer") \
                or function == "press_enter":
            break
        tapped = element if function in ("click_element", "long_press_element") else tapped
        following = plan[pos + i + 1] if pos + i + 1 < len(plan) else None
        if following is not None and following.scroll_to is not None:
            break
    return out


def _describe_action(action: Mapping[str, Any]) -> str:
    name = str(action.get("name", ""))
    element = action.get("element") or {}
    params = action.get("params") or {}
    target = f' on the {element.get("type", "element")} "{element.get("text", "")}"' if element else ""
    extra = "".join(f" with {k} {v!r}" for k, v in params.items())
    return f"{name}{target}{extra}"


def _four_parts(task: Task, inputs: Inputs, pos: int, elements: Sequence[Element], lines: list[str]) -> str:
    history = [a for a in list_input(inputs, "history_actions") if isinstance(a, Mapping) and a.get("name") != "start"]
    done = "; ".join(_describe_action(a) for a in history) or "nothing yet"
    listed = " ".join(f"({i}) {e.get('type')} \"{e.get('text', '')}\" [{e.get('id')}]"
                      for i, e in enumerate(elements, start=1))
    plan = _plan(task)
    steps = "; ".join(f"({i}) {step_words(p.step)}" for i, p in enumerate(plan, start=1))
    demos = [d for d in list_input(inputs, "demos") if isinstance(d, Mapping)]
    mapped = ""
    if demos:
        first = demos[0]
        shown = "; ".join(_describe_action(a) for a in first.get("actions", []) if isinstance(a, Mapping)
                          and a.get("name") != "start")
        mapped = (f" The demonstration DEMO_1 ({first.get('goal')}) did: {shown}. Its sequence maps onto this plan: "
                  "open the app, go to the page holding the setting, then act on it.")
    error = text_input(inputs, "last_error")
    trouble = f" The last action failed ({error}), so it is not repeated as it was." if error else ""
    if inputs.get("no_change"):
        trouble += " The last action changed nothing on the screen."
    return (f"First, the actions so far: {done}. Each brought the task closer to its goal.{trouble}\n"
            f"Secondly, the screen lists {len(elements)} elements: {listed}\n"
            f"Thirdly, the whole plan for \"{task.goal}\": {steps}. Steps 1 to {pos} are done."
            f"{mapped} The next actions below can be taken on this screen now.\n"
            "Lastly, the next actions:\n" + "\n".join(lines))


def _answer(find_task: Callable[[str], Task], inputs: Inputs) -> str:
    task = find_task(text_input(inputs, "goal"))
    elements = [e for e in list_input(inputs, "elements") if isinstance(e, Mapping)]
    history = [a for a in list_input(inputs, "history_actions") if isinstance(a, Mapping)]
    start = inputs.get("next_index")
    if not isinstance(start, int):
        raise LLMRequestError("the demo stand-in needs the input 'next_index' (an integer)")
    pos = progress(task, history)
    lines = [_line(start + i, function, args) for i, (function, args) in enumerate(next_actions(task, pos, elements))]
    if not inputs.get("cot"):
        return "\n".join(lines)
    return _four_parts(task, inputs, pos, elements, lines)


def _changes(before: Sequence[Element], after: Sequence[Element]) -> str:
    """What differs between two element lists, in words (texts that appeared or went, states that flipped)."""
    def texts(elements: Sequence[Element]) -> list[str]:
        return [str(e.get("text", "")) for e in elements if e.get("text")]

    old, new = texts(before), texts(after)
    appeared = [t for t in dict.fromkeys(new) if t not in old]
    gone = [t for t in dict.fromkeys(old) if t not in new]
    states = {(str(e.get("text", "")), str(e.get("Y", ""))): e.get("checked") for e in before
              if e.get("checked") is not None}
    flipped = [text for e in after if (text := str(e.get("text", ""))) and e.get("checked") is not None
               and (text, str(e.get("Y", ""))) in states and states[(text, str(e.get("Y", "")))] != e.get("checked")]
    parts: list[str] = []
    if appeared:
        parts.append("new elements appeared, among them " + ", ".join(f'"{t}"' for t in appeared[:5]))
    if gone:
        parts.append("elements such as " + ", ".join(f'"{t}"' for t in gone[:3]) + " disappeared")
    if flipped:
        parts.append("the state of " + ", ".join(f'"{t}"' for t in flipped[:3]) + " changed")
    return "; ".join(parts) if parts else "nothing visible changed"


def _rationale(inputs: Inputs) -> str:
    goal = text_input(inputs, "goal")
    action = inputs.get("action")
    index = inputs.get("index")
    if not isinstance(action, Mapping) or not isinstance(index, int):
        raise LLMRequestError("the demo stand-in needs the inputs 'action' (an object) and 'index' (an integer)")
    before = [e for e in list_input(inputs, "before_elements") if isinstance(e, Mapping)]
    after = [e for e in list_input(inputs, "after_elements") if isinstance(e, Mapping)]
    element = action.get("element") or {}
    params = action.get("params") or {}
    name = str(action.get("name", ""))
    if element:
        target = (f'the {element.get("type", "element")} labelled "{element.get("text", "")}" centred at X '
                  f'{element.get("X")}, Y {element.get("Y")}')
        chose = f"The expert used {name} on {target}"
    else:
        chose = f"The expert used {name}" + "".join(f" with {k} {v!r}" for k, v in params.items())
    total = len(list_input(inputs, "actions"))
    return (f"{chose}, step {index} of {total} towards the task \"{goal}\": the screen showed "
            f"{len(before)} elements and this one leads on to what the task needs next. After the action, "
            f"{_changes(before, after)}.")


def handlers(find_task: Callable[[str], Task]) -> dict[str, Callable[[Inputs], str]]:
    """The purposes this module plays, for :class:`latent_agent.demo.oracle.DemoOracle`'s dispatch."""
    def plan(inputs: Inputs) -> str:
        return web_answer(find_task, inputs) if on_web(inputs) else _answer(find_task, inputs)

    return {CAAP: plan, CAAP_RATIONALE: _rationale}
