"""The exemplar-memory method: its parsers, prompts (content and golden), the grounding guard, DONE, the piece
cap, running without exemplars under the similarity floor, and the demo playing it with and without exemplars."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.exemplars.memory import Exemplar, ExemplarStep, Piece, Source
from latent_agent.agent.exemplars.policy import (
    ABSTRACT_PURPOSE,
    ABSTRACT_TEMPLATE,
    ACT_PURPOSE,
    OBSERVATION_TEMPLATE,
    STEPS_TEMPLATE,
    SYSTEM_TEMPLATE,
    ExemplarPolicy,
    ExemplarState,
    StepList,
    parse_observation,
    parse_steps,
)
from latent_agent.agent.methods import Family, Method, Variant, register, unregister
from latent_agent.agent.trajectory import StopReason, Trajectory, read_trajectory
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.grounder.actions import action_from_json
from latent_agent.llm.types import GenerationRequest
from latent_agent.prompts.render import render
from latent_agent.surfaces import PHONE
from tests.agent.policy_contract import PolicyContract

GOLDEN = Path(__file__).parent / "golden"
GOAL = "Turn off mobile data"
SOLUTION = ["Open the Settings app", 'Tap "Network & internet"', 'Tap "SIMs"', 'Tap "Mobile data"']
ROAMING = ["Open the Settings app", 'Tap "Network & internet"', 'Tap "SIMs"', 'Tap "Roaming"']


def exemplar(goal: str = "Turn off data roaming", steps: list[str] | None = None, *, observed: bool = True,
             family: str = "settings-network", cut: int = 1) -> Exemplar:
    """A demonstration of ``steps`` cut every ``cut`` steps (with observations unless ``observed`` is False)."""
    steps = steps if steps is not None else ROAMING
    tap = action_from_json({"action_type": "click", "x": 10, "y": 20})
    pieces = tuple(
        Piece(screen=f'a text "screen {i}"', observation=f'Screen: "screen {i}".' if observed else None,
              steps=tuple(ExemplarStep(words, tap, True) for words in steps[i:i + cut]))
        for i in range(0, len(steps), cut)
    )
    return Exemplar(f"x-{family}-{len(steps)}", goal, family, pieces,
                    Source("runs/train", "ep-1", "settings_roaming_off", "exemplars", True, "train"))


@dataclass(frozen=True)
class Found:
    """What a retriever answers (the fields the policy reads)."""

    family: str | None
    exemplars: tuple[Exemplar, ...]
    neighbours: tuple[tuple[str, float], ...]
    similarity: float


@dataclass(frozen=True)
class FixedRetriever:
    found: Found

    def retrieve(self, goal: str) -> Found:
        return self.found


def retrieving(*exemplars: Exemplar, family: str | None = "settings-network", similarity: float = 0.9
               ) -> FixedRetriever:
    return FixedRetriever(Found(family if exemplars else None, exemplars,
                                (("settings-network", similarity), ("clock-tools", 0.2)), similarity))


@pytest.fixture
def method() -> Iterator[Callable[[ExemplarPolicy], str]]:
    names: list[str] = []

    def make(policy: ExemplarPolicy) -> str:
        name = f"test-exemplars-{len(names)}"
        register(Method(name, policy, "exemplars under test", Family("test-exemplars", "Exemplars"),
                        Variant("test", "(test)")))
        names.append(name)
        return name

    yield make
    for name in names:
        unregister(name)


Responder = Callable[[GenerationRequest], str]


def demo_with(replace: Callable[[GenerationRequest, int], str | None]) -> Responder:
    """The demo stand-in, except where ``replace(request, nth act call)`` answers (None: the demo answers)."""
    from latent_agent.demo.oracle import DemoOracle

    oracle = DemoOracle()
    acts = [0]

    def respond(request: GenerationRequest) -> str:
        if request.purpose == ACT_PURPOSE:
            acts[0] += 1
            answer = replace(request, acts[0])
            if answer is not None:
                return answer
        reply = oracle(request)
        assert isinstance(reply, str)
        return reply

    return respond


def run(method: str, out: Path, responder: Responder | None = None, *, goal: str = GOAL,
        max_steps: int = 12) -> Trajectory:
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    run_episode_sync(EpisodeConfig(goal, method, grounder="llm", screenshots=False, max_steps=max_steps),
                     SimDevice(), ScriptedModel(responder=responder or DemoOracle()), out)
    return read_trajectory(out)


def calls(t: Trajectory, purpose: str) -> list[object]:
    return [c for s in t.steps for c in s.calls if c.purpose == purpose]


def states(t: Trajectory) -> list[ExemplarState]:
    out = [s.state for s in t.steps]
    assert all(isinstance(s, ExemplarState) for s in out)
    return out  # type: ignore[return-value]


# -- parsers ---------------------------------------------------------------------------------------


def test_the_steps_are_the_numbered_lines_up_to_done() -> None:
    assert parse_steps('1. Tap "A"\n2) Type "b"\nThis ends the plan.') == StepList(('Tap "A"', 'Type "b"'), False)
    assert parse_steps('1. Tap "A"\n2. DONE\n3. Tap "B"') == StepList(('Tap "A"',), True)
    assert parse_steps("1. DONE") == StepList((), True) and parse_steps("done.") == StepList((), True)
    assert parse_steps('Sure:\n- Tap "A"\n- Go back') == StepList(('Tap "A"', "Go back"), False)
    assert len(parse_steps("\n".join(f"{i}. Wait" for i in range(1, 30))).steps) == 10
    for bad in ("", "  \n", "1. \n2. ", "I am not sure.", 'Tap "A" then go back'):
        with pytest.raises(UnparsableAnswer):
            parse_steps(bad)


def test_the_observation_is_cut_at_the_next_section() -> None:
    assert parse_observation(' Screen: "Wi-Fi".\nElements: "Mobile data".\nScreen:\nmore') == \
        'Screen: "Wi-Fi".\nElements: "Mobile data".'
    with pytest.raises(UnparsableAnswer):
        parse_observation("Observation:\nsomething")


# -- prompts ---------------------------------------------------------------------------------------


def _golden_prompts() -> dict[str, str]:
    screen = 'a text "Network & internet"\na text "SIMs"\na switch with the text "Airplane mode" that is off'
    return {
        "exemplar_system": render(SYSTEM_TEMPLATE, PHONE, demonstrations=2),
        "exemplar_system_zero_shot": render(SYSTEM_TEMPLATE, PHONE, demonstrations=0),
        "exemplar_observation_first": render(OBSERVATION_TEMPLATE, PHONE, goal="Turn off data roaming",
                                             demonstration=True, note=None, observation='Screen: "Settings".'),
        "exemplar_observation_guard": render(OBSERVATION_TEMPLATE, PHONE, goal="", demonstration=False,
                                             note='the step \'Tap "SIMs"\' could not be carried out (no element)',
                                             observation=screen),
        "exemplar_steps": render(STEPS_TEMPLATE, PHONE, steps=['Tap "SIMs"', 'Tap "Roaming"'], done=True),
        "exemplar_abstract": render(ABSTRACT_TEMPLATE, PHONE, goal=GOAL, screen=screen,
                                    examples=[{"screen": 'a text "Display"', "observation": 'Screen: "Settings".'}]),
        "exemplar_abstract_zero_shot": render(ABSTRACT_TEMPLATE, PHONE, goal=GOAL, screen=screen, examples=[]),
    }


@pytest.mark.parametrize("name", sorted(_golden_prompts()))
def test_rendered_prompt_matches_golden(name: str) -> None:
    rendered = _golden_prompts()[name]
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(rendered, encoding="utf-8")
    assert path.is_file(), f"missing golden file {path.name}; run with UPDATE_GOLDEN=1 and review it"
    assert rendered == path.read_text(encoding="utf-8")


def test_the_prompts_carry_the_methods_markers() -> None:
    prompts = _golden_prompts()
    assert "DONE" in prompts["exemplar_system"] and "2 demonstrations" in prompts["exemplar_system"]
    assert "demonstration" not in prompts["exemplar_system_zero_shot"]
    first = prompts["exemplar_observation_first"]
    assert first.startswith("Task: Turn off data roaming\n(a demonstration)\nTrajectory:\nObservation:\n")
    assert "could not be carried out" in prompts["exemplar_observation_guard"]
    assert "Task:" not in prompts["exemplar_observation_guard"]
    assert prompts["exemplar_steps"] == '1. Tap "SIMs"\n2. Tap "Roaming"\n3. DONE\n'
    assert "Example 1\nScreen:\na text \"Display\"\nObservation:\nScreen: \"Settings\"." in prompts["exemplar_abstract"]
    assert "Example" not in prompts["exemplar_abstract_zero_shot"]
    assert prompts["exemplar_abstract"].endswith("Observation:\n")


def test_the_chat_alternates_exemplar_turns_then_the_episode_so_far(method: Callable[[ExemplarPolicy], str],
                                                                     tmp_path: Path) -> None:
    name = method(ExemplarPolicy(retriever=retrieving(exemplar(cut=2))))
    t = run(name, tmp_path / "ep")
    acts = calls(t, ACT_PURPOSE)
    assert len(acts) >= 2
    later = acts[1]
    roles = [m.role for m in later.messages]  # type: ignore[attr-defined]
    # system, the exemplar's two pieces (user, assistant each), the episode's first piece, then the prompt.
    assert roles == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
    texts = [m.text for m in later.messages]  # type: ignore[attr-defined]
    assert texts[1].startswith("Task: Turn off data roaming\n(a demonstration)\n")
    assert 'Screen: "screen 0".' in texts[1] and texts[2] == "1. Open the Settings app\n2. Tap \"Network & internet\"\n"
    assert texts[4].endswith("3. DONE\n")  # the demonstration's last piece closes the task
    # The episode's task in its own words, as the exemplars' are (not the loop's rephrasing "... data.").
    assert texts[5].startswith(f"Task: {GOAL}\nTrajectory:\n") and "(a demonstration)" not in texts[5]
    assert "Task:" not in later.prompt  # type: ignore[attr-defined]


def test_every_exemplar_of_the_matched_task_is_shown(method: Callable[[ExemplarPolicy], str],
                                                    tmp_path: Path) -> None:
    # Five demonstrations of the family (more than the three keys that vote on it): the prompt shows them all.
    family = tuple(dataclasses.replace(exemplar(f"Turn off data roaming, take {i}", ROAMING[:2 + i % 3]), id=f"x-{i}")
                   for i in range(5))
    name = method(ExemplarPolicy(retriever=retrieving(*family)))
    t = run(name, tmp_path / "ep")
    first = calls(t, ACT_PURPOSE)[0]
    shown = [m.text for m in first.messages if m.role == "user" and "(a demonstration)" in m.text]  # type: ignore[attr-defined]
    assert [text.splitlines()[0] for text in shown] == [f"Task: {x.goal}" for x in family]
    state = states(t)[0]
    assert state.exemplars == tuple(x.id for x in family)


# -- the loop: guard, DONE, cap, floor ------------------------------------------------------------


def test_a_step_that_cannot_be_carried_out_ends_the_piece_and_the_agent_asks_again(
        method: Callable[[ExemplarPolicy], str], tmp_path: Path) -> None:
    name = method(ExemplarPolicy(retriever=retrieving(exemplar())))
    t = run(name, tmp_path / "ep", demo_with(
        lambda _, n: "1. Open the Frobozz app\n2. Open the Settings app\n3. Tap \"Network & internet\"" if n == 1
        else None))
    first, second = t.steps[0], t.steps[1]
    assert first.selected_step == "Open the Frobozz app" and not first.executed
    # The rest of the piece was dropped: the next step came from a new call, told why.
    assert calls(t, ACT_PURPOSE)[1] in second.calls
    assert states(t)[1].source == "piece" and "Frobozz" in (states(t)[1].guard or "")
    assert "Your last steps stopped early" in calls(t, ACT_PURPOSE)[1].prompt  # type: ignore[attr-defined]
    assert t.end is not None and t.end.stop_reason is StopReason.DONE


def test_a_planned_tap_whose_label_the_new_screen_lacks_ends_the_piece(method: Callable[[ExemplarPolicy], str],
                                                                      tmp_path: Path) -> None:
    name = method(ExemplarPolicy(retriever=retrieving(exemplar())))
    t = run(name, tmp_path / "ep", demo_with(
        lambda _, n: '1. Open the Settings app\n2. Tap "Bluetooth"\n3. Tap "SIMs"' if n == 1 else None))
    assert t.steps[0].selected_step == "Open the Settings app" and t.steps[0].executed
    assert t.steps[1].selected_step != 'Tap "Bluetooth"'
    assert 'names "Bluetooth"' in (states(t)[1].guard or "") and len(calls(t, ACT_PURPOSE)) >= 2


def test_done_stops_the_episode_without_grounding(method: Callable[[ExemplarPolicy], str], tmp_path: Path) -> None:
    name = method(ExemplarPolicy(retriever=retrieving(exemplar())))
    t = run(name, tmp_path / "ep", demo_with(lambda _, n: "1. DONE"))
    assert len(t.steps) == 1 and t.steps[0].selected_step == "DONE" and not t.steps[0].executed
    assert t.end is not None and t.end.stop_reason is StopReason.DONE
    assert [c.purpose for c in t.steps[0].calls] == [ABSTRACT_PURPOSE, ACT_PURPOSE]  # nothing grounded


def test_steps_then_done_run_the_steps_and_stop_without_another_call(method: Callable[[ExemplarPolicy], str],
                                                                     tmp_path: Path) -> None:
    name = method(ExemplarPolicy(retriever=retrieving(exemplar())))
    t = run(name, tmp_path / "ep", demo_with(lambda _, n: "1. Open the Settings app\n2. Wait\n3. DONE"))
    assert [s.selected_step for s in t.steps] == ["Open the Settings app", "Wait", "DONE"]
    assert len(calls(t, ACT_PURPOSE)) == 1 and states(t)[-1].source == "done"
    assert t.end is not None and t.end.stop_reason is StopReason.DONE


def test_an_answer_without_steps_is_recorded_and_the_agent_asks_again(method: Callable[[ExemplarPolicy], str],
                                                                      tmp_path: Path) -> None:
    name = method(ExemplarPolicy(retriever=retrieving(exemplar())))
    t = run(name, tmp_path / "ep", demo_with(lambda _, n: "I am not sure." if n == 1 else None))
    assert states(t)[0].source == "empty" and not t.steps[0].executed and t.steps[0].grounding_error
    assert states(t)[1].source == "piece" and t.steps[1].selected_step == "Open the Settings app"
    assert t.end is not None and t.end.stop_reason is StopReason.DONE


def test_the_piece_cap_is_the_exemplars_pieces_plus_two(method: Callable[[ExemplarPolicy], str],
                                                        tmp_path: Path) -> None:
    name = method(ExemplarPolicy(retriever=retrieving(exemplar(cut=4))))  # one piece: cap 3
    t = run(name, tmp_path / "ep", demo_with(lambda _, n: ("1. Wait", "1. Scroll down", "1. Scroll up")[n % 3]))
    assert states(t)[0].cap == 3 and len(calls(t, ACT_PURPOSE)) == 3
    assert t.end is not None and t.end.stop_reason is StopReason.METHOD_CAP and "piece cap" in t.end.detail


def test_under_the_floor_it_runs_without_exemplars(method: Callable[[ExemplarPolicy], str], tmp_path: Path) -> None:
    name = method(ExemplarPolicy(retriever=retrieving(similarity=0.1)))
    t = run(name, tmp_path / "ep")
    first = states(t)[0]
    assert first.family is None and first.exemplars == () and first.cap is None and first.similarity == 0.1
    assert first.neighbours == (("settings-network", 0.1), ("clock-tools", 0.2))
    acts = calls(t, ACT_PURPOSE)
    assert all(m.role != "assistant" or not m.text.endswith("DONE\n") for m in acts[0].messages)  # type: ignore[attr-defined]
    assert [m.role for m in acts[0].messages] == ["system"]  # type: ignore[attr-defined]
    assert "demonstration" not in acts[0].messages[0].text  # type: ignore[attr-defined]
    # The abstraction ran on its instruction alone (no examples).
    assert "Example 1" not in calls(t, ABSTRACT_PURPOSE)[0].prompt  # type: ignore[attr-defined]
    assert t.end is not None and t.end.stop_reason is StopReason.DONE


def test_abstraction_is_skipped_when_the_exemplars_hold_no_observation(method: Callable[[ExemplarPolicy], str],
                                                                       tmp_path: Path) -> None:
    name = method(ExemplarPolicy(retriever=retrieving(exemplar(observed=False))))
    t = run(name, tmp_path / "ep")
    assert not calls(t, ABSTRACT_PURPOSE) and all(s.observation is None for s in states(t))
    # The raw screen stands in for the observation, in the demonstration's turns too.
    texts = [m.text for m in calls(t, ACT_PURPOSE)[0].messages]  # type: ignore[attr-defined]
    assert any('a text "screen 0"' in x for x in texts)


# -- the demo stand-in plays it, differently with and without exemplars ---------------------------


def test_the_demo_batches_a_form_and_closes_with_done_given_a_relevant_exemplar(
        method: Callable[[ExemplarPolicy], str], tmp_path: Path) -> None:
    timer = ["Open the Clock app", 'Tap "Stopwatch"', 'Tap "Start"']
    with_memory = method(ExemplarPolicy(retriever=retrieving(exemplar("Start the stopwatch", timer,
                                                                      family="clock-tools"))))
    without = method(ExemplarPolicy(retriever=retrieving(similarity=0.1)))
    goal = "Start a 5 minute timer"
    a = run(with_memory, tmp_path / "a", goal=goal)
    b = run(without, tmp_path / "b", goal=goal)
    for t in (a, b):
        assert t.end is not None and t.end.stop_reason is StopReason.DONE
    executed = ["Open the Clock app", 'Tap "Timer"', 'Tap "5"', 'Tap "0"', 'Tap "0"', 'Tap "Start"']
    assert [s.selected_step for s in a.steps if s.executed] == executed
    assert [s.selected_step for s in b.steps if s.executed] == executed
    # With the exemplar: the keypad in one call (Start shows once digits are in), DONE with the last step;
    # without: a call per step, and one more for DONE.
    assert len(calls(a, ACT_PURPOSE)) == 4 and len(calls(b, ACT_PURPOSE)) == 7
    assert states(a)[2].steps == ('Tap "5"', 'Tap "0"', 'Tap "0"') and states(a)[5].steps == ('Tap "Start"', "DONE")


def test_the_demo_abstraction_keeps_only_the_tasks_labels_given_examples(method: Callable[[ExemplarPolicy], str],
                                                                         tmp_path: Path) -> None:
    t = run(method(ExemplarPolicy(retriever=retrieving(exemplar()))), tmp_path / "a")
    u = run(method(ExemplarPolicy(retriever=retrieving(similarity=0.1))), tmp_path / "b")
    few, zero = states(t)[1].observation or "", states(u)[1].observation or ""
    assert '"Network & internet"' in few and '"Display"' not in few
    assert '"Network & internet"' in zero and '"Display"' in zero and len(zero) > len(few)


class TestExemplarPolicy(PolicyContract):
    def make_policy(self) -> ExemplarPolicy:
        return ExemplarPolicy(retriever=retrieving(exemplar()))


class TestExemplarPolicyWithoutMemory(PolicyContract):
    def make_policy(self) -> ExemplarPolicy:
        return ExemplarPolicy()
