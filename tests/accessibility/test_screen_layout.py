"""The screenshot observer's parts that need no OCR model: the tree built from lines and controls, the
merge with a dump, Tesseract's TSV, the score, and one-line errors."""

from __future__ import annotations

import io

import pytest

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.elements import grounder_elements
from latent_agent.accessibility.screen.controls import Control, find_controls
from latent_agent.accessibility.screen.layout import build_tree
from latent_agent.accessibility.screen.merge import merge_trees, screen_only
from latent_agent.accessibility.screen.observer import ScreenObserver
from latent_agent.accessibility.screen.ocr import OcrEngine, TesseractOcr, TextLine, _tsv_lines, make_engine
from latent_agent.accessibility.screen.score import score_screen
from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree
from latent_agent.errors import ConfigError, ParseError

SIZE = ScreenSize(1080, 2400)


def line(text: str, left: int, top: int, right: int, bottom: int) -> TextLine:
    return TextLine(text, Bounds(left, top, right, bottom), 0.99)


class FixedOcr(OcrEngine):
    """An engine that reads the same lines from any image (the tests of what follows the OCR)."""

    name = "fixed"

    def __init__(self, lines: list[TextLine]) -> None:
        self.lines = lines

    def read(self, image: object) -> list[TextLine]:
        return list(self.lines)


def settings_rows() -> tuple[list[TextLine], list[Control]]:
    lines = [
        line("9:38", 56, 39, 155, 87),  # the status bar's clock
        line("Network & internet", 200, 180, 760, 240),
        line("Roaming", 200, 360, 420, 410),
        line("Connect to data services when roaming", 200, 416, 900, 460),
        line("Airplane mode", 200, 560, 560, 610),
        line("OK", 460, 1500, 620, 1560),
        line("Search", 130, 1710, 330, 1760),
        line("+", 950, 2000, 990, 2040),
    ]
    controls = [
        Control("checkbox", Bounds(980, 40, 1021, 91), True),  # the battery mark, in the status bar
        Control("icon", Bounds(49, 190, 105, 235)),
        Control("switch", Bounds(908, 378, 1037, 443), True),
        Control("switch", Bounds(908, 553, 1037, 618), False),
        Control("button", Bounds(400, 1480, 680, 1580)),
        Control("field", Bounds(100, 1680, 980, 1790)),
    ]
    return lines, controls


def test_the_tree_reads_as_a_dump_would() -> None:
    lines, controls = settings_rows()
    tree = clean_tree(build_tree(SIZE, lines, controls, package="com.android.settings"))
    assert tree.source == "screenshot" and tree.screen == SIZE and tree.foreground_package == "com.android.settings"
    text = describe(tree)
    assert "9:38" not in text  # the status bar is the phone's, not the app's
    assert text.splitlines() == [
        "a group",
        "  an image button",
        '  a text "Network & internet"',
        "a group",
        '  a text "Roaming"',
        '  a text "Connect to data services when roaming"',
        "  a switch that is on",
        "a group",
        '  a text "Airplane mode"',
        "  a switch that is off",
        'a button with the text "OK"',
        'a text box with the text "Search"',
        "an image button",
    ]
    elements = {e.text or e.kind: e for e in grounder_elements(tree)}
    assert elements["OK"].kind == "button" and elements["OK"].center == (540, 1530)
    assert elements["Search"].kind == "text box"
    switches = [e for e in grounder_elements(tree) if e.kind == "switch"]
    assert [s.checked for s in switches] == [True, False]


def test_named_icons_carry_their_names() -> None:
    lines, controls = settings_rows()
    tree = clean_tree(build_tree(SIZE, lines, controls, names={Bounds(49, 190, 105, 235): "navigate up"}))
    assert 'an image button described as "navigate up"' in describe(tree)
    # A glyph the OCR read ("+") is an icon too, named by its own box.
    glyph = Bounds(950, 2000, 990, 2040)
    assert 'described as "add"' in describe(clean_tree(build_tree(SIZE, lines, controls, names={glyph: "add"})))


