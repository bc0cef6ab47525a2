"""The paper grounder (App. D): its prompt, the parser of its answers, its leaves, and a whole demo episode."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from latent_agent.accessibility import clean_tree, grounder_elements, load_tree
from latent_agent.accessibility.elements import elements_json, label_of
from latent_agent.accessibility.tree import ScreenSize, UITree
from latent_agent.agent.calls import LLMCaller
from latent_agent.errors import GroundingError
from latent_agent.grounder.actions import Click, InputText, LaunchAdbActivity, NavigateBack, Scroll, Wait, parse_action
from latent_agent.grounder.base import Grounding, GroundingScreen
from latent_agent.grounder.paper import (
    ELEMENTS_KEY,
    LeafElement,
    PaperGrounder,
    PastAction,
    leaf_elements,
    paper_prompt,
)
from latent_agent.grounder.registry import DEFAULT_GROUNDER, GROUNDERS, make_grounder
from latent_agent.llm.scripted import ScriptedModel

DATA = Path(__file__).parents[1] / "data"
GOLDEN = Path(__file__).parent / "golden"
SETTINGS_TOP = DATA / "appium_page_sources" / "shirates-core" / "settings_top.xml"
ELEMENTS = (
    LeafElement("Network & internet", (385, 470), (375, 59)),
    LeafElement("", (96, 154), (148, 132)),
    LeafElement("Wi‑Fi, mobile, data usage, and hotspot", (527, 526), (658, 53)),
)
SIZE = ScreenSize(1080, 2088)


def _screen(path: Path = SETTINGS_TOP) -> GroundingScreen:
    tree = clean_tree(load_tree(path))
    size = tree.screen or SIZE
    compact = tuple(grounder_elements(tree))
    return GroundingScreen(compact, elements_json(list(compact)), size, {"Settings": "com.android.settings"}, tree)


def _ground(grounder: PaperGrounder, step: str, *answers: str,
            screen: GroundingScreen | None = None) -> tuple[Grounding, ScriptedModel]:
    model = ScriptedModel(answers)
    result = asyncio.run(grounder.ground(step, screen or _screen(), LLMCaller(model, episode_id="t")))
    return result, model


# -- the prompt -----------------------------------------------------------------------------


@pytest.mark.parametrize(("history", "golden"), [
    (None, "ground_paper.txt"),
    ((PastAction('Tap "Network & internet"', '{"action_type": "click", "x": 385, "y": 470}'),),
     "ground_paper_history.txt"),
])
def test_prompt_matches_its_golden_file(history: tuple[PastAction, ...] | None, golden: str) -> None:
    """The whole prompt, pinned: a change to its wording must be a deliberate change of this file."""
    prompt = paper_prompt('Tap "Network & internet"', ELEMENTS, SIZE, history)
    assert prompt == (GOLDEN / golden).read_text(encoding="utf-8")


def test_prompt_carries_what_app_d_gives_the_grounder() -> None:
    prompt = paper_prompt("Turn on Wi-Fi", ELEMENTS, SIZE)
    start = prompt.index("{" + json.dumps(ELEMENTS_KEY))
    listed, _ = json.JSONDecoder().raw_decode(prompt, start)
    assert listed == {"UI elements": [{"text": e.text, "center": list(e.center), "size": list(e.size)}
                                      for e in ELEMENTS]}
    assert "1080 pixels wide and 2088 pixels high" in prompt
    assert "Goal: Turn on Wi-Fi\n" in prompt
    assert "most immediate, logical action" in prompt and "what kind of element each one is" in prompt
    assert "not on this screen, think about scrolling to reveal them or going Back" in prompt
    assert "abstraction of the screen: it may not reflect the exact layout" in prompt
    offered = [json.loads(line.split(": ", 1)[1].replace("<x>", "0").replace("<y>", "0"))["action_type"]
               for line in prompt.splitlines() if line.startswith("- ") and '"action_type"' in line]
    assert offered == ["click", "input_text", "keyboard_enter", "navigate_home", "navigate_back", "scroll",
                       "open_app", "launch_adb_activity", "wait"]
    assert '"activity_nickname": "<app_drawer|quick_settings>"' in prompt
    assert "long_press" not in prompt and "history" not in prompt
    assert prompt.rstrip().endswith("as JSON inside a ```json code block.")


def test_history_is_an_option_off_by_default() -> None:
    assert make_grounder(DEFAULT_GROUNDER).name == "paper" and DEFAULT_GROUNDER == "paper"
    assert list(GROUNDERS) == ["paper", "paper-history", "llm", "hybrid"]
    empty = paper_prompt("Go back", ELEMENTS, SIZE, ())
    assert "history of actions taken so far" in empty and "Actions taken so far:\nNone yet." in empty

    grounder = make_grounder("paper-history")
    assert isinstance(grounder, PaperGrounder) and grounder.name == "paper-history"
    click = '```json\n{"action_type": "click", "x": 385, "y": 470}\n```'
    _, model = _ground(grounder, 'Tap "Network & internet"', click)
    _, model = _ground(grounder, "Scroll down", '{"action_type": "scroll", "direction": "down"}')
    assert 'Actions taken so far:\n1. Tap "Network & internet": {"action_type": "click", "x": 385, "y": 470}\n' \
        in model.prompts[0]
    assert "Actions taken so far" not in paper_prompt("Go back", ELEMENTS, SIZE)


# -- the parser (grounder.actions.parse_action, the one place LLM JSON is read) --------------


def test_parser_reads_the_fenced_block_and_ignores_braces_in_prose() -> None:
    answer = ('The goal needs the {Network} row, so:\n```json\n{"action_type": "click", "x": 385, "y": 470}\n```\n'
              "That opens {it}.")
    assert parse_action(answer) == Click(385, 470)
    assert parse_action('```\n{"action_type": "navigate_back"}\n```') == NavigateBack()
    assert parse_action('```JSON {"action_type": "wait"}```') == Wait()


@pytest.mark.parametrize(("answer", "action"), [
    ('{"action_type": "launch_adb_activity", "activity_nickname": "quick_settings"}',
     LaunchAdbActivity("quick_settings")),
    ('{"action_type": "launch_adb_activity", "activity_nickname": "app_drawer", "activity": "app_drawer"}',
     LaunchAdbActivity("app_drawer")),
    ('{"action_type": "launch_adb_activity", "activity": "app_drawer"}', LaunchAdbActivity("app_drawer")),
    ('{"action_type": "input_text", "text": "dns.google", "x": 540, "y": 300}', InputText("dns.google", 540, 300)),
    ('{"action_type": "scroll", "direction": "up"}', Scroll("up")),
])
def test_parser_reads_the_paper_vocabulary(answer: str, action: object) -> None:
    assert parse_action(f"```json\n{answer}\n```") == action


@pytest.mark.parametrize(("answer", "message"), [
    ('```json\n{"action_type": "click", "x": 385,}\n```', "malformed"),
    ('```json\n{"action_type": "click", "x": 385,\n```', "no JSON object"),
    ("```json\n```", "no JSON object"),
    ("I would open the settings", "no JSON object"),
    ('{"action_type": "launch_adb_activity", "activity_nickname": "recents"}', "activity_nickname must be one of"),
    ('{"action_type": "launch_adb_activity", "activity_nickname": "app_drawer", "activity": "quick_settings"}',
     "disagree"),
    ('{"action_type": "launch_adb_activity"}', "activity_nickname must be one of"),
    ('{"action_type": "tap", "x": 1, "y": 2}', "unknown action_type"),
])
def test_parser_refuses_what_it_cannot_use(answer: str, message: str) -> None:
    with pytest.raises(GroundingError, match=message):
        parse_action(answer)


# -- the grounder ---------------------------------------------------------------------------


def test_one_call_no_validation_against_the_list() -> None:
    """The paper's grounder checks nothing against the elements: a point between them is sent as answered."""
    between = '```json\n{"action_type": "click", "x": 700, "y": 1000}\n```'
    result, model = _ground(PaperGrounder(), 'Tap "Battery"', between)
    assert result.action == Click(700, 1000) and result.error is None and result.attempts == 1
    assert result.source == "llm" and len(model.requests) == 1
    prompt = model.prompts[0]
    assert '{"text": "Battery", "center": [270, 1070], "size": [145, 59]}' in prompt
    assert "Goal: Tap \"Battery\"" in prompt


