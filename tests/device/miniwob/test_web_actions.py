"""A web page's actions executed on real task pages, judged by the task's own reward.

Each task is solved through the page view (compact ids and the task HTML) and the new action types, as the
web papers' agents act: keys pressed N times, a click with Control held, a drag, an option chosen, a field
emptied before typing.
"""

from __future__ import annotations

import re

import pytest

from latent_agent.accessibility.web_page import PageElement, PageView
from latent_agent.agent.execute import execute
from latent_agent.device.miniwob.device import MiniWobDevice
from latent_agent.errors import DeviceActionError
from latent_agent.grounder.actions import (
    Action,
    ChooseOption,
    Click,
    ControlClick,
    Drag,
    HoldModifier,
    Hover,
    InputText,
    PointerDown,
    PointerMove,
    PointerUp,
    PressKey,
    Scroll,
)
from latent_agent.grounder.page_ids import element_point

SEEDS = range(1000, 1004)


def view(device: MiniWobDevice) -> PageView:
    page = device.hierarchy().page
    assert page is not None
    return page


def act(device: MiniWobDevice, action: Action) -> None:
    execute(action, device, device.hierarchy().tree)
    device.wait_for_idle()


def leaf(device: MiniWobDevice, text: str, tag: str | None = None) -> PageElement:
    found = [e for e in view(device).leaves if e.text == text and (tag is None or e.tag == tag)]
    assert found, f"no {tag or 'element'} {text!r} on the page:\n{view(device).compact_html()}"
    return found[0]


def click(device: MiniWobDevice, element: PageElement) -> None:
    act(device, Click(*element_point(view(device), element.id)))


def solved(device: MiniWobDevice) -> bool:
    reward = device.task_reward()
    return reward.done and reward.raw == 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_drag_items_by_one_drag(miniwob: MiniWobDevice, seed: int) -> None:
    goal = miniwob.load_task("drag-items", seed)
    item, target = _drag_items_goal(miniwob, goal)
    (x1, y1), (x2, y2) = item.bounds.center, _past_the_middle(item, target)
    act(miniwob, Drag(x1, y1, x2, y2))
    assert solved(miniwob), goal


