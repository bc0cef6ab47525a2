"""The page as the web papers observe it, on real task pages: compact ids, the compact screen, the task HTML."""

from __future__ import annotations

import re

from latent_agent.accessibility.web_page import PageView
from latent_agent.agent.execute import execute
from latent_agent.device.miniwob.device import MiniWobDevice
from latent_agent.device.web_page import web_page
from latent_agent.grounder.actions import Click
from latent_agent.grounder.page_ids import element_point

SEEDS = range(1000, 1005)


def view(device: MiniWobDevice) -> PageView:
    page = device.hierarchy().page
    assert page is not None
    return page


def lines(page: PageView) -> list[str]:
    return page.compact_html().splitlines()


def text_of(device: MiniWobDevice, selector: str) -> str:
    """The text of an element of the page itself, shown or not."""
    return str(device._page.evaluate("(s) => document.querySelector(s).textContent.replace(/\\s+/g, ' ').trim()",
                                     selector))


def quiet_since(device: MiniWobDevice) -> float:
    """When the page last changed, as the idle wait sees it (js/page_init.js)."""
    return float(device._page.evaluate("() => window.__latent.lastMutation"))


def test_a_web_page_declares_its_surface_and_its_hierarchy_carries_the_page(miniwob: MiniWobDevice) -> None:
    assert miniwob.capabilities.surface == "web_page" and web_page(miniwob) is miniwob
    miniwob.load_task("click-button", 3)
    page = view(miniwob)
    assert page.screen == miniwob.screen_size()
    assert all(e.visible for e in page.leaves) and all(e.leaf for e in page.leaves)


def test_click_checkboxes_shows_each_box_its_label_and_state(miniwob: MiniWobDevice) -> None:
    goal = miniwob.load_task("click-checkboxes", 1002)
    page = view(miniwob)
    boxes = [e for e in page.leaves if e.tag == "input_checkbox"]
    labels = [e for e in page.leaves if e.tag == "t"]
    assert len(boxes) == len(labels) >= 2 and all(e.id > 0 for e in boxes) and all(e.id < 0 for e in labels)
    assert all(box.checked is False for box in boxes)
    assert any(re.fullmatch(r'<button id=\d+ class="secondary-action" pos="[a-z ]+">Submit</button>', line)
               for line in lines(page))
    first = boxes[0]
    assert re.fullmatch(rf'<input_checkbox id={first.id} class="ch0" pos="(top )?left"></input_checkbox>',
                        lines(page)[0])
    execute(Click(*element_point(page, first.id)), miniwob, miniwob.hierarchy().tree)
    miniwob.wait_for_idle()
    after = view(miniwob)
    ticked = after.element(first.id)
    assert ticked is not None and ticked.checked is True  # the same element keeps its id for the episode
    assert f'<input_checkbox id={first.id} class="ch0" value="True"' in after.compact_html()
    assert goal.startswith("Select ")


def test_enter_text_shows_the_field_and_what_was_typed(miniwob: MiniWobDevice) -> None:
    miniwob.load_task("enter-text", 1000)
    page = view(miniwob)
    field = next(e for e in page.leaves if e.tag == "input_text")
    assert field.dom_id == "tt" and f'<input_text id={field.id} class="tt" pos=' in page.compact_html()
    miniwob.tap(*element_point(page, field.id))
    miniwob.input_text('Bo "b" <i>')
    typed = view(miniwob)
    assert f'<input_text id={field.id} class="tt" value="Bo &quot;b&quot; &lt;i&gt;" pos=' in typed.compact_html()
    assert 'id="tt"' in typed.task_html and 'value="Bo &quot;b&quot; &lt;i&gt;"' in typed.task_html


