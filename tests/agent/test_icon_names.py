"""Icon naming: the template (golden and content), the answer parser, the marks drawn on the screenshot,
and one call through the demo stand-in on a simulated phone screen whose true icon names are known."""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path

import pytest
from PIL import Image as PILImage

from latent_agent.accessibility.tree import Bounds
from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.icon_names import (
    NAME_ICONS,
    TEMPLATE,
    IconBox,
    mark_boxes,
    name_icons,
    names_by_bounds,
    parse_icon_names,
)
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.demo.client import demo_client
from latent_agent.demo.oracle_icons import name_icons as demo_names
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import InputError, LLMRequestError
from latent_agent.llm.images import Image
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.prompts.render import render
from latent_agent.surfaces import PHONE

GOLDEN = Path(__file__).parent / "golden"
IDS = ["icon_1", "icon_2", "icon_3"]
VARIABLES: dict[str, object] = {
    "width": 1080, "height": 2400, "marked": True,
    "icons": [{"id": "icon_1", "left": 0, "top": 150, "right": 154, "bottom": 282},
              {"id": "icon_2", "left": 926, "top": 150, "right": 1058, "bottom": 282}],
}


def png(width: int = 1080, height: int = 2400) -> Image:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), (250, 250, 250)).save(out, format="PNG")
    return Image(out.getvalue(), "image/png")


# -- the template ---------------------------------------------------------------------------------


@pytest.mark.parametrize("marked", [True, False])
def test_golden(marked: bool) -> None:
    path = GOLDEN / f"name_icons{'' if marked else '_unmarked'}.txt"
    text = render(TEMPLATE, PHONE, **{**VARIABLES, "marked": marked})
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_the_prompt_lists_every_box_and_the_answer_format() -> None:
    text = render(TEMPLATE, PHONE, **VARIABLES)
    assert "1080 pixels wide and 2400 pixels tall" in text
    assert "- icon_1: x 0-154, y 150-282" in text and "- icon_2: x 926-1058, y 150-282" in text
    assert "<id>: <name>" in text and '"unknown"' in text
    assert "outlined in red" in text
    assert "outlined" not in render(TEMPLATE, PHONE, **{**VARIABLES, "marked": False})


# -- the parser -------------------------------------------------------------------------------------


def test_a_plain_answer() -> None:
    assert parse_icon_names("icon_1: search\nicon_2: more options\nicon_3: unknown", IDS) == {
        "icon_1": "search", "icon_2": "more options", "icon_3": None}


def test_extra_text_bullets_bold_quotes_and_fences_are_tolerated() -> None:
    answer = """Here are the names:
```
- **icon_1**: "Search".
2. ICON_2 - More Options
* [icon_3] (top right) = 'navigate up'
```
I hope this helps: they are common icons."""
    assert parse_icon_names(answer, IDS) == {"icon_1": "search", "icon_2": "more options", "icon_3": "navigate up"}


def test_an_icon_left_out_is_none_and_other_ids_are_ignored() -> None:
    assert parse_icon_names("icon_2: back\nicon_9: close", IDS) == {"icon_1": None, "icon_2": "back",
                                                                     "icon_3": None}


@pytest.mark.parametrize(("answer", "message"), [
    ("icon_1:\nicon_2: back", r"line 1: 'icon_1' has no name"),
    ("icon_1: search\nicon_2: \"\"", r"line 2: 'icon_2' has no name"),
    ("icon_1: " + "a very long description of what this icon might be doing on the screen" * 2,
     r"line 1: the name of 'icon_1' is a description \(\d+ characters, at most 60\)"),
    ("icon_1: search\nicon_1: back", r"line 2: 'icon_1' named twice \('search', then 'back'\)"),
])
def test_malformed_lines_are_refused_in_one_line(answer: str, message: str) -> None:
    with pytest.raises(UnparsableAnswer, match=message) as raised:
        parse_icon_names(answer, IDS)
    assert "\n" not in str(raised.value)


def test_the_same_name_twice_is_not_a_conflict() -> None:
    assert parse_icon_names("icon_1: Search\nicon_1: search.", IDS)["icon_1"] == "search"


# -- the call ---------------------------------------------------------------------------------------


def test_no_icons_no_call() -> None:
    model = ScriptedModel([])
    assert asyncio.run(name_icons(LLMCaller(model, episode_id="ep"), png(), [])) == {}
    assert model.requests == ()