@pytest.mark.parametrize(("answer", "reason"), [
    ("Tap the battery row", "no JSON object"),
    ('```json\n{"action_type": "click", "x": 700, "y": 5000}\n```', "outside the 1080x2088 screen"),
    ('```json\n{"action_type": "long_tap", "x": 1, "y": 1}\n```', "unknown action_type"),
])
def test_an_unusable_answer_is_a_grounding_error_without_action_or_retry(answer: str, reason: str) -> None:
    result, model = _ground(PaperGrounder(), 'Tap "Battery"', answer, '{"action_type": "navigate_back"}')
    assert result.action is None and result.attempts == 1 and len(model.requests) == 1
    assert result.error is not None and reason in result.error and "'Tap \"Battery\"'" in result.error


def test_without_a_tree_nothing_is_asked() -> None:
    screen = _screen()
    bare = GroundingScreen(screen.elements, screen.elements_json, screen.size, screen.apps)
    result, model = _ground(PaperGrounder(), "Go back", "{}", screen=bare)
    assert result.action is None and "accessibility tree" in (result.error or "") and model.requests == ()


# -- the leaves, on real screens -------------------------------------------------------------


def _leaves_by_walk(tree: UITree) -> list[tuple[str, tuple[int, int]]]:
    return [(label_of(n), n.bounds.center) for n in tree.iter()
            if not n.children and n.bounds is not None and n.bounds.area]


