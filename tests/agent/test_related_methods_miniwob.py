"""The related methods on their own benchmark: MiniWoB++ task pages, judged by the page's reward.

CAAP saw only screenshots; here it runs from the screenshot of the task area alone (``--observation
screen``: the dump is never read), with a scripted model that answers from the element list the screen
observer made of the picture.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.device.miniwob.device import MiniWobDevice
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

QUOTED = re.compile(r'"([^"]+)"')



def _caap_plays(request: GenerationRequest) -> str:
    """CAAP's answer: click the listed element whose text the goal quotes."""
    inputs = dict(request.inputs)
    if request.purpose == "normalize_goal":
        return str(inputs["goal"])
    assert request.purpose == "caap", request.purpose
    found = QUOTED.search(str(inputs["goal"]))
    assert found is not None, inputs["goal"]
    elements = inputs["elements"]
    assert isinstance(elements, list)
    target = next(e for e in elements if e.get("text") == found.group(1))
    return f"Action_{inputs['next_index']}=(Action: functions.click_element, Argument: {{element_id: {target['id']}}})"


@pytest.mark.parametrize("seed", [1000, 1001])
def test_caap_runs_from_the_screenshot_of_the_task_area_alone(page: MiniWobDevice, seed: int,
                                                              tmp_path: Path) -> None:
    goal = page.load_task("click-button", seed)
    client = ScriptedModel(responder=_caap_plays)
    try:
        result = run_episode_sync(EpisodeConfig(goal, "caap", observation="screen", task_id="click-button", seed=seed,
                                                max_steps=5), page, client, tmp_path / "ep")
    finally:
        client.close()
    assert result.stop_reason is StopReason.TASK_ENDED, result.detail
    assert page.task_reward().raw == 1.0
    t = read_trajectory(result.directory)
    assert t.header.observation == "screen" and len(t.steps) == 1
    [call] = [c for c in t.steps[0].calls if c.purpose == "caap"]
    # The element list came from the picture of the task area, and named the button the goal asks for.
    wanted = QUOTED.search(goal)
    assert wanted is not None and f'text: "{wanted.group(1)}"' in call.prompt
    assert t.steps[0].screenshot_file is not None