def test_click_color_names_the_four_colours_in_the_task_html(miniwob: MiniWobDevice) -> None:
    for seed in SEEDS:
        goal = miniwob.load_task("click-color", seed)
        page = view(miniwob)
        named = re.findall(r'<div class="color" data-color="([a-z]+)" data-wob_ref="(\d+)"', page.task_html)
        assert len(named) == 4, page.task_html
        wanted = re.fullmatch(r"Click on the (\w+) colored box\.", goal)
        assert wanted is not None and wanted.group(1) in {colour for colour, _ in named}
        assert "<script" not in page.task_html and "<style" not in page.task_html and "style=" not in page.task_html
        assert 'id="query"' not in page.task_html and "colored box" not in page.task_html
        boxes = [e for e in page.leaves if "color" in e.classes]
        assert {e.attributes.get("color") for e in boxes} == {colour for colour, _ in named}


def test_click_color_is_solved_through_the_task_html_and_the_compact_ids(miniwob: MiniWobDevice) -> None:
    goal = miniwob.load_task("click-color", 1001)
    wanted = re.fullmatch(r"Click on the (\w+) colored box\.", goal)
    assert wanted is not None
    page = view(miniwob)
    ref = re.search(rf'data-color="{wanted.group(1)}" data-wob_ref="(\d+)"', page.task_html)
    assert ref is not None
    miniwob.tap(*element_point(page, int(ref.group(1))))
    assert miniwob.task_reward().success


def test_count_shape_shows_shapes_colours_and_sizes(miniwob: MiniWobDevice) -> None:
    shapes: set[str] = set()
    sizes: set[str] = set()
    for seed in SEEDS:
        miniwob.load_task("count-shape", seed)
        page = view(miniwob)
        drawn = re.findall(r"<(circle|rect|polygon|text)\b([^>]*)>", page.task_html)
        assert drawn, page.task_html
        for tag, attributes in drawn:
            assert re.search(r'data-color="[a-z]+"', attributes), attributes
            assert re.search(r'data-size="\d+x\d+"', attributes), attributes
            if tag != "text":
                shape = re.search(r'data-shape="([a-z]+)"', attributes)
                assert shape is not None, attributes
                shapes.add(shape.group(1))
        sizes |= {e.attributes["size"] for e in page.elements if "size" in e.attributes}
    assert shapes <= {"circle", "rectangle", "triangle"} and len(shapes) >= 2
    assert len(sizes) >= 2  # large and small shapes read differently


def test_click_tab_2_hides_a_closed_tabs_content_until_its_tab_is_clicked(miniwob: MiniWobDevice) -> None:
    miniwob.load_task("click-tab-2", 1000)
    page = view(miniwob)
    tab2 = next(e for e in page.leaves if e.text == "Tab #2")
    hidden_text = text_of(miniwob, "#tabs-2")
    assert hidden_text and hidden_text not in " ".join(e.text for e in page.leaves)
    assert 'id="tabs-2"' in page.task_html  # the raw HTML holds every tab, as Synapse's state did
    assert all(e.visible is False for e in page.elements if e.dom_id == "tabs-2")
    miniwob.tap(*element_point(page, tab2.id))
    miniwob.wait_for_idle()
    shown = view(miniwob)
    assert hidden_text.split()[0] in shown.compact_html()
    panel = next(e for e in shown.elements if e.dom_id == "tabs-2")
    assert panel.visible and not panel.leaf


def test_ids_stay_with_their_elements_and_the_walk_does_not_count_as_a_change(miniwob: MiniWobDevice) -> None:
    miniwob.load_task("click-checkboxes", 1003)
    first = view(miniwob)
    again = view(miniwob)
    assert [(e.id, e.tag, e.text) for e in first.elements] == [(e.id, e.tag, e.text) for e in again.elements]
    assert first.task_html == again.task_html and 'data-wob_eps' not in first.task_html
    miniwob.load_task("click-checkboxes", 1004)  # its elements have no ids yet
    changed = quiet_since(miniwob)
    view(miniwob)
    assert quiet_since(miniwob) == changed  # giving ids is no change the idle wait waits for
