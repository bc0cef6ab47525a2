"""Every registered method passes the policy contract; the registry's own rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.latent_state.history_only import HistoryOnlyPolicy, HistoryState
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.methods import METHODS, ZERO_SHOT, Method, Variant, get_method, pairs, register, unregister
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.errors import ConfigError
from tests.agent.policy_contract import PolicyContract


class TestRegisteredMethods(PolicyContract):
    """The contract, run for every method in the registry."""

    def make_policy(self) -> HistoryOnlyPolicy:
        raise AssertionError("the registered methods' policies are used")

    @pytest.fixture(params=list(METHODS))
    def method_name(self, request: pytest.FixtureRequest) -> str:
        name: str = request.param
        return name


def test_the_paper_pairs_come_from_the_registry() -> None:
    assert [(m.name, b.name) for m, b in pairs()] == [("zero-shot+", "zero-shot-"), ("cot-sc+", "cot-sc-"),
                                                      ("react+", "react-")]
    assert [m.label for m in METHODS.values()][:2] == ["Zero-shot (no latent state)", "Zero-shot + latent state"]


def test_register_refuses_a_taken_name_and_an_unknown_baseline() -> None:
    policy = get_method("zero-shot-").policy
    with pytest.raises(ConfigError, match="already registered"):
        register(Method("zero-shot-", policy, "again", ZERO_SHOT, Variant("x", "(x)")))
    with pytest.raises(ConfigError, match="baseline 'nope' is not registered"):
        register(Method("new", policy, "x", ZERO_SHOT, Variant("x", "(x)"), baseline="nope"))
    assert "new" not in METHODS


def test_unregister_refuses_a_method_another_is_paired_with() -> None:
    with pytest.raises(ConfigError, match="baseline of zero-shot\\+"):
        unregister("zero-shot-")
    with pytest.raises(ConfigError, match="unknown method"):
        unregister("nope")
    assert "zero-shot-" in METHODS


def test_history_only_steps_keep_the_react_thought(tmp_path: Path) -> None:
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    result = run_episode_sync(EpisodeConfig("Turn off data roaming", "react-", max_steps=2, screenshots=False),
                              SimDevice(), ScriptedModel(responder=DemoOracle()), tmp_path / "ep")
    steps = read_trajectory(result.directory).steps
    assert all(isinstance(s.state, HistoryState) and latent_of(s) is None for s in steps)
    assert all(isinstance(s.state, HistoryState) and s.state.thought for s in steps)
    assert set(steps[0].timing.phases) == {"observe", "select", "ground", "execute"}
