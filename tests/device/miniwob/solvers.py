"""Scripted reference solvers for MiniWoB++ tasks, acting only through the Device API and the project's actions.

Each solver reads its goal from the task's utterance, finds its targets in the parsed tree of
``device.hierarchy()`` and acts through :func:`latent_agent.agent.execute.execute` with the grounder's
action types (a drag, which no action type expresses, is ``Device.swipe``). They are the reference the
device is checked against: a solver that reaches raw reward 1.0 shows the observation says enough and
the actions do what they say.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from latent_agent.accessibility.tree import UINode
from latent_agent.agent.execute import execute
from latent_agent.device.task_env import TaskDevice, TaskReward
from latent_agent.grounder.actions import Action, Click, InputText, Scroll

Solver = Callable[[TaskDevice, str], None]


def nodes(device: TaskDevice) -> Iterator[UINode]:
    """The visible nodes of the screen now."""
    return (n for n in device.hierarchy().tree.iter() if n.visible is not False and n.bounds is not None)


def find(device: TaskDevice, test: Callable[[UINode], bool], what: str) -> UINode:
    found = [n for n in nodes(device) if test(n)]
    assert found, f"no {what} on screen"
    return min(found, key=lambda n: n.bounds.area if n.bounds else 0)


def act(device: TaskDevice, action: Action) -> None:
    execute(action, device, device.hierarchy().tree)
    device.wait_for_idle(2.0)


def tap(device: TaskDevice, node: UINode) -> None:
    assert node.bounds is not None
    act(device, Click(*node.bounds.center))


def quoted(goal: str) -> list[str]:
    return re.findall(r'"([^"]*)"', goal)


def solve_click_button(device: TaskDevice, goal: str) -> None:
    (label,) = quoted(goal)
    tap(device, find(device, lambda n: n.class_name.endswith("Button") and n.text == label, f"button {label}"))


def submit(device: TaskDevice) -> None:
    tap(device, find(device, lambda n: n.class_name.endswith("Button") and n.text == "Submit", "Submit"))


def solve_enter_text(device: TaskDevice, goal: str) -> None:
    (text,) = quoted(goal)
    field = find(device, lambda n: n.class_name.endswith("EditText"), "text field")
    assert field.bounds is not None
    act(device, InputText(text, *field.bounds.center))
    submit(device)


def solve_click_checkboxes(device: TaskDevice, goal: str) -> None:
    wanted = re.fullmatch(r"Select (.*) and click Submit\.", goal)
    assert wanted is not None, goal
    names = set() if wanted.group(1) == "nothing" else set(wanted.group(1).split(", "))
    for box in [n for n in nodes(device) if n.class_name.endswith("CheckBox")]:
        if (box.text in names) != box.checked:
            tap(device, box)
    submit(device)


def solve_choose_list(device: TaskDevice, goal: str) -> None:
    wanted = re.fullmatch(r"Select (.*) from the list and click Submit\.", goal)
    assert wanted is not None, goal
    tap(device, find(device, lambda n: n.class_name.endswith("Spinner"), "list"))
    option = wanted.group(1)
    for _ in range(20):  # the options' list scrolls when it is longer than the screen
        shown = [n for n in nodes(device) if n.class_name.endswith("CheckedTextView") and n.text == option]
        if shown:
            tap(device, shown[0])
            break
        listing = find(device, lambda n: n.scrollable and n.class_name.endswith("ListView"), "options' list")
        assert listing.bounds is not None
        act(device, Scroll("down", *listing.bounds.center))
    submit(device)


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def solve_choose_date(device: TaskDevice, goal: str) -> None:
    wanted = re.fullmatch(r"Select (\d\d)/(\d\d)/(\d{4}) as the date and hit submit\.", goal)
    assert wanted is not None, goal
    month, day, year = (int(g) for g in wanted.groups())
    tap(device, find(device, lambda n: n.class_name.endswith("EditText"), "date field"))
    for _ in range(24):
        title = next((n.text for n in nodes(device) if n.text.endswith(str(year)) and n.text.split()[0] in MONTHS), "")
        shown = MONTHS.index(title.split()[0]) + 1 if title else None
        assert shown is not None, "the date picker shows no month"
        if shown == month:
            break
        arrow = "Prev" if shown > month else "Next"
        tap(device, find(device, lambda n, a=arrow: n.clickable and (n.content_desc == a or n.text == a), arrow))
    tap(device, find(device, lambda n: n.clickable and n.text == str(day), f"day {day}"))
    submit(device)


def _thread_of(device: TaskDevice, sender: str) -> UINode:
    """The clickable email row whose sender is ``sender``, scrolling the inbox until it shows."""
    for _ in range(30):
        for row in nodes(device):
            if row.clickable and any(c.text == sender and c.visible is not False for c in row.iter()):
                return row
        inbox = find(device, lambda n: n.scrollable, "inbox list")
        assert inbox.bounds is not None
        act(device, Scroll("down", *inbox.bounds.center))
    raise AssertionError(f"no email from {sender} after scrolling")


def _icon(row: UINode, name: str) -> UINode:
    icon = next((n for n in row.iter() if n.resource_id == name and n.clickable), None)
    assert icon is not None, f"no {name} icon in the row"
    return icon


def solve_email_inbox(device: TaskDevice, goal: str) -> None:
    sender = re.match(r"Find the email by (.*?) and ", goal)
    assert sender is not None, goal
    row = _thread_of(device, sender.group(1))
    if "trash icon" in goal:
        tap(device, _icon(row, "trash"))
        return
    if "star icon" in goal:
        tap(device, _icon(row, "star"))
        return
    tap(device, row)
    if "reply to them" in goal:
        (text,) = quoted(goal)
        tap(device, find(device, lambda n: n.resource_id == "email-reply", "reply"))
        field = find(device, lambda n: n.resource_id == "reply-text", "reply text")
        assert field.bounds is not None
        act(device, InputText(text, *field.bounds.center))
        tap(device, find(device, lambda n: n.resource_id == "send-reply", "send"))
        return
    to = re.search(r"forward that email to (.*)\.$", goal)
    assert to is not None, goal
    tap(device, find(device, lambda n: n.resource_id == "email-forward", "forward"))
    field = find(device, lambda n: n.class_name.endswith("EditText") and n.resource_id == "forward-sender", "to")
    assert field.bounds is not None
    act(device, InputText(to.group(1), *field.bounds.center))
    tap(device, find(device, lambda n: n.resource_id == "send-forward", "send"))


POSITIONS = {"top": 1, "bottom": 5}


def solve_drag_items(device: TaskDevice, goal: str) -> None:
    wanted = re.fullmatch(r"Drag (.+?) (to the top|to the bottom|down by one position|up by one position|"
                          r"to the (\d)(?:st|nd|rd|th) position)\.", goal)
    assert wanted is not None, goal
    listing = find(device, lambda n: n.class_name.endswith("ListView"), "the items' list")
    rows = sorted(listing.children, key=lambda n: n.bounds.top if n.bounds else 0)
    names = [" ".join(t.text for t in r.iter() if t.text) for r in rows]
    start = names.index(wanted.group(1)) + 1
    how = wanted.group(2)
    target = {"to the top": 1, "to the bottom": len(rows), "down by one position": start + 1,
              "up by one position": start - 1}.get(how) or int(wanted.group(3))
    source, dest = rows[start - 1].bounds, rows[target - 1].bounds
    assert source is not None and dest is not None
    x, y = source.center
    # Past the target row's middle, so the sortable places the item on its far side.
    ty = dest.top + dest.height * 3 // 4 if target > start else dest.top + dest.height // 4
    device.swipe(x, y, x, ty, 300)
    device.wait_for_idle(2.0)


SOLVERS: dict[str, Solver] = {
    "click-button": solve_click_button,
    "enter-text": solve_enter_text,
    "click-checkboxes": solve_click_checkboxes,
    "choose-list": solve_choose_list,
    "choose-date": solve_choose_date,
    "email-inbox": solve_email_inbox,
    "drag-items": solve_drag_items,
}


def solve(device: TaskDevice, task: str, seed: int) -> TaskReward:
    """Load ``task`` from ``seed``, solve it and return the task's reward."""
    goal = device.load_task(task, seed)
    SOLVERS[task](device, goal)
    return device.task_reward()