@pytest.mark.parametrize(("icons", "message"), [
    ([IconBox("icon 1", Bounds(0, 0, 10, 10))], "icon id 'icon 1': use 1-32 letters"),
    ([IconBox("a", Bounds(0, 0, 10, 10)), IconBox("A", Bounds(20, 0, 30, 10))], "icon id 'A' is given twice"),
    ([IconBox("a", Bounds(1000, 2300, 1100, 2400))], r"box 1000,2300,1100,2400 is not inside the 1080x2400"),
])
def test_bad_boxes_are_refused_before_any_call(icons: list[IconBox], message: str) -> None:
    model = ScriptedModel([])
    with pytest.raises(InputError, match=message):
        asyncio.run(name_icons(LLMCaller(model, episode_id="ep"), png(), icons))
    assert model.requests == ()


def test_one_call_with_the_marked_screenshot_and_scaled_boxes() -> None:
    model = ScriptedModel(["Sure.\nicon_1: Back\nicon_2: unknown"])
    caller = LLMCaller(model, episode_id="ep")
    icons = [IconBox("icon_1", Bounds(0, 150, 154, 282), reference="Navigate up"),
             IconBox("icon_2", Bounds(926, 150, 1058, 282))]
    names = asyncio.run(name_icons(caller, png(), icons, max_side=1200))
    assert names == {"icon_1": "back"}
    assert names_by_bounds(icons, names) == {Bounds(0, 150, 154, 282): "back"}
    (request,) = model.requests
    (image,) = request.messages[-1].images
    assert isinstance(image, Image) and (image.width, image.height) == (540, 1200)
    assert request.purpose == NAME_ICONS and request.inputs["references"] == {"icon_1": "Navigate up"}
    assert "Navigate up" not in request.messages[-1].text  # the truth is for the stand-in only
    assert "- icon_2: x 463-529, y 75-141" in request.messages[-1].text
    # The outline is drawn where the (scaled) box is: red pixels on its left edge, none far from it.
    with PILImage.open(io.BytesIO(image.data)) as shown:
        rgb = shown.convert("RGB")
        assert rgb.getpixel((464, 108)) == (230, 20, 60) and rgb.getpixel((300, 600)) == (250, 250, 250)
    (call,) = caller.calls
    assert call.images == (image.info(),) and call.purpose == NAME_ICONS


def test_marks_are_drawn_inside_the_image_even_at_its_top_edge() -> None:
    marked = mark_boxes(png(200, 100), [IconBox("top", Bounds(10, 0, 40, 30))])
    assert (marked.width, marked.height, marked.mime) == (200, 100, "image/png")
    with PILImage.open(io.BytesIO(marked.data)) as shown:
        rgb = shown.convert("RGB")
        assert rgb.getpixel((10, 15)) == (230, 20, 60)  # outline
        assert rgb.getpixel((12, 32)) in {(230, 20, 60), (255, 255, 255)}  # the tag, below the box


def test_the_demo_names_a_sim_screens_icons_from_their_references() -> None:
    device = SimDevice(seed=0)
    device.open_app("Chrome")
    truth = [n for n in device.hierarchy().tree.iter()
             if n.class_name.endswith("ImageButton") and n.content_desc]
    assert len(truth) >= 3
    icons = [IconBox(f"icon_{k}", n.bounds, reference=n.content_desc) for k, n in enumerate(truth, 1)]
    icons.append(IconBox("icon_99", Bounds(400, 1000, 500, 1100)))  # no reference: the demo cannot tell
    shot = Image.from_bytes(device.screenshot())
    with demo_client() as client:
        caller = LLMCaller(client, episode_id="ep")
        names = asyncio.run(name_icons(caller, shot, icons))
    assert names == {f"icon_{k}": n.content_desc.lower() for k, n in enumerate(truth, 1)}
    (call,) = caller.calls
    assert call.images[0].width == 1080 and call.image_tokens == 2064  # the image went through the stand-in


def test_the_demo_refuses_a_call_without_boxes() -> None:
    with pytest.raises(LLMRequestError, match="'icons' input"):
        demo_names({"references": {}})
    with pytest.raises(LLMRequestError, match="must map icon ids to names"):
        demo_names({"icons": [{"id": "a"}], "references": ["x"]})
