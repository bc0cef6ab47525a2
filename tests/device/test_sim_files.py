"""The simulated Files app: each row's overflow button and its menu, beside the long-press path."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from latent_agent.accessibility.tree import ScreenSize, UINode
from latent_agent.benchmarks.steps import find_element
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.views import NAV_H
from tests.device.sim_helpers import assert_description_invariants

PKG = "com.google.android.documentsui"


def _tap(device: SimDevice, label: str) -> None:
    node = find_element(device, label)
    assert node.bounds is not None
    device.tap(*node.bounds.center)


def _paths(device: SimDevice) -> set[str]:
    return {e.path for e in device.state.files.entries}


def _in_documents(seed: int = 0) -> SimDevice:
    device = SimDevice(seed=seed)
    device.open_app("Files")
    _tap(device, "Documents")
    return device


def _nodes(device: SimDevice) -> list[UINode]:
    return [n for root in device.hierarchy().tree.roots for n in root.iter()]


def _texts(device: SimDevice) -> set[str]:
    return {n.text for n in _nodes(device) if n.text}


def test_every_row_has_an_overflow_button_named_after_its_file() -> None:
    device = _in_documents()
    buttons = {n.content_desc: n for n in _nodes(device) if n.resource_id == f"{PKG}:id/item_overflow"}
    assert set(buttons) == {"More options for notes.txt", "More options for Resume.docx"}
    for button in buttons.values():
        assert button.class_name == "android.widget.ImageButton" and button.clickable and not button.text
    # The button sits inside its row, to the right of the file's name, and the row still opens and long-presses.
    (row,) = [n for n in _nodes(device) if n.resource_id == f"{PKG}:id/item_root"
              and any(c.text == "notes.txt" for c in n.iter())]
    name = next(c for c in row.iter() if c.text == "notes.txt")
    button = buttons["More options for notes.txt"]
    assert row.clickable and row.long_clickable and button in list(row.iter())
    assert name.bounds is not None and button.bounds is not None and name.bounds.right <= button.bounds.left
    assert_description_invariants(device.hierarchy().tree)


def test_the_row_menu_renames_the_file_without_a_long_press() -> None:
    device = _in_documents()
    _tap(device, "More options for notes.txt")
    assert {"Select", "Rename", "Delete"} <= _texts(device)
    assert f"{PKG}/item_menu:Documents/notes.txt" in device.state.history.pages
    _tap(device, "Rename")
    assert "notes.txt" in _texts(device)  # the dialog opens with the old name, selected
    device.input_text("todo.txt")
    _tap(device, "OK")
    assert "Documents/todo.txt" in _paths(device) and "Documents/notes.txt" not in _paths(device)
    assert "1 selected" not in _texts(device) and "Documents" in _texts(device)


def test_cancelling_a_rename_from_the_row_menu_leaves_nothing_selected() -> None:
    device = _in_documents()
    before = _paths(device)
    _tap(device, "More options for Resume.docx")
    _tap(device, "Rename")
    _tap(device, "Cancel")
    assert _paths(device) == before and "1 selected" not in _texts(device)


def test_the_long_press_path_still_renames() -> None:
    device = _in_documents()
    node = find_element(device, "notes.txt")
    assert node.bounds is not None
    device.long_press(*node.bounds.center)
    assert "1 selected" in _texts(device)
    _tap(device, "More options")
    _tap(device, "Rename")
    device.input_text("plan.txt")
    _tap(device, "OK")
    assert "Documents/plan.txt" in _paths(device) and "1 selected" not in _texts(device)


def test_the_row_menu_selects_and_deletes() -> None:
    device = _in_documents()
    _tap(device, "More options for notes.txt")
    _tap(device, "Select")
    assert "1 selected" in _texts(device)
    _tap(device, "More options for Resume.docx")
    _tap(device, "Delete")
    assert "Documents/Resume.docx" not in _paths(device) and "Documents/notes.txt" in _paths(device)
    assert "1 selected" in _texts(device)  # another file's selection stays
    _tap(device, "More options for notes.txt")
    _tap(device, "Delete")
    assert "Documents/notes.txt" not in _paths(device) and "1 selected" not in _texts(device)
    assert "No items" in _texts(device)


def test_back_closes_the_row_menu_and_changes_nothing() -> None:
    from latent_agent.device.base import Key

    device = _in_documents()
    before = _paths(device)
    _tap(device, "More options for notes.txt")
    device.press_key(Key.BACK)
    assert "Rename" not in _texts(device) and _paths(device) == before and "notes.txt" in _texts(device)


def test_the_menu_of_a_low_row_stays_above_the_gesture_bar() -> None:
    size = ScreenSize(480, 800)
    device = SimDevice(size=size)
    device.open_app("Files")
    for _ in range(6):
        device.scroll("down")
    buttons = [n for n in _nodes(device) if n.content_desc.startswith("More options for ")]
    lowest = max(buttons, key=lambda n: n.bounds.top if n.bounds else 0)
    assert lowest.bounds is not None and lowest.bounds.bottom > size.height // 2
    device.tap(*lowest.bounds.center)
    menu = device.hierarchy().tree.roots[-1]
    assert menu.bounds is not None and menu.bounds.bottom <= size.height - NAV_H
    _tap(device, "Rename")
    assert "Rename" in _texts(device) and "OK" in _texts(device)


def test_the_overflow_button_is_drawn_as_three_dots_not_a_lettered_circle() -> None:
    device = _in_documents()
    button = find_element(device, "More options for notes.txt")
    assert button.bounds is not None
    image = Image.open(io.BytesIO(device.screenshot())).convert("L")
    b = button.bounds
    size = min(b.width, b.height)
    cx, cy = b.center
    background = image.getpixel((b.left + 2, b.top + 2))
    # A lettered circle (the renderer's fallback for an unknown description) has its outline here.
    ring = [image.getpixel((cx - size // 3 + dx, cy)) for dx in (-1, 0, 1)]
    assert all(p == background for p in ring)
    column = [image.getpixel((x, y)) for x in range(cx - 6, cx + 7) for y in range(b.top, b.bottom)]
    assert any(abs(int(p) - int(background)) > 80 for p in column)  # the dots are drawn


def test_rename_notes_is_done_by_the_demo_stand_in_with_the_paper_grounder(tmp_path: Path) -> None:
    """The task's reference solution only uses actions of the method's action set (no long press)."""
    from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
    from latent_agent.agent.trajectory import StopReason, read_trajectory
    from latent_agent.benchmarks.sim_tasks import load_suite
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.llm.scripted import ScriptedModel

    task = next(t for t in load_suite() if t.id == "files_rename_notes")
    assert all(a.kind != "long_press" for a in task.solution)
    device = SimDevice()
    run_episode_sync(EpisodeConfig(task.goal, "zero-shot+", screenshots=False), device,
                     ScriptedModel(responder=DemoOracle()), tmp_path / "ep")
    assert task.succeeded(device.state)
    t = read_trajectory(tmp_path / "ep")
    assert t.header.grounder == "paper" and t.end is not None and t.end.stop_reason is StopReason.COMPLETED
    grounds = [c for s in t.steps for c in s.calls if c.purpose == "ground"]
    assert any('"text": "More options for notes.txt"' in c.prompt for c in grounds)