def test_a_word_boxed_tightly_leaves_no_icon_behind() -> None:
    lines = [line("Settings", 200, 300, 500, 360)]
    underline = Control("icon", Bounds(210, 330, 480, 365))
    assert "image button" not in describe(clean_tree(build_tree(SIZE, lines, [underline])))


def dump() -> UITree:
    row = UINode("android.widget.LinearLayout", bounds=Bounds(0, 340, 1080, 480), clickable=True, children=(
        UINode("android.widget.TextView", text="Roaming", bounds=Bounds(200, 360, 420, 410)),
        UINode("android.widget.Switch", bounds=Bounds(900, 370, 1040, 450), checkable=True, checked=True,
               clickable=True),
    ))
    canvas = UINode("android.view.View", bounds=Bounds(0, 1400, 1080, 2300))
    root = UINode("android.widget.FrameLayout", bounds=SIZE.as_bounds(), children=(row, canvas))
    return UITree((root,), SIZE, foreground_package="com.example")


def test_both_adds_only_what_the_dump_lacks() -> None:
    lines = [line("Roaming", 202, 362, 418, 408), line("Score: 120", 100, 1500, 500, 1560)]
    controls = [Control("switch", Bounds(908, 378, 1037, 443), True), Control("icon", Bounds(900, 2000, 980, 2080))]
    seen = clean_tree(build_tree(SIZE, lines, controls))
    extra = screen_only(clean_tree(dump()), seen)
    # The roaming row is in the dump; the canvas's text and its icon are not (the canvas is no control).
    assert [(n.class_name.rsplit(".", 1)[-1], n.text) for n in extra] == [("TextView", "Score: 120"),
                                                                           ("ImageButton", "")]
    merged = merge_trees(clean_tree(dump()), seen)
    assert len(merged.roots) == 2 and merged.foreground_package == "com.example"
    assert merge_trees(clean_tree(dump()), clean_tree(build_tree(SIZE, lines[:1], controls[:1]))) == \
        clean_tree(dump())


def test_tesseract_words_are_joined_into_its_lines() -> None:
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [header,
            "5\t1\t1\t1\t1\t1\t200\t358\t160\t40\t93\tNetwork",
            "5\t1\t1\t1\t1\t2\t389\t360\t30\t38\t91\t&",
            "5\t1\t1\t1\t1\t3\t437\t358\t150\t40\t95\tinternet",
            "5\t1\t2\t1\t1\t1\t201\t417\t120\t35\t20\tMobile,",  # too unsure: dropped
            "4\t1\t2\t1\t1\t0\t201\t417\t120\t35\t-1\t",
            "5\t1\t3\t1\t1\t1\t900\t960\t40\t40\t88\t "]
    assert _tsv_lines(rows) == [TextLine("Network & internet", Bounds(200, 358, 587, 398), pytest.approx(0.93))]


def test_a_missing_or_unknown_engine_and_a_non_image_fail_in_one_line() -> None:
    with pytest.raises(ConfigError, match="unknown OCR engine 'ocrad'; choose one of rapidocr, tesseract"):
        make_engine("ocrad")
    from PIL import Image

    with pytest.raises(ConfigError, match="apt-get install tesseract-ocr tesseract-ocr-eng"):
        TesseractOcr(program="no-such-tesseract").read(Image.new("RGB", (8, 8)))
    with pytest.raises(ParseError, match="screenshot: not an image"):
        ScreenObserver(FixedOcr([])).read(b"<?xml version='1.0'?><hierarchy/>")


