"""The demo stand-in's CAAP answers on a web page: the published MiniWoB++ functions, from the call's inputs.

**Not a language model.** Like :mod:`latent_agent.demo.oracle_caap` (the phone's answers), it answers from the
call's structured inputs, never from the prompt's wording: the goal (a MiniWoB++ utterance), the element list
with ids (what the screen observer or the page's tree showed), the action history in script form (function,
element attributes, arguments) and whether to write the four parts. A call is a web page's when the catalogue
it offers is the published MiniWoB++ table (:func:`on_web`).

What to do comes from the utterance (:mod:`latent_agent.demo.oracle_miniwob`), the way a person reads the query
above the task:

- a task with fixed steps (click-button, click-checkboxes, enter-text, or a task given by the oracle's own task
  list): each tap is a ``click_element`` on the listed element of that label (the text field, which the
  utterance names by what it is, is the listed input field that is not a button's), each typing a
  ``type_text``; the history says how far the steps have got;
- drag-items: the item's row and the row it goes to, among the rows listed in the item's column; a hold on the
  item, a move past the middle of the target row (its far side, so the sortable list puts the item there) and a
  release;
- drag-sort-numbers: the first row out of increasing order gets the lowest number below it, dragged there the
  same way, one drag per call; Submit once the list is in order;
- choose-list: a click on the list, a click on the option in the opened list, Submit;
- use-spinner: a click on the spinner's up or down arrow (the two icons right of its value, up above down) until
  the value listed is the one asked for, then Submit (the screen observer may not read a minus sign: more clicks
  down than up so far say the value is below zero).

While the mouse button is held (the history's last drag step is a hold or a move), the answer is the rest of the
drag: the move, or the release.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from latent_agent.agent.caap.scripts import CLICK, HOLD, MOVE, RELEASE
from latent_agent.benchmarks.sim_tasks import Task
from latent_agent.benchmarks.steps import Step, TapStep, TypeStep, step_words
from latent_agent.demo.oracle_inputs import Inputs, list_input, text_input
from latent_agent.demo.oracle_miniwob import (
    SUBMIT,
    TEXT_BOX,
    ChooseFromList,
    DragItem,
    PageGoal,
    SortNumbers,
    SpinTo,
    page_goal,
)
from latent_agent.errors import LLMRequestError

#: Element dicts as the policy passes them (``id`` plus the list's attributes).
Element = Mapping[str, Any]
#: One function call of an answer: the function and its arguments as the line writes them.
Call = tuple[str, dict[str, str]]

#: A function only the web page's catalogue offers: a call offering it is a web page's.
WEB_ONLY_FUNCTION = HOLD
_FIELD_TYPE = "input_field"
_ICON_TYPE = "icon"
#: ``231 [30-432]``: the centre, then the low and high edges.
_AXIS = re.compile(r"\s*(-?\d+)\s*\[\s*(-?\d+)\s*-\s*(-?\d+)\s*\]\s*")
#: The last whole number of a text (a row's icon is sometimes read as a "+" before it); any dash is a minus.
_NUMBER = re.compile(r"(-?\d+)\s*$")
_DASHES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-"})


def on_web(inputs: Inputs) -> bool:
    """Whether a CAAP call is a web page's: the catalogue it offers is the published MiniWoB++ table."""
    offered = inputs.get("catalogue")
    return isinstance(offered, list | tuple) and any(
        isinstance(f, Mapping) and f.get("name") == WEB_ONLY_FUNCTION for f in offered)


@dataclass(frozen=True, slots=True)
class _Box:
    """Where a listed element is, read from its ``X`` and ``Y`` attributes."""

    x: int
    y: int
    left: int
    right: int
    top: int
    bottom: int

    @property
    def height(self) -> int:
        return self.bottom - self.top


def _box(element: Element) -> _Box | None:
    x, y = _AXIS.fullmatch(str(element.get("X", ""))), _AXIS.fullmatch(str(element.get("Y", "")))
    if x is None or y is None:
        return None
    return _Box(int(x[1]), int(y[1]), int(x[2]), int(x[3]), int(y[2]), int(y[3]))


def _fold(text: object) -> str:
    return " ".join(str(text).split()).casefold()


def _words(text: object) -> list[str]:
    return re.findall(r"\w+", _fold(text))


def _names(element: Element, label: str) -> bool:
    """Whether ``element``'s text is ``label``, or holds its words in a row (``+ Gerda`` holds ``Gerda``)."""
    text = element.get("text", "")
    if _fold(text) == _fold(label):
        return True
    have, want = _words(text), _words(label)
    return bool(want) and any(have[i:i + len(want)] == want for i in range(len(have) - len(want) + 1))


def _find(elements: Sequence[Element], label: str) -> Element | None:
    """The listed element of ``label`` (its exact text first); the text field by its type."""
    if label == TEXT_BOX:
        fields = [e for e in elements if e.get("type") == _FIELD_TYPE and _fold(e.get("text", "")) != _fold(SUBMIT)]
        return next((e for e in fields if not e.get("text")), fields[0] if fields else None)
    exact = [e for e in elements if _fold(e.get("text", "")) == _fold(label)]
    return exact[0] if exact else next((e for e in elements if _names(e, label)), None)


