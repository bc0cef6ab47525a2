"""End to end through the real SDKs (google-genai, openai) against the local Gemini and OpenAI stand-ins.

The stand-ins answer with the demo oracle, a scripted model that plays a competent
LLM (demo/oracle.py); every prompt the agent renders, with its purpose and inputs,
crosses HTTP and the SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.latent_state.chain import no_mistakes
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.methods import METHODS
from latent_agent.agent.trajectory import StepRecord, StopReason
from latent_agent.benchmarks.sim_tasks import Task, load_suite
from latent_agent.demo.client import demo_client
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.llm.base import LLMClient

TASKS = ("settings_roaming_off", "settings_color_inversion", "qs_flashlight_on", "clock_stopwatch",
         "chrome_open_shop")


@pytest.fixture(scope="module", params=["gemini", "openai"])
def client(request: pytest.FixtureRequest) -> Iterator[LLMClient]:
    with demo_client(protocol=request.param) as c:
        yield c


@pytest.fixture(scope="module")
def suite() -> dict[str, Task]:
    return {t.id: t for t in load_suite()}


@pytest.mark.parametrize("method", list(METHODS))
def test_every_selector_completes_five_sim_tasks(method: str, client: LLMClient, suite: dict[str, Task],
                                                 tmp_path: Path) -> None:
    for task_id in TASKS:
        task = suite[task_id]
        device = SimDevice()
        # A method judged by the task's check is given it (run_episode refuses it otherwise).
        check = (lambda phone, t=task: t.succeeded(phone.state)) if METHODS[method].needs_task_check else None
        result = run_episode_sync(EpisodeConfig(task.goal, method, task_id=task_id, screenshots=False,
                                                trial_check=check), device, client, tmp_path / task_id)
        expected = StopReason.COMPLETED if METHODS[method].plus else StopReason.DONE
        assert result.stop_reason is expected, (task_id, result.detail)
        assert task.succeeded(device.state), task_id
        # Every step costs a grounding call at least, except for CAAP, which grounds the element ids its one
        # call names for several steps itself.
        fewest = 1 if METHODS[method].family.name == "caap" else result.steps + 1
        assert result.usage.calls >= fewest and result.usage.prompt_tokens > 0


def test_plus_agent_notices_a_tap_that_landed_elsewhere_and_recovers(
    client: LLMClient, suite: dict[str, Task], tmp_path: Path
) -> None:
    task = suite["settings_roaming_off"]
    # With this seed the tap meant for "Roaming" lands 150 px away, on the "App data usage" row.
    device = SimDevice(seed=2, noise=NoiseConfig(tap_offset_px=150))
    steps: list[StepRecord] = []
    result = run_episode_sync(EpisodeConfig(task.goal, "zero-shot+", screenshots=False), device, client,
                              tmp_path / "ep", on_step=steps.append)
    # The previous-action estimate reports the tap that really happened, not the commanded one ...
    mismatches = [i for i, s in enumerate(steps)
                  if latent_of(s) is not None and latent_of(s).commanded == 'Tap "Roaming"'
                  and latent_of(s).previous_action != 'Tapped "Roaming".']
    assert mismatches, [latent_of(s).previous_action for s in steps if latent_of(s)]
    noticed = steps[mismatches[0]]
    assert latent_of(noticed) is not None and latent_of(noticed).previous_action == 'Tapped "App data usage".'
    # ... the mistakes estimate names it, and the + selector corrects it first.
    assert not no_mistakes(latent_of(noticed).mistakes) and "App data usage" in latent_of(noticed).mistakes
    assert noticed.selected_step == "Go back"
    assert result.stop_reason is StopReason.COMPLETED and task.succeeded(device.state)
    # Correctly performed steps are never reported as mistakes.
    assert all(no_mistakes(latent_of(s).mistakes) for s in steps[:mismatches[0]] if latent_of(s) is not None)