def drawn(shapes: list[tuple[str, tuple[int, int, int, int]]]) -> bytes:
    """A white 1080x2400 PNG with the given shapes drawn as Android draws those controls."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (1080, 2400), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for kind, box in shapes:
        left, top, right, bottom = box
        if kind == "switch-on":
            draw.rounded_rectangle(box, radius=(bottom - top) // 2, fill=(26, 115, 232))
            draw.ellipse((right - 60, top + 6, right - 8, bottom - 6), fill=(255, 255, 255))
        elif kind == "switch-off":
            draw.rounded_rectangle(box, radius=(bottom - top) // 2, fill=(189, 193, 198))
            draw.ellipse((left + 8, top + 6, left + 60, bottom - 6), fill=(255, 255, 255))
        elif kind == "checkbox-on":
            draw.rectangle(box, fill=(26, 115, 232))
        elif kind == "checkbox-off":
            draw.rectangle(box, outline=(95, 99, 104), width=5)
        elif kind == "radio-on":
            draw.ellipse(box, outline=(26, 115, 232), width=5)
            draw.ellipse((left + 16, top + 16, right - 16, bottom - 16), fill=(26, 115, 232))
        elif kind == "field":
            draw.rounded_rectangle(box, radius=24, outline=(218, 220, 224), width=4)
        elif kind == "focused-field":
            draw.rounded_rectangle(box, radius=24, outline=(26, 115, 232), width=4)
        elif kind == "button":
            draw.rounded_rectangle(box, radius=40, fill=(26, 115, 232))
        elif kind == "icon":
            draw.polygon([(left, bottom), ((left + right) // 2, top), (right, bottom)], fill=(95, 99, 104))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_controls_are_found_by_shape_with_their_state() -> None:
    import numpy as np
    from PIL import Image

    shapes = [("switch-on", (900, 300, 1030, 364)), ("switch-off", (900, 500, 1030, 564)),
              ("checkbox-on", (60, 700, 116, 756)), ("checkbox-off", (60, 900, 116, 956)),
              ("radio-on", (60, 1100, 116, 1156)), ("field", (100, 1300, 980, 1420)),
              ("button", (400, 1600, 680, 1700)), ("icon", (500, 1900, 560, 1960)),
              ("focused-field", (100, 2050, 980, 2170))]
    found = find_controls(np.asarray(Image.open(io.BytesIO(drawn(shapes))).convert("RGB")), [])
    assert [(c.kind, c.checked, c.focused) for c in found] == [
        ("switch", True, False), ("switch", False, False), ("checkbox", True, False), ("checkbox", False, False),
        ("radio", True, False), ("field", None, False), ("button", None, False), ("icon", None, False),
        ("field", None, True)]
    for control, (_, (left, top, right, bottom)) in zip(found, shapes, strict=True):
        assert control.bounds.contains_point(*Bounds(left, top, right, bottom).center)


def test_the_score_counts_what_was_read_where_it_is_drawn() -> None:
    truth = clean_tree(dump())
    right = [line("Roaming", 202, 362, 418, 408)]
    elsewhere = [line("Roaming", 202, 1600, 418, 1650)]  # the right words in the wrong place do not count
    found = [Control("switch", Bounds(908, 378, 1037, 443), False)]
    score = score_screen(truth, right, found)
    assert (score.labels, score.recovered, score.centred, score.controls, score.found) == (1, 1, 1, 1, 1)
    assert score.iou_sum == pytest.approx(0.90, abs=0.01) and (score.checkable, score.state_right) == (1, 0)
    missed = score_screen(truth, elsewhere, [])
    assert (missed.recovered, missed.found, missed.missed) == (0, 0, ("Roaming",))


def test_a_dialog_over_a_scrim_is_found_and_read_alone() -> None:
    import numpy as np
    from PIL import Image, ImageDraw

    from latent_agent.accessibility.screen.controls import modal_panel

    image = Image.new("RGB", (1080, 2400), (13, 13, 14))  # everything behind the dialog, dimmed
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((66, 800, 1014, 1600), radius=48, fill=(255, 255, 255))
    draw.rounded_rectangle((120, 300, 960, 420), radius=24, outline=(95, 99, 104), width=4)  # behind: a field
    draw.rectangle((100, 1000, 156, 1056), fill=(26, 115, 232))  # in the dialog: a checked checkbox
    rgb = np.asarray(image)
    dialog = modal_panel(rgb)
    assert dialog == Bounds(66, 800, 1015, 1601)
    assert [(c.kind, c.checked) for c in find_controls(rgb, [], within=dialog)] == [("checkbox", True)]
    assert modal_panel(np.asarray(Image.open(io.BytesIO(drawn([("field", (100, 1300, 980, 1420))]))))) is None