def _number(element: Element) -> int | None:
    found = _NUMBER.search(str(element.get("text", "")).translate(_DASHES))
    return int(found[1]) if found is not None else None


def _click(element: Element) -> Call:
    return CLICK, {"element_id": str(element["id"])}


def _clicks(history: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [a for a in history if a.get("name") == CLICK]


# -- tasks with fixed steps ----------------------------------------------------------------------------------


def _carried_out(step: Step, action: Mapping[str, Any]) -> bool:
    element, params = action.get("element") or {}, action.get("params") or {}
    if isinstance(step, TapStep):
        named = _names(element, step.label) if step.label != TEXT_BOX else element.get("type") == _FIELD_TYPE
        return action.get("name") == CLICK and named
    if isinstance(step, TypeStep):
        return action.get("name") == "type_text" and _fold(params.get("string_to_type", "")) == _fold(step.text)
    return False


def _fixed_steps(task: Task, elements: Sequence[Element], history: Sequence[Mapping[str, Any]]) -> list[Call]:
    """The next steps of ``task``'s solution that this screen lists the targets of (typing needs no target)."""
    pos = 0
    for action in history:
        if pos < len(task.solution) and _carried_out(task.solution[pos], action):
            pos += 1
    out: list[Call] = []
    for step in task.solution[pos:]:
        if isinstance(step, TypeStep):
            out.append(("type_text", {"string_to_type": json.dumps(step.text, ensure_ascii=False)}))
            continue
        if not isinstance(step, TapStep):
            raise LLMRequestError(f"the demo stand-in plays only taps and typing on a web page, not "
                                  f"{step_words(step)!r}")
        target = _find(elements, step.label)
        if target is None:
            break
        out.append(_click(target))
    if not out and pos >= len(task.solution) and (submit := _find(elements, SUBMIT)) is not None:
        out.append(_click(submit))  # the steps are done and the page has not ended: Submit again
    return out


# -- tasks whose steps depend on the page ---------------------------------------------------------------------


def _rows(elements: Sequence[Element], member: Element) -> list[tuple[Element, _Box]]:
    """The listed elements in ``member``'s column (the same left and right edges), top to bottom."""
    own = _box(member)
    if own is None:
        return []
    rows = [(e, b) for e in elements if (b := _box(e)) is not None and (b.left, b.right) == (own.left, own.right)]
    return sorted(rows, key=lambda r: r[1].y)


def _drag(source: _Box, dest: _Box, down: bool) -> list[Call]:
    """Hold on ``source``, move past the middle of ``dest`` (to its far side) and release."""
    y = dest.top + (dest.height * 3 // 4 if down else dest.height // 4)
    return [(HOLD, {"x": str(source.x), "y": str(source.y)}), (MOVE, {"x": str(source.x), "y": str(y)}),
            (RELEASE, {})]


def _drag_item(goal: DragItem, elements: Sequence[Element]) -> list[Call]:
    item = _find(elements, goal.item)
    rows = _rows(elements, item) if item is not None else []
    if item is None or not rows:
        return []
    start = next(i for i, (e, _) in enumerate(rows, start=1) if e is item)
    target = min(max(goal.target(start, len(rows)), 1), len(rows))
    if target == start:
        return []
    return _drag(rows[start - 1][1], rows[target - 1][1], target > start)


def _sort_numbers(elements: Sequence[Element]) -> list[Call]:
    numbered = [e for e in elements if _number(e) is not None]
    rows = _rows(elements, numbered[0]) if numbered else []
    values = [_number(e) for e, _ in rows]
    if any(v is None for v in values):
        rows = [(e, b) for e, b in rows if _number(e) is not None]
        values = [_number(e) for e, _ in rows]
    order = sorted(v for v in values if v is not None)
    for i, (value, wanted) in enumerate(zip(values, order, strict=True)):
        if value != wanted:
            j = next(k for k in range(i + 1, len(values)) if values[k] == wanted)
            return _drag(rows[j][1], rows[i][1], down=False)
    submit = _find(elements, SUBMIT)
    return [_click(submit)] if submit is not None else []


def _choose(goal: ChooseFromList, elements: Sequence[Element], history: Sequence[Mapping[str, Any]]) -> list[Call]:
    submit = _find(elements, SUBMIT)
    clicks = _clicks(history)
    if not clicks:  # the list is closed: it is the topmost text that is not Submit
        shown = sorted((b.y, i) for i, e in enumerate(elements)
                       if e.get("text") and e is not submit and (b := _box(e)) is not None)
        if not shown:
            return []
        listing = elements[shown[0][1]]
        if _names(listing, goal.option) and submit is not None:
            return [_click(submit)]  # it shows the option already
        return [_click(listing)]
    last = clicks[-1].get("element") or {}
    if len(clicks) > 1 and _names(last, goal.option):
        return [_click(submit)] if submit is not None else []
    # The opened list: the option, not the closed list's own text where that shows the same words.
    options = [e for e in elements if _names(e, goal.option)]
    apart = [e for e in options if (e.get("X"), e.get("Y")) != (last.get("X"), last.get("Y"))]
    return [_click((apart or options)[0])] if options else []


def _spin(goal: SpinTo, elements: Sequence[Element], history: Sequence[Mapping[str, Any]]) -> list[Call]:
    value = next((e for e in elements if e.get("type") != _FIELD_TYPE and _number(e) is not None
                  and str(e.get("text", "")).strip().translate(_DASHES).lstrip("-").isdigit()), None)
    box = _box(value) if value is not None else None
    if value is None or box is None:
        return []
    arrows = sorted(((e, b) for e in elements if e.get("type") == _ICON_TYPE and (b := _box(e)) is not None
                     and b.left > box.right), key=lambda a: a[1].y)
    if len(arrows) < 2:
        return []
    (up, up_box), (down, down_box) = arrows[0], arrows[-1]
    current = _number(value)
    # The screen observer may not read a minus sign: the clicks so far say which side of zero the value is on.
    pressed = [b for a in _clicks(history) if (b := _box(a.get("element") or {})) is not None]
    ups = sum(1 for b in pressed if abs(b.y - up_box.y) < abs(b.y - down_box.y) and b.left > box.right)
    downs = sum(1 for b in pressed if abs(b.y - down_box.y) < abs(b.y - up_box.y) and b.left > box.right)
    if current is not None and current > 0 and downs > ups:
        current = -current
    if current == goal.value:
        submit = _find(elements, SUBMIT)
        return [_click(submit)] if submit is not None else []
    return [_click(up if current is not None and current < goal.value else down)]


def _page_steps(goal: PageGoal, elements: Sequence[Element], history: Sequence[Mapping[str, Any]]) -> list[Call]:
    if isinstance(goal, DragItem):
        return _drag_item(goal, elements)
    if isinstance(goal, SortNumbers):
        return _sort_numbers(elements)
    if isinstance(goal, ChooseFromList):
        return _choose(goal, elements, history)
    return _spin(goal, elements, history)


def _mid_drag(history: Sequence[Mapping[str, Any]]) -> str | None:
    """The last drag step when the mouse button is still held (a hold or a move), else None."""
    last = next((a.get("name") for a in reversed(history) if a.get("name") in (HOLD, MOVE, RELEASE)), None)
    return str(last) if last in (HOLD, MOVE) else None


# -- the answer ----------------------------------------------------------------------------------------------


def _line(index: int, call: Call) -> str:
    function, args = call
    shown = ", ".join(f"{k}: {v}" for k, v in args.items())
    return f"Action_{index}=(Action: functions.{function}, Argument: {{{shown}}})"


def _described(action: Mapping[str, Any]) -> str:
    element, params = action.get("element") or {}, action.get("params") or {}
    target = f' on the {element.get("type", "element")} "{element.get("text", "")}"' if element else ""
    return f"{action.get('name')}{target}" + "".join(f" with {k} {v!r}" for k, v in params.items())


def _four_parts(goal: str, inputs: Inputs, elements: Sequence[Element], history: Sequence[Mapping[str, Any]],
                calls: Sequence[Call], lines: Sequence[str]) -> str:
    done = "; ".join(_described(a) for a in history if a.get("name") != "start") or "nothing yet"
    listed = " ".join(f"({i}) {e.get('type')} \"{e.get('text', '')}\" [{e.get('id')}]"
                      for i, e in enumerate(elements, start=1))
    error = text_input(inputs, "last_error")
    trouble = f" The last action failed ({error})." if error else ""
    plan = ", then ".join(f"{name}" for name, _ in calls) or "nothing this screen allows"
    return (f"First, the actions so far: {done}.{trouble}\n"
            f"Secondly, the screen lists {len(elements)} elements: {listed}\n"
            f"Thirdly, to \"{goal}\" the next steps on this screen are: {plan}.\n"
            "Lastly, the next actions:\n" + "\n".join(lines))


def answer(find_task: Callable[[str], Task], inputs: Inputs) -> str:
    """CAAP's answer on a web page: the four parts (or, without them, the action lines alone).

    Raises:
        LLMRequestError: Missing inputs, or a goal the demo does not play.
    """
    goal = text_input(inputs, "goal")
    elements = [e for e in list_input(inputs, "elements") if isinstance(e, Mapping)]
    history = [a for a in list_input(inputs, "history_actions") if isinstance(a, Mapping)]
    start = inputs.get("next_index")
    if not isinstance(start, int):
        raise LLMRequestError("the demo stand-in needs the input 'next_index' (an integer)")
    asked = page_goal(goal)
    held = _mid_drag(history)
    if held == MOVE:
        calls: list[Call] = [(RELEASE, {})]
    else:
        calls = _page_steps(asked, elements, history) if asked is not None else \
            _fixed_steps(find_task(goal), elements, history)
        if held == HOLD:  # the hold is done: the rest of the drag
            calls = [c for c in calls if c[0] in (MOVE, RELEASE)] or [(RELEASE, {})]
    lines = [_line(start + i, call) for i, call in enumerate(calls)]
    if not inputs.get("cot"):
        return "\n".join(lines)
    return _four_parts(goal, inputs, elements, history, calls, lines)
