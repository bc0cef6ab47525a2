"""The contract every agent method (:class:`~latent_agent.agent.policy.Policy`) must pass.

Subclass :class:`PolicyContract` in a test module and implement ``make_policy``; the contract
registers the policy under a temporary name for the duration of each test::

    class TestMyPolicy(PolicyContract):
        def make_policy(self) -> Policy:
            return MyPolicy()

To check methods that are already registered, override the ``method_name`` fixture instead
(``tests/agent/test_policies.py`` does so for every registered method). The episodes run on the
simulated phone against the in-process demo stand-in (``make_client``), on a goal it knows.
"""

from __future__ import annotations

import abc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.methods import ZERO_SHOT, Method, Variant, get_method, register, unregister
from latent_agent.agent.policy import EpisodeSetup, Outcome, Phases, Policy, StepInput
from latent_agent.agent.trajectory import (
    OpaqueState,
    StopReason,
    StopRule,
    Trajectory,
    read_trajectory,
    state_from_json,
    state_to_json,
)
from latent_agent.llm.base import LLMClient

GOAL = "Turn off data roaming"
STEPS = 3
#: Why an episode of a working policy may end within :data:`STEPS` steps.
OWN_ENDS = {StopReason.MAX_STEPS, StopReason.METHOD_CAP, StopReason.DONE, StopReason.COMPLETED, StopReason.GAVE_UP,
            StopReason.REPEATED_ACTIONS}


class PolicyContract(abc.ABC):
    """What every policy does, checked through the episode loop and the protocol only."""

    @abc.abstractmethod
    def make_policy(self) -> Policy:
        """A fresh policy."""

    def make_client(self) -> LLMClient:
        """The model the episodes ask (default: the demo stand-in, in process)."""
        from latent_agent.demo.oracle import DemoOracle
        from latent_agent.llm.scripted import ScriptedModel

        return ScriptedModel(responder=DemoOracle())

    @pytest.fixture
    def method_name(self) -> Iterator[str]:
        name = f"contract-{type(self).__name__.lower()}"
        register(Method(name, self.make_policy(), "policy under contract test", ZERO_SHOT, Variant("test", "(test)")))
        try:
            yield name
        finally:
            unregister(name)

    @pytest.fixture
    def trajectory(self, method_name: str, tmp_path: Path) -> Trajectory:
        from latent_agent.benchmarks.sim_tasks import load_suite
        from latent_agent.device.sim.device import SimDevice

        device = SimDevice()
        check = None
        if get_method(method_name).needs_task_check:  # the loop refuses such a method without the goal's check
            task = next(t for t in load_suite() if t.goal == GOAL)
            check = lambda phone: task.succeeded(device.state)  # noqa: E731
        result = run_episode_sync(EpisodeConfig(GOAL, method_name, max_steps=STEPS, screenshots=False,
                                                trial_check=check), device, self.make_client(), tmp_path / "ep")
        assert result.stop_reason in OWN_ENDS, result.detail
        return read_trajectory(result.directory)

    def test_an_episode_ends_on_its_own_terms_and_every_step_is_recorded(self, trajectory: Trajectory) -> None:
        assert trajectory.end is not None and trajectory.end.steps == len(trajectory.steps) >= 1
        assert [s.index for s in trajectory.steps] == list(range(len(trajectory.steps)))
        for step in trajectory.steps:
            assert step.selected_step.strip(), "every decision names a step (UNKNOWN when there is none)"
            assert not step.executed or (step.action is not None and step.execution_error is None)

    def test_the_state_of_every_step_is_registered_and_round_trips(self, trajectory: Trajectory) -> None:
        for step in trajectory.steps:
            if step.state is None:
                continue
            assert not isinstance(step.state, OpaqueState), f"state kind {step.state.kind!r} is not registered"
            written = json.loads(json.dumps(state_to_json(step.state)))
            assert written["kind"] == step.state.kind and state_from_json(written) == step.state

    def test_phases_are_named_and_timed(self, trajectory: Trajectory) -> None:
        for step in trajectory.steps:
            phases = step.timing.phases
            assert "observe" in phases and all(isinstance(k, str) and v >= 0.0 for k, v in phases.items())
            assert step.timing.total_s >= step.timing.device_s >= 0.0

    def test_a_stopping_decision_is_never_executed(self, trajectory: Trajectory) -> None:
        assert trajectory.end is not None
        if trajectory.end.stop_reason in (StopReason.DONE, StopReason.COMPLETED):
            assert not trajectory.steps[-1].executed

    def test_each_episode_has_its_own_memory(self, method_name: str) -> None:
        """A run begun after another has recorded a step decides as the first run did at its start."""
        from latent_agent.device.sim.device import SimDevice

        policy = get_method(method_name).policy
        setup = EpisodeSetup(GOAL, StopRule.DONE_IN_ACTION, STEPS)
        client = self.make_client()

        async def first_steps() -> tuple[str, str]:
            from latent_agent.agent.calls import LLMCaller
            from latent_agent.agent.observe import observe

            device = SimDevice()
            apps = dict(device.launcher_apps())
            caller = LLMCaller(client, episode_id="contract")
            one = policy.begin(setup)
            obs = observe(device, apps, screenshot=False)
            first = await one.decide(StepInput(0, obs, True, caller, Phases()))
            one.record(Outcome(obs, first, first.state, False, "not executed (contract test)"))
            await one.decide(StepInput(1, obs, False, caller, Phases()))
            two = policy.begin(setup)
            second = await two.decide(StepInput(0, obs, True, caller, Phases()))
            return first.step, second.step

        first, second = client.run_sync(first_steps())
        assert first == second
