"""Elements a policy hides from a step's screen: signatures, the loop's pruning, the tapped element, and the
loop's refusal of a method that needs the task's check without one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.hidden_elements import ElementSignature, element_at, hide_elements, signature_of, tapped_element
from latent_agent.agent.methods import Family, Method, Variant, register, unregister
from latent_agent.agent.observe import Observation, observe
from latent_agent.agent.policy import Decision, EpisodeSetup, HidesElements, Outcome, StepInput, Verdict
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.errors import ConfigError
from latent_agent.grounder.actions import Click, KeyboardEnter, LongPress

ROW = "android.widget.LinearLayout"
DISPLAY = ElementSignature(ROW, "", "Display")
NETWORK = ElementSignature(ROW, "", "Network & internet")


def _settings() -> Observation:
    from latent_agent.device.sim.device import SimDevice

    device = SimDevice()
    device.open_app("Settings")
    return observe(device, dict(device.launcher_apps()), screenshot=False)


def test_a_tap_names_the_control_under_it_by_class_resource_id_and_label() -> None:
    obs = _settings()
    title = next(e for e in obs.screen.elements if e.text == "Display")
    # The row handles the tap, not its title: the row is named by the first label it holds.
    assert tapped_element(obs.tree, Click(*title.center)) == DISPLAY
    assert tapped_element(obs.tree, LongPress(*title.center)) == DISPLAY
    assert tapped_element(obs.tree, KeyboardEnter()) is None and tapped_element(obs.tree, None) is None
    search = next(e for e in obs.screen.elements if e.text == "Search settings")
    node = element_at(obs.tree, *search.center)
    assert node is not None and signature_of(node) == ElementSignature(
        "android.view.ViewGroup", "com.android.settings:id/search_action_bar", "Search settings")
    assert str(signature_of(node)) == 'ViewGroup "Search settings" (com.android.settings:id/search_action_bar)'


def test_hiding_prunes_the_element_and_what_it_holds_from_the_description_and_the_element_list() -> None:
    obs = _settings()
    hidden = hide_elements(obs, frozenset({DISPLAY}))
    gone = {e.text for e in obs.screen.elements} - {e.text for e in hidden.screen.elements}
    assert gone == {"Display", "Dark theme, font size, brightness"}
    assert '"Display"' in obs.description and '"Display"' not in hidden.description
    assert '"Display"' not in hidden.screen.elements_json and hidden.screen.tree is hidden.tree
    assert hidden.raw == obs.raw and hidden.package == obs.package  # the dump is kept as observed
    # Nothing to hide, or a signature not on this screen: the observation itself.
    assert hide_elements(obs, frozenset()) is obs
    assert hide_elements(obs, frozenset({ElementSignature(ROW, "", "Roaming")})) is obs


#: The scripted run: its steps, the step at which it hides the Display row, then a stop.
STEPS = ("Open the Settings app", 'Tap "Network & internet"', "Go back")


@dataclass
class _HidingRun:
    hide: dict[int, frozenset[ElementSignature]]
    seen: list[Observation] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)

    def hidden_elements(self) -> frozenset[ElementSignature]:
        return self.hide.get(len(self.seen), frozenset())

    async def decide(self, step: StepInput) -> Decision:
        self.seen.append(step.observation)
        if len(self.seen) > len(STEPS):
            return Decision("done", stop=Verdict(StopReason.DONE, "scripted"))
        return Decision(STEPS[len(self.seen) - 1])

    def record(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)


@dataclass
class _HidingPolicy:
    run: _HidingRun

    def begin(self, setup: EpisodeSetup) -> _HidingRun:
        return self.run


def test_the_loop_hides_what_the_run_asks_from_the_run_and_the_grounder_at_that_step_only(tmp_path: Path) -> None:
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    run = _HidingRun({1: frozenset({DISPLAY})})
    assert isinstance(run, HidesElements)
    register(Method("test-hiding", _HidingPolicy(run), "hides the Display row at step 1",
                    Family("test-hiding", "Hiding"), Variant("scripted", "")))
    try:
        result = run_episode_sync(EpisodeConfig("Turn off data roaming", "test-hiding", grounder="llm",
                                                screenshots=False), SimDevice(), ScriptedModel(responder=DemoOracle()),
                                  tmp_path / "ep")
    finally:
        unregister("test-hiding")
    assert result.stop_reason is StopReason.DONE, result.detail
    t = read_trajectory(result.directory)
    # Step 1 (the Settings list) without the row; step 3 (the same list, after going back) with it.
    assert '"Display"' not in run.seen[1].description and '"Display"' in run.seen[3].description
    assert '"Network & internet"' in run.seen[1].description
    grounding = [c for c in t.steps[1].calls if c.purpose == "ground"]
    assert grounding and all('"Display"' not in c.prompt for c in grounding)
    assert t.steps[1].description == run.seen[1].description  # recorded as the run saw it ...
    assert b'text="Display"' in (result.directory / t.steps[1].screen_file).read_bytes()  # ... the dump as observed
    # Each outcome names the element its tap landed on; other actions name none.
    assert [o.target for o in run.outcomes] == [None, NETWORK, None, None]


def test_a_method_that_needs_the_task_check_is_refused_without_one(tmp_path: Path) -> None:
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    client = ScriptedModel(["unused"])
    with pytest.raises(ConfigError, match=r"^method reflection-check judges each trial by the task's automatic "
                                          r"check, and this episode has none \(EpisodeConfig.trial_check is None\)$"):
        run_episode_sync(EpisodeConfig("Turn off data roaming", "reflection-check"), SimDevice(), client,
                         tmp_path / "ep")
    assert not (tmp_path / "ep").exists() and not client.requests
