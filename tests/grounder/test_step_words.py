"""One step vocabulary: the words a scripted step is said in (benchmarks/steps.py's ``step_words``, which the
demo's selector answers with) are read back by the hybrid grounder's rules as the step's own action."""

from __future__ import annotations

from latent_agent.accessibility.tree import ScreenSize, UITree
from latent_agent.benchmarks.steps import KEYS, KeyStep, LaunchStep, OpenAppStep, ScrollStep, Step, resolve, step_words
from latent_agent.device.base import DIRECTIONS, SYSTEM_ACTIVITIES
from latent_agent.grounder.base import GroundingScreen
from latent_agent.grounder.hybrid import resolve as rule

EMPTY = GroundingScreen((), "[]", ScreenSize(1080, 2400), {})


def test_the_rules_read_every_step_without_a_target_as_the_step_means_it() -> None:
    steps: list[Step] = [*(KeyStep(k) for k in KEYS), *(LaunchStep(a) for a in SYSTEM_ACTIVITIES),
                         *(ScrollStep(d) for d in DIRECTIONS)]
    for step in steps:
        assert rule(step_words(step), EMPTY) == resolve(step, UITree(roots=())), step_words(step)


def test_the_rules_read_an_open_app_step_as_that_app() -> None:
    screen = GroundingScreen((), "[]", ScreenSize(1080, 2400), {"Clock": "com.google.android.deskclock"})
    step = OpenAppStep("Clock")
    assert rule(step_words(step), screen) == resolve(step, UITree(roots=()))