@pytest.mark.parametrize("seed", SEEDS)
def test_drag_items_by_the_mouse_button_pressed_moved_and_released(miniwob: MiniWobDevice, seed: int) -> None:
    goal = miniwob.load_task("drag-items", seed)
    item, target = _drag_items_goal(miniwob, goal)
    x, y = _past_the_middle(item, target)
    act(miniwob, PointerDown(*item.bounds.center))
    act(miniwob, PointerMove(x, (item.bounds.center[1] + y) // 2))
    act(miniwob, PointerMove(x, y))
    assert not miniwob.task_reward().done  # nothing is dropped while the button is down
    act(miniwob, PointerUp())
    assert solved(miniwob), goal


def _drag_items_goal(device: MiniWobDevice, goal: str) -> tuple[PageElement, PageElement]:
    """The item to move and the one whose place it takes."""
    wanted = re.fullmatch(r"Drag (.+?) (to the top|to the bottom|down by one position|up by one position|"
                          r"to the (\d)(?:st|nd|rd|th) position)\.", goal)
    assert wanted is not None, goal
    items = sorted((e for e in view(device).leaves if e.tag == "div" and e.text), key=lambda e: e.bounds.top)
    start = [e.text for e in items].index(wanted.group(1))
    target = {"to the top": 0, "to the bottom": len(items) - 1, "down by one position": start + 1,
              "up by one position": start - 1}.get(wanted.group(2))
    return items[start], items[int(wanted.group(3)) - 1 if target is None else target]


def _past_the_middle(item: PageElement, target: PageElement) -> tuple[int, int]:
    # A sortable places the item on the target's far side once it passes the target's middle.
    below = target.bounds.top > item.bounds.top
    x = target.bounds.center[0]
    return x, target.bounds.top + target.bounds.height * (5 if below else 1) // 6


@pytest.mark.parametrize("seed", SEEDS)
def test_use_spinner_by_an_arrow_key_pressed_n_times(miniwob: MiniWobDevice, seed: int) -> None:
    goal = miniwob.load_task("use-spinner", seed)
    wanted = re.fullmatch(r"Select (-?\d+) with the spinner and hit Submit\.", goal)
    assert wanted is not None, goal
    number = int(wanted.group(1))
    field = next(e for e in view(miniwob).leaves if e.tag == "input_text")
    click(miniwob, field)
    if number:
        act(miniwob, PressKey("arrowup" if number > 0 else "arrowdown", abs(number)))
    assert leaf(miniwob, "", "input_text").value == str(number)
    click(miniwob, leaf(miniwob, "Submit", "button"))
    assert solved(miniwob), goal


def test_use_spinner_by_its_arrow_clicked_n_times(miniwob: MiniWobDevice) -> None:
    goal = miniwob.load_task("use-spinner", 1005)
    number = int(re.findall(r"-?\d+", goal)[0])
    arrow = "ui-icon-triangle-1-n" if number > 0 else "ui-icon-triangle-1-s"
    button = next(e for e in view(miniwob).leaves if arrow in e.classes)
    for _ in range(abs(number)):
        click(miniwob, button)
    click(miniwob, leaf(miniwob, "Submit", "button"))
    assert solved(miniwob), goal


@pytest.mark.parametrize("seed", SEEDS)
def test_click_scroll_list_by_clicks_with_control_held(miniwob: MiniWobDevice, seed: int) -> None:
    goal = miniwob.load_task("click-scroll-list", seed)
    wanted = re.fullmatch(r"Select (.+) from the scroll list and click Submit\.", goal)
    assert wanted is not None, goal
    names = wanted.group(1).split(", ")
    for n, name in enumerate(names):
        for _ in range(10):  # the list box scrolls to the options below its rows
            shown = [e for e in view(miniwob).leaves if e.tag == "option" and e.text == name]
            if shown:
                break
            box = next(e for e in view(miniwob).elements if e.tag == "select")
            act(miniwob, Scroll("down", *box.bounds.center))
        point = element_point(view(miniwob), shown[0].id)
        act(miniwob, Click(*point) if n == 0 else ControlClick(*point))
    chosen = {e.text for e in view(miniwob).elements if e.tag == "option" and e.checked}
    assert chosen == set(names), goal
    click(miniwob, leaf(miniwob, "Submit", "button"))
    assert solved(miniwob), goal


def test_hold_and_release_control_around_clicks(miniwob: MiniWobDevice) -> None:
    goal = miniwob.load_task("click-scroll-list", 1004)
    names = re.fullmatch(r"Select (.+) from the scroll list and click Submit\.", goal)
    assert names is not None
    options = [e for e in view(miniwob).leaves if e.tag == "option"]
    first, second = options[0], options[1]
    act(miniwob, HoldModifier("control", True))
    click(miniwob, first)
    click(miniwob, second)
    act(miniwob, HoldModifier("control", False))
    assert {e.text for e in view(miniwob).elements if e.checked} == {first.text, second.text}
    click(miniwob, first)  # released: a plain click chooses that option alone
    assert {e.text for e in view(miniwob).elements if e.checked} == {first.text}


def test_a_held_modifier_does_not_outlive_the_task(miniwob: MiniWobDevice) -> None:
    miniwob.load_task("click-scroll-list", 1004)
    act(miniwob, HoldModifier("control", True))
    act(miniwob, PointerDown(10, 10))
    miniwob.load_task("click-scroll-list", 1004)
    options = [e for e in view(miniwob).leaves if e.tag == "option"]
    click(miniwob, options[0])
    click(miniwob, options[1])
    assert [e.text for e in view(miniwob).elements if e.checked] == [options[1].text]


@pytest.mark.parametrize("seed", SEEDS)
def test_choose_list_by_choosing_the_option(miniwob: MiniWobDevice, seed: int) -> None:
    goal = miniwob.load_task("choose-list", seed)
    wanted = re.fullmatch(r"Select (.+) from the list and click Submit\.", goal)
    assert wanted is not None, goal
    select = next(e for e in view(miniwob).leaves if e.tag == "select")
    act(miniwob, ChooseOption(*element_point(view(miniwob), select.id), wanted.group(1)))
    assert leaf(miniwob, select.text, "select").value == wanted.group(1)
    click(miniwob, leaf(miniwob, "Submit", "button"))
    assert solved(miniwob), goal


@pytest.mark.parametrize("seed", SEEDS)
def test_choose_list_by_arrow_keys_then_enter(miniwob: MiniWobDevice, seed: int) -> None:
    goal = miniwob.load_task("choose-list", seed)
    wanted = re.fullmatch(r"Select (.+) from the list and click Submit\.", goal)
    assert wanted is not None
    options = re.findall(r"<option[^>]*>([^<]*)</option>", view(miniwob).task_html)
    select = next(e for e in view(miniwob).leaves if e.tag == "select")
    click(miniwob, select)  # focuses it (and opens its list, which a key closes)
    if options.index(wanted.group(1)):
        act(miniwob, PressKey("arrowdown", options.index(wanted.group(1))))
    act(miniwob, PressKey("enter"))
    assert next(e for e in view(miniwob).leaves if e.tag == "select").value == wanted.group(1)
    click(miniwob, leaf(miniwob, "Submit", "button"))
    assert solved(miniwob), goal


def test_choosing_refuses_a_point_without_a_list_and_an_option_it_lacks(miniwob: MiniWobDevice) -> None:
    miniwob.load_task("choose-list", 1000)
    select = next(e for e in view(miniwob).leaves if e.tag == "select")
    with pytest.raises(DeviceActionError, match=r'has no option "Nobody At All" \(it has 7: "Ida", '):
        miniwob.choose_option(*select.bounds.center, "Nobody At All")
    submit = leaf(miniwob, "Submit", "button")
    with pytest.raises(DeviceActionError, match=r"no list \(<select>\) at the point \(there is a <button>\)"):
        miniwob.choose_option(*submit.bounds.center, "x")


@pytest.mark.parametrize("seed", SEEDS)
def test_enter_text_into_a_field_emptied_first(miniwob: MiniWobDevice, seed: int) -> None:
    goal = miniwob.load_task("enter-text", seed)
    (text,) = re.findall(r'"([^"]*)"', goal)
    field = next(e for e in view(miniwob).leaves if e.tag == "input_text")
    point = element_point(view(miniwob), field.id)
    act(miniwob, InputText("something else", *point))
    act(miniwob, InputText(text, *point, clear=True))
    assert next(e for e in view(miniwob).leaves if e.tag == "input_text").value == text
    click(miniwob, leaf(miniwob, "Submit", "button"))
    assert solved(miniwob), goal


def test_keys_edit_a_field_select_all_copy_and_paste(miniwob: MiniWobDevice) -> None:
    miniwob.load_task("enter-text", 1000)
    field = next(e for e in view(miniwob).leaves if e.tag == "input_text")
    act(miniwob, InputText("abc", *field.bounds.center))
    act(miniwob, PressKey("arrowleft", 2))
    act(miniwob, PressKey("backspace"))
    act(miniwob, PressKey("delete"))
    act(miniwob, PressKey("end"))
    act(miniwob, PressKey("space"))
    assert view(miniwob).element(field.id).value == "c "  # type: ignore[union-attr]
    act(miniwob, PressKey("ctrl+a"))
    act(miniwob, PressKey("ctrl+c"))
    act(miniwob, PressKey("end"))
    act(miniwob, PressKey("ctrl+v"))
    assert view(miniwob).element(field.id).value == "c c "  # type: ignore[union-attr]


def test_hover_is_seen_by_the_page(miniwob: MiniWobDevice) -> None:
    miniwob.load_task("hover-shape", 1000)
    before = view(miniwob)
    assert 'data-hover' not in before.task_html
    shape = next(e for e in before.elements if e.dom_id == "highlight")
    act(miniwob, Hover(*shape.bounds.center))
    # The task marks the shape under the mouse (mouseenter): what its reward follows.
    assert re.search(r'<rect [^>]*id="highlight"[^>]*data-hover="true"', view(miniwob).task_html)


def test_locate_finds_an_element_by_xpath(miniwob: MiniWobDevice) -> None:
    miniwob.load_task("click-button", 1000)
    submit = miniwob.locate("//button[1]")
    assert submit is not None
    screen = miniwob.screen_size().as_bounds()
    assert screen.contains_point(*submit.center)
    first = view(miniwob).element(int(re.findall(r'<button[^>]*data-wob_ref="(\d+)"', view(miniwob).task_html)[0]))
    assert first is not None and first.bounds == submit
    assert miniwob.locate('//*[@id="wrap"]//button[text()="no such label"]') is None
    assert miniwob.locate("//button[") is None  # no XPath: nothing it could match
    assert miniwob.locate('//button/text()') == submit  # a text node is found as its element


def test_locate_gives_the_whole_box_of_an_element_scrolled_out_of_view(miniwob: MiniWobDevice) -> None:
    miniwob.load_task("click-scroll-list", 1000)
    options = [e for e in view(miniwob).elements if e.tag == "option"]
    hidden = next(e for e in options if not e.visible)
    found = miniwob.locate(f'//*[@data-wob_ref="{hidden.id}"]')
    assert found is not None and found.top >= next(e for e in options if e.visible).bounds.top
