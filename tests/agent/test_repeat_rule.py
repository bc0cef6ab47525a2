"""The three-identical-actions stop is a method's own rule, carried by the registry and read by the loop.

The latent-state paper stops an episode after three identical actions in a row; the related methods'
papers have no such rule. A toy method that goes home at every step shows that the loop applies the rule
exactly when the method's registry entry carries it, whatever the method is called.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.agent.caap.policy import CaapPolicy
from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.exemplars.policy import ExemplarPolicy
from latent_agent.agent.latent_state.history_only import HistoryOnlyPolicy
from latent_agent.agent.latent_state.policy import LatentStatePolicy
from latent_agent.agent.methods import METHODS, REPEAT_LIMIT, Family, Method, Variant, register, unregister
from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, StepInput
from latent_agent.agent.reflection.policy import ReflectionPolicy
from latent_agent.agent.trajectory import StopReason
from latent_agent.errors import ConfigError

HOME = "Go to the home screen"


class _HomeRun:
    async def decide(self, step: StepInput) -> Decision:
        return Decision(HOME)

    def record(self, outcome: Outcome) -> None:
        pass


class _HomePolicy:
    def begin(self, setup: EpisodeSetup) -> _HomeRun:
        return _HomeRun()


@pytest.fixture
def homing() -> Iterator[tuple[str, str]]:
    family, variant = Family("test-homing", "Homing"), Variant("homing", "(homing)")
    register(Method("test-homing-plain", _HomePolicy(), "goes home every step", family, variant))
    register(Method("test-homing-ruled", _HomePolicy(), "goes home every step", family, variant, repeat_limit=3))
    try:
        yield "test-homing-plain", "test-homing-ruled"
    finally:
        unregister("test-homing-plain")
        unregister("test-homing-ruled")


def _run(method: str, out: Path) -> tuple[StopReason, int]:
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    result = run_episode_sync(EpisodeConfig("Turn on dark theme", method, grounder="hybrid", screenshots=False,
                                            max_steps=6), SimDevice(), ScriptedModel(responder=DemoOracle()), out)
    return result.stop_reason, result.steps


def test_the_loop_stops_on_repeated_actions_only_for_a_method_that_carries_the_rule(
        homing: tuple[str, str], tmp_path: Path) -> None:
    plain, ruled = homing
    assert _run(ruled, tmp_path / "ruled") == (StopReason.REPEATED_ACTIONS, 3)
    assert _run(plain, tmp_path / "plain") == (StopReason.MAX_STEPS, 6)


def test_the_latent_state_agents_carry_the_papers_rule_and_the_related_methods_none() -> None:
    assert REPEAT_LIMIT == 3
    for method in METHODS.values():
        if isinstance(method.policy, LatentStatePolicy | HistoryOnlyPolicy):
            assert method.repeat_limit == REPEAT_LIMIT, method.name
        elif isinstance(method.policy, ReflectionPolicy | ExemplarPolicy | CaapPolicy):
            assert method.repeat_limit is None, method.name
    assert sum(m.repeat_limit is not None for m in METHODS.values()) == 6


def test_a_repeat_limit_below_two_is_refused() -> None:
    with pytest.raises(ConfigError, match="repeat_limit must be >= 2"):
        Method("test-bad", _HomePolicy(), "bad", Family("f", "F"), Variant("v", "(v)"), repeat_limit=1)