@pytest.mark.parametrize("path", [
    SETTINGS_TOP,
    DATA / "appium_page_sources" / "shirates-core" / "clock_alarm.xml",
    DATA / "uiautomator_dumps" / "AndroidViewClient" / "nexuslauncher_home_api27.xml",
    DATA / "uiautomator_dumps" / "midscene" / "android-world-clock-stopwatch-running.xml",
])
def test_only_leaves_of_the_cleaned_tree_are_listed(path: Path) -> None:
    tree = clean_tree(load_tree(path))
    size = tree.screen or SIZE
    leaves = leaf_elements(tree, size)
    walked = _leaves_by_walk(tree)
    assert leaves and [e.center for e in leaves] == [center for _, center in walked]
    assert all(e.text.startswith(label) for e, (label, _) in zip(leaves, walked, strict=True))
    assert len(leaves) < tree.node_count  # the inner nodes are left out
    assert all(0 <= e.center[0] < size.width and 0 <= e.center[1] < size.height for e in leaves)


def test_real_clock_screen_lists_leaves_only_with_descriptions_beside_differing_text() -> None:
    tree = clean_tree(load_tree(DATA / "appium_page_sources" / "shirates-core" / "clock_alarm.xml"))
    leaves = leaf_elements(tree, tree.screen or SIZE)
    assert len(leaves) == 16
    # The alarm cards are clickable inner nodes: the project's compact list names them, the leaves do not.
    cards = [e for e in grounder_elements(tree) if e.kind == "card"]
    assert len(cards) == 2 and not {(c.center, c.size) for c in cards} & {(e.center, e.size) for e in leaves}
    assert LeafElement("8:30 AM", (274, 388), (373, 161)) in leaves
    assert LeafElement("Sun, Sat (Sunday, Saturday)", (169, 894), (163, 132)) in leaves
    assert LeafElement("", (898, 535), (154, 132)) in leaves  # an unlabelled switch is still a leaf


def test_a_leaf_cut_by_the_screen_edge_is_listed_by_its_visible_part() -> None:
    from latent_agent.accessibility.tree import Bounds, UINode

    node = UINode(class_name="android.widget.TextView", text="Location", bounds=Bounds(100, 2000, 500, 2200))
    (leaf,) = leaf_elements(UITree((node,), SIZE), SIZE)
    assert leaf == LeafElement("Location", (300, 2044), (400, 88))
    off = UINode(class_name="android.widget.TextView", text="Below", bounds=Bounds(0, 2100, 500, 2200))
    assert leaf_elements(UITree((off,), SIZE), SIZE) == ()


# -- a whole episode with the default grounder -------------------------------------------------


def test_the_default_grounder_carries_a_demo_episode_on_the_sim(tmp_path: Path) -> None:
    from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
    from latent_agent.agent.trajectory import StopReason, read_trajectory
    from latent_agent.benchmarks.sim_tasks import load_suite
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice

    task = next(t for t in load_suite() if t.id == "settings_roaming_off")
    device = SimDevice()
    run_episode_sync(EpisodeConfig(task.goal, "zero-shot+", screenshots=False), device,
                     ScriptedModel(responder=DemoOracle()), tmp_path / "ep")
    assert task.succeeded(device.state)
    t = read_trajectory(tmp_path / "ep")
    assert t.header.grounder == "paper" and t.end is not None and t.end.stop_reason is StopReason.COMPLETED
    grounds = [c for s in t.steps for c in s.calls if c.purpose == "ground"]
    assert grounds and all('{"UI elements": [' in c.prompt and "```json" in c.prompt for c in grounds)
    assert all(s.grounding_error is None for s in t.steps)


def test_run_command_defaults_to_the_paper_grounder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.agent.trajectory import StopReason, read_trajectory
    from latent_agent.cli import main

    out = tmp_path / "episode"
    assert main(["run", "Turn on private DNS", "--device", "sim", "--llm", "demo", "--out", str(out)]) == 0
    assert "grounder paper" in capsys.readouterr().out
    t = read_trajectory(out)
    assert t.header.grounder == "paper" and t.end is not None and t.end.stop_reason is StopReason.COMPLETED
